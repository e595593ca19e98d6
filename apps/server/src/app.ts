import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import Fastify, { type FastifyInstance, type FastifyError, type FastifyReply } from 'fastify';
import compress from '@fastify/compress';
import helmet from 'helmet';
import rateLimit from '@fastify/rate-limit';
import { sharedRateLimitStore } from './lib/shared-rate-limit-store.ts';
import { httpDuration, metricsText, tokenMatches } from './lib/metrics.ts';
import fastifyStatic from '@fastify/static';
import { MSG, findInputProblem, type MapConfig } from '@shiptrail/contract';
import type { AppContext } from './context.ts';
import { AppError } from './lib/errors.ts';
import { applyStatusContract, failure, success } from './lib/http.ts';
import { authPlugin } from './modules/accounts/auth.plugin.ts';
import { accountRoutes } from './modules/accounts/accounts.routes.ts';
import { trackingRoutes } from './modules/trackings/trackings.routes.ts';
import { pushRoutes } from './modules/trackings/push.routes.ts';
import { devOutboxRoutes } from './modules/mail/dev-outbox.routes.ts';
import { openapiRoutes } from './modules/openapi/openapi.routes.ts';
import { notificationRoutes } from './modules/notifications/notifications.routes.ts';
import { memberRoutes } from './modules/members/members.routes.ts';
import { invitationRoutes } from './modules/members/invitations.routes.ts';
import { offerClaim } from './modules/members/invitations.service.ts';
import { shipmentRoutes } from './modules/shipments/shipments.routes.ts';
import { planningRoutes } from './modules/planning/planning.routes.ts';
import { billingRoutes, gatewayWebhookRoutes } from './modules/billing/billing.routes.ts';
import { liveRoutes } from './modules/live/live.routes.ts';
import { braintreeConfigured } from './modules/billing/billing.service.ts';
import { geoRoutes } from './modules/geo/geo.routes.ts';
import { withLogContext } from './lib/log-context.ts';
import { limitConnections } from './lib/connection-limits.ts';

