import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.url().optional());

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));

/** "60/3600" = 60 requests per 3600 s; "off" lifts the limit (undefined: the carrier's default). */
const rateLimitSetting = z
  .string()
  .optional()
  .transform((v, ctx): { limit: number; intervalMs: number } | false | undefined => {
    const t = v?.trim().toLowerCase();
    if (!t) return undefined;
    if (t === 'off' || t === 'false' || t === 'none') return false;
    const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(t);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `use "<requests>/<seconds>" or "off", not "${v}"` });
      return z.NEVER;
    }
    return { limit: Number(m[1]), intervalMs: Number(m[2]) * 1000 };
  });

/**
 * Carrier credentials, base URLs and limits (docs/carriers.md). A carrier without credentials is served by
 * the built-in carrier sandbox. Exported so tests can build a carrier client from a plain env object.
 */
export const carrierEnvSchema = z.object({
  CARRIER_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  UPS_BASE_URL: optionalUrl,
  UPS_CLIENT_ID: optionalText,
  UPS_CLIENT_SECRET: optionalText,
  UPS_RATE_LIMIT: rateLimitSetting,
  USPS_BASE_URL: optionalUrl,
  USPS_CLIENT_ID: optionalText,
  USPS_CLIENT_SECRET: optionalText,
  USPS_RATE_LIMIT: rateLimitSetting,
  USPS_API: z.enum(['v3', 'v3r2']).default('v3'),
  FEDEX_BASE_URL: optionalUrl,
  FEDEX_CLIENT_ID: optionalText,
  FEDEX_CLIENT_SECRET: optionalText,
  FEDEX_RATE_LIMIT: rateLimitSetting,
  CANADAPOST_BASE_URL: optionalUrl,
  CANADAPOST_USERNAME: optionalText,
  CANADAPOST_PASSWORD: optionalText,
  CANADAPOST_RATE_LIMIT: rateLimitSetting,
  CANADAPOST_LANGUAGE: z.enum(['en-CA', 'fr-CA']).default('en-CA'),
  // Carrier push (docs/carriers.md "Push"): a real carrier pushes only when its secret is set. UPS echoes the
  // credential back; FedEx signs with the security token set in the FedEx project; USPS signs with a 32-character secret.
  UPS_PUSH_CREDENTIAL: z.string().min(16, 'UPS_PUSH_CREDENTIAL must be at least 16 characters').optional(),
  FEDEX_PUSH_SECRET: z.string().min(16, 'FEDEX_PUSH_SECRET must be at least 16 characters').optional(),
  USPS_PUSH_SECRET: z.string().length(32, 'USPS_PUSH_SECRET must be exactly 32 characters').optional(),
  /** Where carriers send their events: this deployment's public address (PUBLIC_URL when unset). */
  CARRIER_PUSH_URL: optionalUrl,
});
export type CarrierEnv = z.infer<typeof carrierEnvSchema>;

