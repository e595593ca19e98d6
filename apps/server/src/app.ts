import zlib from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import { success } from './lib/http.ts';
import type { AppContext } from './context.ts';
import { errorHandlers } from './http/errors.ts';
import { limitSockets, registerRateLimit } from './http/limits.ts';
import { probesAndMetrics } from './http/probes.ts';
import { inputChecks, requestHooks } from './http/request-hooks.ts';
import { securityHeaders } from './http/security-headers.ts';
import { serverOptions } from './http/server-options.ts';
import { staticWeb, webDistOf } from './http/static-web.ts';
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
import { geoRoutes } from './modules/geo/geo.routes.ts';

export { mapConfig } from './http/security-headers.ts';

/**
 * Build the HTTP app; main.ts listens on it and tests call it with app.inject. The order is the order requests
 * meet things: socket limits, the request's id and hooks, security headers, rate limits, input checks and the
 * error model, probes, compression, the API's modules, then the web app's files.
 */
export async function buildApp(ctx: AppContext, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  // Accounts offers an unclaimed courier its claim link through this slot; members provides it.
  ctx.resources.offerCourierClaim ??= offerClaim;
  const web = webDistOf(ctx.config);
  const app = Fastify(serverOptions(ctx, opts));
  limitSockets(app, ctx.config);
  requestHooks(app);
  securityHeaders(app, ctx.config);
  await registerRateLimit(app, ctx);
  inputChecks(app);
  errorHandlers(app, web.built);
  probesAndMetrics(app, ctx);

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

  await staticWeb(app, ctx, web);
  app.get('/v1', async () => success({ name: 'Shiptrail API', docs: '/developers', openapi: '/v1/openapi.json' }));
  return app;
}