declare module 'fastify' {
  interface FastifyInstance {
    v1Routes: string[];
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Security headers helmet sets that apply to documents only (not to the scripts and styles a page loads). */
const DOCUMENT_ONLY_HEADERS = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];
const defaultWebDist = path.resolve(here, '../../web/dist');

/** Build the HTTP app; main.ts listens on it and tests call it with app.inject. */
export async function buildApp(ctx: AppContext, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  // Accounts offers an unclaimed courier its claim link through this slot; members provides it.
  ctx.resources.offerCourierClaim ??= offerClaim;
  const webDist = ctx.config.WEB_DIST ? path.resolve(ctx.config.WEB_DIST) : defaultWebDist;
  const hasWeb = existsSync(path.join(webDist, 'index.html'));
  const app = Fastify({
    loggerInstance: opts.logger === false ? undefined : ctx.log,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{8,64}$/.test(given) ? given : randomUUID();
    },
    trustProxy: ctx.config.TRUST_PROXY,
    bodyLimit: 2 * 1024 * 1024,
    // A request's headers, then its whole body, must arrive in time (a slow client holds no socket for ever). A live
    // stream's request is complete once its headers are in: the stream itself is not cut (docs/operations.md "Limits").
    requestTimeout: ctx.config.REQUEST_TIMEOUT_SECONDS * 1000,
    http: {
      requestTimeout: ctx.config.REQUEST_TIMEOUT_SECONDS * 1000,
      headersTimeout: Math.min(ctx.config.HEADERS_TIMEOUT_SECONDS, ctx.config.REQUEST_TIMEOUT_SECONDS) * 1000,
      // Node checks both timeouts this often (30 s by default, which would let a 1-second timeout run 30).
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(30_000, (Math.min(ctx.config.HEADERS_TIMEOUT_SECONDS, ctx.config.REQUEST_TIMEOUT_SECONDS) * 1000) / 5),
      ),
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300 },
    // Fastify's own routing and connection errors answer in the envelope too, and never echo the URL.
    frameworkErrors: (err, _req, reply) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const status = tooLong ? 414 : 400;
      const message = tooLong
        ? 'A value in the address is too long (300 characters at most)'
        : err.code === 'FST_ERR_BAD_URL'
          ? 'The address is not valid (a malformed %-escape)'
          : 'Bad request';
      return (reply as unknown as FastifyReply).code(status).send(failure(status, message));
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
      const [status, message] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'The request headers are too large']
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'The request took too long to arrive']
            : [400, 'The request is not valid HTTP'];
      const body = JSON.stringify(failure(status, message));
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  });

  // Per-address caps on sockets (not behind a proxy: there the proxy is the only peer) and requests under way.
  limitConnections(app, {
    perAddress: ctx.config.CONNECTIONS_PER_ADDRESS ?? (ctx.config.TRUST_PROXY ? 0 : 256),
    inFlightPerAddress: ctx.config.REQUESTS_IN_FLIGHT_PER_ADDRESS,
    max: ctx.config.MAX_CONNECTIONS,
  });

  // Every /v1 route, as "METHOD /path": a test checks each is in the contract's endpoint list.
  const v1Routes: string[] = [];
  app.decorate('v1Routes', v1Routes);
  // Every log line written while a request is handled (services' ctx.log too) carries its reqId (lib/log-context.ts).
  app.addHook('onRequest', (req, _reply, done) => withLogContext({ reqId: req.id }, done));
  app.addHook('onRoute', (r) => {
    if (!r.url.startsWith('/v1/') || r.url === '/v1/openapi.json') return;
    for (const m of [r.method].flat()) if (m !== 'HEAD') v1Routes.push(`${m} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
  });

  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // HTTP 200 for every /v1 envelope unless the client opts in to real status codes.
  app.addHook('onSend', async (req, reply, payload) => {
    applyStatusContract(req, reply);
    return payload;
  });

  // Google's reCAPTCHA script loads the rest of itself from gstatic and shows its challenge in a frame, so
  // those origins are allowed, and only when the web app is told to run it (a site key is set).
  const recaptchaOrigins = recaptchaCspOrigins(ctx.config);
  const braintree = braintreeCspOrigins(ctx.config);
  // helmet's middleware is built once (its CSP parsed once); @fastify/helmet 13 built it again for every request,
  // 2.5% of the CPU of an add under load.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...recaptchaOrigins, ...braintree.script],
        styleSrc: ["'self'", "'unsafe-inline'", ...braintree.style],
        imgSrc: ["'self'", 'data:', 'https:', ...tileOrigins(ctx.config)],
        connectSrc: ["'self'", ...braintree.connect],
        // blob: lets the print page show the label PDF it fetched (with the session header) and print it.
        frameSrc: ["'self'", 'blob:', 'https://www.youtube-nocookie.com', ...recaptchaOrigins, ...braintree.frame],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (req, reply, done) => securityHeaders(req.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)));
  await app.register(rateLimit, {
    global: false,
    // Several api processes share one PostgreSQL server: the counts live there so a limit is one limit.
    // PGlite is one process, where the plugin's own memory store is the same thing without a write.
    ...(ctx.database.kind === 'postgres' ? { store: sharedRateLimitStore(ctx.db) } : {}),
    errorResponseBuilder: (_req, context) =>
      new AppError(429, MSG.tooManyAttempts, 'rate_limited', null, { 'retry-after': String(Math.ceil(context.ttl / 1000)) }),
  });

  // No NUL characters and no deep nesting in any input, checked once for every route (the rule lives in
  // the contract); before this, a NUL reached PostgreSQL as a 500.
  app.addHook('preValidation', async (req) => {
    const found = findInputProblem(req.params) ?? findInputProblem(req.query) ?? findInputProblem(req.body);
    if (found) throw new AppError(400, found.message, 'validation', { errors: { [found.path || '_']: found.message } });
  });

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return reply.code(err.httpStatus).send(failure(err.httpStatus, err.message, err.payload));
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      req.log.error({ err }, 'unhandled error');
      return reply.code(500).send(failure(500, MSG.internalError));
    }
    // Fastify's own 4xx (bad JSON, wrong content type, body too large): say what was wrong, no internals.
    const message =
      err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? 'The request body is too large'
        : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'Unsupported content type: send JSON'
          : err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
            ? 'The request body is not valid JSON'
            : err.message;
    return reply.code(status).send(failure(status, message));
  });

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0]!;
    if (
      url.startsWith('/v1/') ||
      url === '/v1' ||
      url.startsWith('/dev/') ||
      url.startsWith('/assets/') ||
      req.method !== 'GET' ||
      !hasWeb
    ) {
      return reply.code(404).send(failure(404, MSG.notFound));
    }
    // The web app's client-side routes: serve index.html, never cached, so a deploy takes effect.
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html');
  });

  // Readiness: the database answers (a load balancer sends traffic only then).
  app.get('/healthz', async (_req, reply) => {
    // The embedded database's thread is being restarted (decision 115): not ready until it is back.
    const thread = ctx.database.thread?.status;
    if (thread && thread.state !== 'ready')
      return reply.code(503).send({ status: 'not ready', database: ctx.database.kind, thread: thread.state, restarts: thread.restarts });
    await ctx.db.execute(sql`select 1`);
    return { status: 'ok', database: ctx.database.kind };
  });
  // Liveness: the process answers at all (a restart is the cure only when this fails, not when the
  // database is away for a moment).
  app.get('/livez', async () => ({ status: 'ok' }));

  app.addHook('onResponse', async (req, reply) => {
    httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  // Metrics on the main port only with a token: they describe the deployment and are nobody else's business.
  const metricsToken = ctx.config.METRICS_TOKEN;
  if (metricsToken) {
    app.get('/metrics', async (req, reply) => {
      const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!tokenMatches(given, metricsToken))
        return reply.code(401).header('www-authenticate', 'Bearer').send(failure(401, MSG.unauthorized));
      const m = await metricsText();
      return reply.header('content-type', m.contentType).header('cache-control', 'no-store').send(m.body);
    });
  }

  // JSON replies above about 1 KB are compressed on the fly when the client asks. Static files come
  // precompressed from the build (.br, .gz), and the plugin leaves a reply alone once it has a
  // content-encoding, so nothing is compressed twice.
  // Registered before the routes: it hooks each route as it is added.
  await app.register(compress, {
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
  });

  await app.register(authPlugin, { ctx });
  await app.register(accountRoutes, { ctx });
  await app.register(trackingRoutes, { ctx });
  await app.register(pushRoutes, { ctx });
  await app.register(openapiRoutes, { ctx });
  await app.register(notificationRoutes, { ctx });
  await app.register(memberRoutes, { ctx });
  await app.register(invitationRoutes, { ctx });
  await app.register(shipmentRoutes, { ctx });
  await app.register(planningRoutes, { ctx });
  await app.register(billingRoutes, { ctx });
  await app.register(gatewayWebhookRoutes, { ctx });
  await app.register(liveRoutes, { ctx });
  await app.register(geoRoutes, { ctx });
  if (ctx.mailer.mode === 'outbox') await app.register(devOutboxRoutes, { ctx });

  // What the web app needs to know at run time, read once per page load (never cached, so a config change
  // takes effect without a rebuild): the reCAPTCHA site key and script, or null to load nothing.
  app.get('/web-config.json', async (_req, reply) => {
    reply.header('cache-control', 'no-cache');
    const { RECAPTCHA_SITE_KEY: siteKey, RECAPTCHA_SCRIPT_URL: scriptUrl } = ctx.config;
    return { recaptcha: siteKey ? { siteKey, scriptUrl } : null, map: mapConfig(ctx.config) };
  });

  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      // Serve the build's .br / .gz siblings by Accept-Encoding (br, then gzip, then the file itself),
      // with Vary: Accept-Encoding.
      preCompressed: true,
      // Files are looked up per request, so a rebuilt web app is served without a restart.
      wildcard: true,
      index: ['index.html'],
      setHeaders: (res, file) => {
        // Vite's hashed assets never change; everything else is revalidated.
        if (file.includes(`${path.sep}assets${path.sep}`)) {
          res.header('cache-control', 'public, max-age=31536000, immutable');
          // Headers that only mean something on a document cost ~0.8 KB on each of the landing's ~40 scripts over
          // HTTP/1.1; the page that loads them carries them. nosniff and CORP stay: they protect scripts too.
          for (const h of DOCUMENT_ONLY_HEADERS) res.raw.removeHeader(h);
        } else res.header('cache-control', 'no-cache');
      },
    });
  }

  app.get('/v1', async () => success({ name: 'Shiptrail API', docs: '/developers', openapi: '/v1/openapi.json' }));
  return app;
}

/**
 * Braintree's drop-in (bundled in the billing chunk) puts the card fields in frames served by Braintree, loads
 * its stylesheet from there and talks to Braintree's client API; allowed only when Braintree is configured.
 */
function braintreeCspOrigins(config: AppContext['config']): { script: string[]; style: string[]; connect: string[]; frame: string[] } {
  if (!braintreeConfigured(config)) return { script: [], style: [], connect: [], frame: [] };
  const env = config.BRAINTREE_ENVIRONMENT === 'production' ? '' : 'sandbox.';
  return {
    script: ['https://js.braintreegateway.com', 'https://assets.braintreegateway.com'],
    style: ['https://assets.braintreegateway.com'],
    connect: [
      `https://api.${env}braintreegateway.com`,
      `https://client-analytics.${env}braintreegateway.com`,
      `https://payments.${env}braintree-api.com`,
    ],
    frame: ['https://assets.braintreegateway.com'],
  };
}

/** The map's tiles: null when they are off (the web app draws its offline outlines). */
export function mapConfig(config: AppContext['config']): MapConfig {
  const off = config.MAP_TILE_URL.toLowerCase() === 'off';
  return { tileUrl: off ? null : config.MAP_TILE_URL, attribution: config.MAP_ATTRIBUTION };
}

/** Tiles over https are allowed already; a plain-http tile server (a private one) is allowed by its origin. */
function tileOrigins(config: AppContext['config']): string[] {
  const t = mapConfig(config).tileUrl;
  if (!t || !t.startsWith('http:')) return [];
  return [new URL(t.replace(/\{[a-z]\}/g, '0')).origin];
}

function recaptchaCspOrigins(config: AppContext['config']): string[] {
  if (!config.RECAPTCHA_SITE_KEY) return [];
  const origin = new URL(config.RECAPTCHA_SCRIPT_URL).origin;
  return /^https:\/\/www\.(google\.com|recaptcha\.net)$/.test(origin) ? [origin, 'https://www.gstatic.com'] : [origin];
}