/** Every environment variable the server reads; docs/configuration.md lists them with their meaning. */
const envSchema = carrierEnvSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  /** The embedded database's shared buffers, MB (decision 144; 16 since decision 159). */
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(16),
  /** The embedded database's ANALYZE sample (default_statistics_target: 300 rows each), decision 172. */
  PGLITE_STATISTICS_TARGET: z.coerce.number().int().min(1).max(10000).default(25),
  DATABASE_URL: optionalUrl,
  PUBLIC_URL: optionalUrl,
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Shiptrail <no-reply@shiptrail.local>'),
  SUPPORT_EMAIL: z.string().email().default('support@shiptrail.local'),
  SESSION_SECRET: z.string().min(32, 'SESSION_SECRET must be at least 32 characters').optional(),
  SESSION_TTL_DAYS: z.coerce.number().positive().default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  WEB_DIST: z.string().optional(),
  TRUST_PROXY: bool,
  // Abuse limits (docs/operations.md "Limits"). A request's headers and body must arrive within these; an
  // upgraded live stream is a finished request and is not cut.
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(30),
  HEADERS_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(15),
  /** Open connections per client address (per /64 for IPv6); 0 is no cap. Unset: 256, or no cap behind TRUST_PROXY. */
  CONNECTIONS_PER_ADDRESS: z.coerce.number().int().nonnegative().optional(),
  /** Requests under way per client address (the real client behind TRUST_PROXY; an open live stream is one); 0 is no cap. */
  REQUESTS_IN_FLIGHT_PER_ADDRESS: z.coerce.number().int().nonnegative().default(256),
  /** Open connections per process; 0 is no cap. */
  MAX_CONNECTIONS: z.coerce.number().int().nonnegative().default(10_000),
  LIVE_STREAMS_PER_USER: z.coerce.number().int().positive().default(10),
  LIVE_STREAMS_MAX: z.coerce.number().int().positive().default(5000),
  LIVE_PUBLIC_STREAMS_PER_ADDRESS: z.coerce.number().int().positive().default(20),
  LIVE_PUBLIC_STREAMS_MAX: z.coerce.number().int().positive().default(5000),
  /** Proofs of delivery (signature and photo) one account may upload per hour. */
  PROOF_UPLOADS_PER_HOUR: z.coerce.number().int().positive().default(60),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  GOOGLE_AUTH_URL: z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: z.url().default('https://oauth2.googleapis.com/token'),
  GOOGLE_USERINFO_URL: z.url().default('https://openidconnect.googleapis.com/v1/userinfo'),
  RECAPTCHA_SECRET: z.string().optional(),
  RECAPTCHA_VERIFY_URL: z.url().default('https://www.google.com/recaptcha/api/siteverify'),
  RECAPTCHA_SITE_KEY: z.string().optional(),
  // The invisible reCAPTCHA script the web app loads when a site key is set; overridable for tests.
  RECAPTCHA_SCRIPT_URL: z.url().default('https://www.google.com/recaptcha/api.js'),
  LOGIN_MAX_ATTEMPTS: z.coerce.number().int().positive().default(10),
  LOGIN_WINDOW_MINUTES: z.coerce.number().positive().default(15),
  CARRIER_SANDBOX_PACE: z.coerce.number().positive().default(1),
  /** A real carrier's first retry after a failed request, doubled per failure up to six hours (a Retry-After longer wins). */
  CARRIER_RETRY_SECONDS: z.coerce.number().positive().max(21_600).default(60),
  CARRIER_SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** The sandbox pushes UPS, FedEx and USPS scans as those carriers do; `off` leaves polling alone (the backstop). */
  CARRIER_SANDBOX_PUSH: z.enum(['on', 'off']).default('on'),
  /** Share of sandbox pushes silently lost (0-1), to show polling catching what push missed. */
  CARRIER_SANDBOX_PUSH_DROP: z.coerce.number().min(0).max(1).default(0),
  TWILIO_BASE_URL: z.url().default('https://api.twilio.com'),
  TWILIO_ACCOUNT_SID: z.string().optional(),
  TWILIO_AUTH_TOKEN: z.string().optional(),
  TWILIO_FROM: z.string().optional(),
  WEBHOOK_ALLOW_PRIVATE: bool,
  // DNS servers webhooks resolve their hosts with (`ip` or `ip:port`, comma-separated); unset: the system's resolver.
  WEBHOOK_DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine(
      (v) => !v || v.every((s) => /^[\d.]+(:\d+)?$|^\[?[0-9a-f:]+\]?(:\d+)?$/i.test(s)),
      'a comma-separated list of IP addresses, each with an optional :port',
    ),
  // Card payments go to Braintree when all four are set, to the built-in sandbox gateway otherwise.
  BRAINTREE_ENVIRONMENT: z.enum(['sandbox', 'production']).optional(),
  BRAINTREE_MERCHANT_ID: z.string().optional(),
  BRAINTREE_PUBLIC_KEY: z.string().optional(),
  BRAINTREE_PRIVATE_KEY: z.string().optional(),
  // A deployment (PUBLIC_URL not on loopback) refuses to start with a test stand-in unless it is allowed here
  // (deploymentRefusals below; decision 104).
  ALLOW_SANDBOX_PAYMENTS: bool,
  ALLOW_CARRIER_SANDBOX: bool,
  ALLOW_DEV_OUTBOX: bool,
  /** Another Braintree gateway address (http://host:port), e.g. a local fake in tests. */
  BRAINTREE_GATEWAY_URL: z.url().optional(),
  PAYMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /**
   * Abuse limits (docs/operations.md "Abuse limits"), each "<count>/<seconds>" or "off". Card saves per account,
   * top-ups per account, and card saves plus top-ups per card (the same card on any account).
   */
  /** Sign-ups per client address an hour (a test run that signs up many accounts from one address raises it). */
  SIGNUPS_PER_HOUR: z.coerce.number().int().positive().default(20),
  CARD_SAVE_RATE_LIMIT: rateLimitSetting.transform((v) => (v === undefined ? { limit: 5, intervalMs: 3_600_000 } : v)),
  TOPUP_RATE_LIMIT: rateLimitSetting.transform((v) => (v === undefined ? { limit: 10, intervalMs: 3_600_000 } : v)),
  CARD_USE_RATE_LIMIT: rateLimitSetting.transform((v) => (v === undefined ? { limit: 20, intervalMs: 3_600_000 } : v)),
  /** Messages to a company's customers: one per status per shipment (or tracking) per recipient in this window. */
  /** An e-mail's or SMS's first retry after its provider failed (down, refused), doubled per failure up to an hour. */
  NOTIFY_RETRY_SECONDS: z.coerce.number().int().positive().max(3600).default(30),
  CUSTOMER_NOTIFY_REPEAT_MINUTES: z.coerce.number().nonnegative().default(60),
  /** Messages to customers per account per 24 hours; accounts younger than CUSTOMER_NOTIFY_NEW_DAYS get the lower cap. 0 lifts a cap. */
  CUSTOMER_NOTIFY_DAILY: z.coerce.number().int().nonnegative().default(5000),
  CUSTOMER_NOTIFY_NEW_DAILY: z.coerce.number().int().nonnegative().default(100),
  CUSTOMER_NOTIFY_NEW_DAYS: z.coerce.number().nonnegative().default(7),
  /** How long a qualifying referral payment must stand before its reward is paid (the settle window, decision 110). */
  REFERRAL_SETTLE_HOURS: z.coerce.number().nonnegative().default(72),
  /** Seller lines printed on receipts. */
  SELLER_NAME: z.string().default('Shiptrail'),
  SELLER_ADDRESS: z.string().default(''),
  QUEUE_POLL_SECONDS: z.coerce.number().positive().default(0.5),
  /** How long an api process trusts a checked token before reading it again (changes forget it at once); 0 turns the cache off. */
  AUTH_CACHE_SECONDS: z.coerce.number().nonnegative().max(300).default(10),
  /** Serve Prometheus metrics at /metrics on the main port to requests bearing this token. */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  /** An admin port (every role, the worker too): /metrics, /healthz and /readyz, with no token. */
  ADMIN_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  ADMIN_HOST: z.string().default('127.0.0.1'),
  /** A Nominatim-compatible geocoder (its base URL, before /search); unset: the offline ZIP data only. */
  GEOCODER_URL: optionalUrl,
  /** Nominatim's public service allows one request a second. */
  GEOCODER_RATE_LIMIT: rateLimitSetting,
  GEOCODER_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  GEOCODER_CACHE_SECONDS: z.coerce.number().nonnegative().default(86_400),
  /** Plan the day's travel times: straight-line distance times the road factor, at this average speed (decision 118). */
  ROUTING_SPEED_KMH: z.coerce.number().positive().max(200).default(30),
  ROUTING_ROAD_FACTOR: z.coerce.number().min(1).max(5).default(1.3),
  /** An OSRM server (its base URL, before /table): road times for plans; unset, the straight-line estimate. */
  ROUTING_URL: optionalUrl,
  ROUTING_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** How many plans are worked out at once per process (each on its own thread); more wait, then are refused. */
  ROUTING_THREADS: z.coerce.number().int().positive().max(16).default(1),
  /** The map's tile URL template ({z}/{x}/{y}, optional {s}); 'off' draws the offline outlines only. */
  MAP_TILE_URL: z
    .string()
    .trim()
    .default('https://tile.openstreetmap.org/{z}/{x}/{y}.png')
    .refine(
      (v) => v.toLowerCase() === 'off' || /^https?:\/\/[^\s]+\{z\}[^\s]*$/.test(v),
      'use an http(s) URL template with {z}, {x} and {y}, or "off"',
    ),
  MAP_ATTRIBUTION: z.string().default('&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'),
});

