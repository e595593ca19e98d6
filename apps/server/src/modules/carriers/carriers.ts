// The carrier client: one small interface ("track these numbers, get normalized results") over four adapters.
import { carrierEnvSchema, type CarrierEnv } from '../../config.ts';
import type { AdapterDeps, CarrierAdapter } from './adapter.ts';
import { failure } from './adapter.ts';
import { CANADAPOST_PRODUCTION_URL, createCanadaPostAdapter } from './canadapost.ts';
import { createFedexAdapter, FEDEX_PRODUCTION_URL } from './fedex.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from './http.ts';
import { mapConcurrent } from '../../lib/concurrency.ts';
import { carrierCalls } from '../../lib/metrics.ts';
import { createRateLimiter, type RateLimiter, type RateLimitSetting } from './rate-limit.ts';
import { COURIERS, type CourierSlug, type TrackResult } from './types.ts';
import { createUpsAdapter, UPS_PRODUCTION_URL } from './ups.ts';
import { createUspsAdapter, USPS_PRODUCTION_URL } from './usps.ts';
import { isPushCourier, type CarrierPush, type PushCourier } from './push-subscribe.ts';

export type { RateLimitSetting } from './rate-limit.ts';

type Common = {
  /** Scheme and host; the adapter appends the documented paths. */
  baseUrl: string;
  /** Requests allowed per window, or false to lift the limit (bench). Defaults: DEFAULT_RATE_LIMITS. */
  rateLimit?: RateLimitSetting;
  /** Carrier requests in flight at once for this client. */
  concurrency?: number;
};

export interface CarrierConfig {
  ups: Common & { clientId?: string; clientSecret?: string; transactionSrc?: string };
  usps: Common & { clientId?: string; clientSecret?: string; api?: 'v3' | 'v3r2'; adminEmail?: string };
  fedex: Common & { clientId?: string; clientSecret?: string };
  canadapost: Common & { username?: string; password?: string; language?: 'en-CA' | 'fr-CA' };
  /** Built-in carrier sandbox; carriers without credentials are pointed at it. */
  sandboxUrl?: string;
  /**
   * Push secrets by carrier (push-subscribe.ts): a carrier with credentials pushes only when its secret is set; a
   * sandbox carrier pushes unless `sandboxPush` is false, with the secret given here.
   */
  pushSecrets?: Partial<Record<PushCourier, string>>;
  sandboxPush?: boolean;
  timeoutMs?: number;
  maxBodyBytes?: number;
}

export interface CarrierClient {
  track(courier: CourierSlug, tids: string[]): Promise<TrackResult[]>;
  maxBatch(courier: CourierSlug): number;
  isSandbox(courier: CourierSlug): boolean;
  /** The carrier's push side and the secret its events are checked with, or null when it is polled only. */
  push(courier: CourierSlug): { push: CarrierPush; secret: string } | null;
  close?(): void;
}

// Published figures where they exist (carrier notes §0, §2.6, §3.6, §4.5); UPS publishes none, so a conservative guess.
export const DEFAULT_RATE_LIMITS: Record<CourierSlug, Exclude<RateLimitSetting, false>> = {
  ups: { limit: 5, intervalMs: 1000 },
  usps: { limit: 60, intervalMs: 3_600_000 },
  fedex: { limit: 1400, intervalMs: 10_000 },
  canadapost: { limit: 20, intervalMs: 60_000 },
};
// The sandbox is ours: no quota to protect, but keep a ceiling so a runaway loop cannot spin.
export const SANDBOX_RATE_LIMIT: Exclude<RateLimitSetting, false> = { limit: 200, intervalMs: 1000 };

const DEFAULT_CONCURRENCY: Record<CourierSlug, number> = { ups: 8, usps: 4, fedex: 4, canadapost: 4 };

/** The carrier part of the parsed configuration, as the client wants it; `sandboxUrl` serves carriers without credentials. */
export function carrierConfig(env: CarrierEnv, sandboxUrl?: string): CarrierConfig {
  const cfg: CarrierConfig = {
    ups: {
      baseUrl: env.UPS_BASE_URL ?? UPS_PRODUCTION_URL,
      clientId: env.UPS_CLIENT_ID,
      clientSecret: env.UPS_CLIENT_SECRET,
      rateLimit: env.UPS_RATE_LIMIT,
    },
    usps: {
      baseUrl: env.USPS_BASE_URL ?? USPS_PRODUCTION_URL,
      clientId: env.USPS_CLIENT_ID,
      clientSecret: env.USPS_CLIENT_SECRET,
      rateLimit: env.USPS_RATE_LIMIT,
      api: env.USPS_API,
    },
    fedex: {
      baseUrl: env.FEDEX_BASE_URL ?? FEDEX_PRODUCTION_URL,
      clientId: env.FEDEX_CLIENT_ID,
      clientSecret: env.FEDEX_CLIENT_SECRET,
      rateLimit: env.FEDEX_RATE_LIMIT,
    },
    canadapost: {
      baseUrl: env.CANADAPOST_BASE_URL ?? CANADAPOST_PRODUCTION_URL,
      username: env.CANADAPOST_USERNAME,
      password: env.CANADAPOST_PASSWORD,
      rateLimit: env.CANADAPOST_RATE_LIMIT,
      language: env.CANADAPOST_LANGUAGE,
    },
  };
  if (sandboxUrl) cfg.sandboxUrl = sandboxUrl;
  cfg.pushSecrets = { ups: env.UPS_PUSH_CREDENTIAL, fedex: env.FEDEX_PUSH_SECRET, usps: env.USPS_PUSH_SECRET };
  if (env.CARRIER_TIMEOUT_MS) cfg.timeoutMs = env.CARRIER_TIMEOUT_MS;
  return cfg;
}

/** The same from a plain environment (UPS_*, USPS_*, FEDEX_*, CANADAPOST_*), checked like the server's config. */
export const carrierConfigFromEnv = (env: NodeJS.ProcessEnv, sandboxUrl?: string): CarrierConfig =>
  carrierConfig(carrierEnvSchema.parse(env), sandboxUrl);

/** Whether a carrier has credentials of its own (otherwise the sandbox serves it). */
export function hasCredentials(config: CarrierConfig, courier: CourierSlug): boolean {
  if (courier === 'canadapost') return !!(config.canadapost.username && config.canadapost.password);
  const c = config[courier];
  return !!(c.clientId && c.clientSecret);
}

const SANDBOX_SECRET = 'sandbox';

/**
 * Builds the request limiter of a carrier with credentials of its own. By default one per client (one
 * process); the server passes a limiter shared through the database, so every process spends one budget per
 * carrier and credential.
 */
export type LimiterFactory = (courier: CourierSlug, setting: RateLimitSetting, credential: string) => RateLimiter;

/** The credential a carrier's quota belongs to (its client id or user name), empty for the sandbox. */
function credentialOf(config: CarrierConfig, courier: CourierSlug): string {
  return courier === 'canadapost' ? (config.canadapost.username ?? '') : (config[courier].clientId ?? '');
}

/** The adapter of one carrier, with its credentials (the sandbox's placeholder where there are none). */
function adapterFor(config: CarrierConfig, courier: CourierSlug, deps: AdapterDeps): CarrierAdapter {
  switch (courier) {
    case 'ups':
      return createUpsAdapter(
        {
          clientId: config.ups.clientId ?? SANDBOX_SECRET,
          clientSecret: config.ups.clientSecret ?? SANDBOX_SECRET,
          transactionSrc: config.ups.transactionSrc,
        },
        deps,
      );
    case 'usps':
      return createUspsAdapter(
        {
          clientId: config.usps.clientId ?? SANDBOX_SECRET,
          clientSecret: config.usps.clientSecret ?? SANDBOX_SECRET,
          api: config.usps.api,
          adminEmail: config.usps.adminEmail,
        },
        deps,
      );
    case 'fedex':
      return createFedexAdapter(
        { clientId: config.fedex.clientId ?? SANDBOX_SECRET, clientSecret: config.fedex.clientSecret ?? SANDBOX_SECRET },
        deps,
      );
    case 'canadapost':
      return createCanadaPostAdapter(
        {
          username: config.canadapost.username ?? SANDBOX_SECRET,
          password: config.canadapost.password ?? SANDBOX_SECRET,
          language: config.canadapost.language,
        },
        deps,
      );
  }
}

export function createCarrierClient(config: CarrierConfig, opts: { limiter?: LimiterFactory } = {}): CarrierClient {
  const http = { timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBodyBytes: config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
  const adapters = new Map<CourierSlug, { adapter: CarrierAdapter; sandbox: boolean; concurrency: number }>();

  for (const courier of Object.keys(COURIERS) as CourierSlug[]) {
    const real = hasCredentials(config, courier);
    const sandbox = !real && !!config.sandboxUrl;
    if (!real && !sandbox) continue;
    const c = config[courier];
    const rate = c.rateLimit !== undefined ? c.rateLimit : sandbox ? SANDBOX_RATE_LIMIT : DEFAULT_RATE_LIMITS[courier];
    // The sandbox is ours and per process: its ceiling stays in memory.
    const limiter = !sandbox && opts.limiter ? opts.limiter(courier, rate, credentialOf(config, courier)) : createRateLimiter(rate);
    const deps: AdapterDeps = { baseUrl: sandbox ? config.sandboxUrl! : c.baseUrl, http, limiter };
    const adapter = adapterFor(config, courier, deps);
    adapters.set(courier, { adapter, sandbox, concurrency: c.concurrency ?? (sandbox ? 16 : DEFAULT_CONCURRENCY[courier]) });
  }

  return {
    async track(courier, tids) {
      if (tids.length === 0) return [];
      const entry = adapters.get(courier);
      if (!entry) {
        const name = COURIERS[courier]?.name ?? String(courier);
        return tids.map((tid) =>
          failure(courier, tid, 'auth', `${name} is not configured: set its credentials or run with the carrier sandbox.`),
        );
      }
      const size = entry.adapter.maxBatch;
      const batches: string[][] = [];
      for (let i = 0; i < tids.length; i += size) batches.push(tids.slice(i, i + size));
      const results = (await mapConcurrent(batches, entry.concurrency, (batch) => entry.adapter.trackBatch(batch))).flat();
      for (const r of results) carrierCalls.inc({ carrier: courier, outcome: r.ok ? 'ok' : r.error.kind });
      return results;
    },
    maxBatch(courier) {
      return adapters.get(courier)?.adapter.maxBatch ?? 1;
    },
    isSandbox(courier) {
      return adapters.get(courier)?.sandbox ?? false;
    },
    push(courier) {
      const entry = adapters.get(courier);
      if (!entry?.adapter.push || !isPushCourier(courier)) return null;
      if (entry.sandbox && config.sandboxPush === false) return null;
      const secret = config.pushSecrets?.[courier];
      return secret ? { push: entry.adapter.push, secret } : null;
    },
    close() {
      adapters.clear();
    },
  };
}