export type Env = z.infer<typeof envSchema>;
export interface Config extends Env {
  sessionSecret: string;
  publicUrl: string;
  dataDir: string;
}

export class ConfigError extends Error {}

/**
 * Parse the environment once at boot. A missing SESSION_SECRET is generated and kept in DATA_DIR so
 * sessions survive restarts of a local install; a deployment sets it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const braintreeKeys = ['BRAINTREE_ENVIRONMENT', 'BRAINTREE_MERCHANT_ID', 'BRAINTREE_PUBLIC_KEY', 'BRAINTREE_PRIVATE_KEY'] as const;
  const missing = braintreeKeys.filter((k) => !e[k]);
  if (missing.length > 0 && missing.length < braintreeKeys.length) {
    // A partial set would silently fall back to the sandbox gateway, and a merchant would believe cards are charged.
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.join(', ')}: required when any BRAINTREE_* credential is set (set all four for Braintree, none for the built-in sandbox gateway)`,
    );
  }
  // 'memory://' is a throwaway embedded database (tests): nothing is written to disk for it.
  const inMemory = e.DATA_DIR === 'memory://';
  const dataDir = inMemory ? e.DATA_DIR : path.resolve(e.DATA_DIR);
  let sessionSecret = e.SESSION_SECRET;
  if (!sessionSecret && inMemory) sessionSecret = randomBytes(32).toString('base64url');
  if (!sessionSecret) {
    const file = path.join(dataDir, 'session-secret');
    mkdirSync(dataDir, { recursive: true });
    if (existsSync(file)) sessionSecret = readFileSync(file, 'utf8').trim();
    else {
      sessionSecret = randomBytes(32).toString('base64url');
      writeFileSync(file, sessionSecret + '\n', { mode: 0o600 });
    }
  }
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT || 3000}`).replace(/\/$/, '');
  return { ...e, sessionSecret, publicUrl, dataDir };
}

/** Whether a URL's host is this machine: localhost (and *.localhost), 127.0.0.0/8 or ::1. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1';
}

/**
 * A deployment is a server whose PUBLIC_URL is set and not on loopback (decision 104): people reach it, so the
 * stand-ins that make `npm start` work with nothing configured would take real money, real parcels and real
 * mail. It refuses to start with each of them unless it is allowed explicitly. Returns one sentence per
 * stand-in in use (empty when it may start); main.ts stops the start with them.
 */
export function deploymentRefusals(c: Config): string[] {
  if (!c.PUBLIC_URL || isLoopbackUrl(c.PUBLIC_URL)) return [];
  const out: string[] = [];
  if (!c.BRAINTREE_MERCHANT_ID && !c.ALLOW_SANDBOX_PAYMENTS) {
    out.push(
      'card payments go to the built-in sandbox gateway, where anyone tops up with the test card 4111 1111 1111 1111: set the four BRAINTREE_* credentials, or ALLOW_SANDBOX_PAYMENTS=1 to keep the sandbox on purpose.',
    );
  }
  const carriers: Array<[string, string | undefined, string | undefined, string]> = [
    ['UPS', c.UPS_CLIENT_ID, c.UPS_CLIENT_SECRET, 'UPS_CLIENT_ID and UPS_CLIENT_SECRET'],
    ['USPS', c.USPS_CLIENT_ID, c.USPS_CLIENT_SECRET, 'USPS_CLIENT_ID and USPS_CLIENT_SECRET'],
    ['FedEx', c.FEDEX_CLIENT_ID, c.FEDEX_CLIENT_SECRET, 'FEDEX_CLIENT_ID and FEDEX_CLIENT_SECRET'],
    ['Canada Post', c.CANADAPOST_USERNAME, c.CANADAPOST_PASSWORD, 'CANADAPOST_USERNAME and CANADAPOST_PASSWORD'],
  ];
  const sandboxed = carriers.filter(([, id, secret]) => !(id && secret));
  if (sandboxed.length && !c.ALLOW_CARRIER_SANDBOX) {
    out.push(
      `${sandboxed.map(([name]) => name).join(', ')} ${sandboxed.length === 1 ? 'is' : 'are'} served by the built-in carrier sandbox, which makes up journeys for real tracking numbers: set ${sandboxed.map(([, , , names]) => names).join(', ')}, or ALLOW_CARRIER_SANDBOX=1 to keep the sandbox on purpose.`,
    );
  }
  const outbox = [
    !c.SMTP_URL && 'mail (SMTP_URL)',
    !(c.TWILIO_ACCOUNT_SID && c.TWILIO_AUTH_TOKEN && c.TWILIO_FROM) &&
      'text messages (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM)',
  ].filter(Boolean);
  if (outbox.length && !c.ALLOW_DEV_OUTBOX) {
    out.push(
      `${outbox.join(' and ')} go to the dev outbox, where nobody receives them: set ${outbox.length === 1 ? 'it' : 'them'}, or ALLOW_DEV_OUTBOX=1 to keep the outbox on purpose.`,
    );
  }
  return out;
}
