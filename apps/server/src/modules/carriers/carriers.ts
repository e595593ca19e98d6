// The carrier client: one small interface ("track these numbers, get normalized results") over four adapters.
import type { AdapterDeps, CarrierAdapter } from './adapter.ts';
import { failure } from './adapter.ts';
import { CANADAPOST_PRODUCTION_URL, createCanadaPostAdapter } from './canadapost.ts';
import { createFedexAdapter, FEDEX_PRODUCTION_URL } from './fedex.ts';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from './http.ts';
import { createRateLimiter, mapConcurrent, type RateLimitSetting } from './rate-limit.ts';
import { COURIERS, type CourierSlug, type TrackResult } from './types.ts';
import { createUpsAdapter, UPS_PRODUCTION_URL } from './ups.ts';
import { createUspsAdapter, USPS_PRODUCTION_URL } from './usps.ts';

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
  usps: Common & { clientId?: string; clientSecret?: string; api?: 'v3' | 'v3r2' };
  fedex: Common & { clientId?: string; clientSecret?: string };
  canadapost: Common & { username?: string; password?: string; language?: 'en-CA' | 'fr-CA' };
  /** Built-in carrier sandbox; carriers without credentials are pointed at it. */
  sandboxUrl?: string;
  timeoutMs?: number;
  maxBodyBytes?: number;
}

export interface CarrierClient {
  track(courier: CourierSlug, tids: string[]): Promise<TrackResult[]>;
  maxBatch(courier: CourierSlug): number;
  isSandbox(courier: CourierSlug): boolean;
  close?(): void;
}

export const PRODUCTION_URLS: Record<CourierSlug, string> = {
  ups: UPS_PRODUCTION_URL,
  usps: USPS_PRODUCTION_URL,
  fedex: FEDEX_PRODUCTION_URL,
  canadapost: CANADAPOST_PRODUCTION_URL,
};

// Published figures where they exist (apis.md §0, §2.6, §3.6, §4.5); UPS publishes none, so a conservative guess.
export const DEFAULT_RATE_LIMITS: Record<CourierSlug, Exclude<RateLimitSetting, false>> = {
  ups: { limit: 5, intervalMs: 1000 },
  usps: { limit: 60, intervalMs: 3_600_000 },
  fedex: { limit: 1400, intervalMs: 10_000 },
  canadapost: { limit: 20, intervalMs: 60_000 },
};
// The sandbox is ours: no quota to protect, but keep a ceiling so a runaway loop cannot spin.
export const SANDBOX_RATE_LIMIT: Exclude<RateLimitSetting, false> = { limit: 200, intervalMs: 1000 };

const DEFAULT_CONCURRENCY: Record<CourierSlug, number> = { ups: 8, usps: 4, fedex: 4, canadapost: 4 };

/** "60/3600" = 60 requests per 3600 s; "off" lifts the limit. */
function parseRateLimit(v: string | undefined): RateLimitSetting | undefined {
  if (!v) return undefined;
  const t = v.trim().toLowerCase();
  if (t === 'off' || t === 'false' || t === 'none') return false;
  const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(t);
  if (!m) throw new Error(`Invalid carrier rate limit "${v}": use "<requests>/<seconds>" or "off".`);
  return { limit: Number(m[1]), intervalMs: Number(m[2]) * 1000 };
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/** Reads UPS_*, USPS_*, FEDEX_*, CANADAPOST_* (docs/carriers.md lists them). */
export function carrierConfigFromEnv(env: NodeJS.ProcessEnv, sandboxUrl?: string): CarrierConfig {
  const timeout = nonEmpty(env.CARRIER_TIMEOUT_MS);
  const usApi = nonEmpty(env.USPS_API);
  const lang = nonEmpty(env.CANADAPOST_LANGUAGE);
  const cfg: CarrierConfig = {
    ups: {
      baseUrl: nonEmpty(env.UPS_BASE_URL) ?? UPS_PRODUCTION_URL,
      clientId: nonEmpty(env.UPS_CLIENT_ID),
      clientSecret: nonEmpty(env.UPS_CLIENT_SECRET),
      rateLimit: parseRateLimit(env.UPS_RATE_LIMIT),
    },
    usps: {
      baseUrl: nonEmpty(env.USPS_BASE_URL) ?? USPS_PRODUCTION_URL,
      clientId: nonEmpty(env.USPS_CLIENT_ID),
      clientSecret: nonEmpty(env.USPS_CLIENT_SECRET),
      rateLimit: parseRateLimit(env.USPS_RATE_LIMIT),
      api: usApi === 'v3r2' ? 'v3r2' : 'v3',
    },
    fedex: {
      baseUrl: nonEmpty(env.FEDEX_BASE_URL) ?? FEDEX_PRODUCTION_URL,
      clientId: nonEmpty(env.FEDEX_CLIENT_ID),
      clientSecret: nonEmpty(env.FEDEX_CLIENT_SECRET),
      rateLimit: parseRateLimit(env.FEDEX_RATE_LIMIT),
    },
    canadapost: {
      baseUrl: nonEmpty(env.CANADAPOST_BASE_URL) ?? CANADAPOST_PRODUCTION_URL,
      username: nonEmpty(env.CANADAPOST_USERNAME),
      password: nonEmpty(env.CANADAPOST_PASSWORD),
      rateLimit: parseRateLimit(env.CANADAPOST_RATE_LIMIT),
      language: lang === 'fr-CA' ? 'fr-CA' : 'en-CA',
    },
  };
  if (sandboxUrl) cfg.sandboxUrl = sandboxUrl;
  if (timeout) cfg.timeoutMs = Number(timeout);
  return cfg;
}

function hasCredentials(config: CarrierConfig, courier: CourierSlug): boolean {
  if (courier === 'canadapost') return !!(config.canadapost.username && config.canadapost.password);
  const c = config[courier];
  return !!(c.clientId && c.clientSecret);
}

const SANDBOX_SECRET = 'sandbox';

export function createCarrierClient(config: CarrierConfig): CarrierClient {
  const http = { timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxBodyBytes: config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
  const adapters = new Map<CourierSlug, { adapter: CarrierAdapter; sandbox: boolean; concurrency: number }>();

  for (const courier of Object.keys(COURIERS) as CourierSlug[]) {
    const real = hasCredentials(config, courier);
    const sandbox = !real && !!config.sandboxUrl;
    if (!real && !sandbox) continue;
    const c = config[courier];
    const rate = c.rateLimit !== undefined ? c.rateLimit : sandbox ? SANDBOX_RATE_LIMIT : DEFAULT_RATE_LIMITS[courier];
    const deps: AdapterDeps = { baseUrl: sandbox ? config.sandboxUrl! : c.baseUrl, http, limiter: createRateLimiter(rate) };
    let adapter: CarrierAdapter;
    switch (courier) {
      case 'ups':
        adapter = createUpsAdapter(
          { clientId: config.ups.clientId ?? SANDBOX_SECRET, clientSecret: config.ups.clientSecret ?? SANDBOX_SECRET, transactionSrc: config.ups.transactionSrc },
          deps,
        );
        break;
      case 'usps':
        adapter = createUspsAdapter(
          { clientId: config.usps.clientId ?? SANDBOX_SECRET, clientSecret: config.usps.clientSecret ?? SANDBOX_SECRET, api: config.usps.api },
          deps,
        );
        break;
      case 'fedex':
        adapter = createFedexAdapter({ clientId: config.fedex.clientId ?? SANDBOX_SECRET, clientSecret: config.fedex.clientSecret ?? SANDBOX_SECRET }, deps);
        break;
      case 'canadapost':
        adapter = createCanadaPostAdapter(
          { username: config.canadapost.username ?? SANDBOX_SECRET, password: config.canadapost.password ?? SANDBOX_SECRET, language: config.canadapost.language },
          deps,
        );
        break;
    }
    adapters.set(courier, { adapter, sandbox, concurrency: c.concurrency ?? (sandbox ? 16 : DEFAULT_CONCURRENCY[courier]) });
  }

  return {
    async track(courier, tids) {
      if (tids.length === 0) return [];
      const entry = adapters.get(courier);
      if (!entry) {
        const name = COURIERS[courier]?.name ?? String(courier);
        return tids.map((tid) => failure(courier, tid, 'auth', `${name} is not configured: set its credentials or run with the carrier sandbox.`));
      }
      const size = entry.adapter.maxBatch;
      const batches: string[][] = [];
      for (let i = 0; i < tids.length; i += size) batches.push(tids.slice(i, i + size));
      const results = await mapConcurrent(batches, entry.concurrency, (batch) => entry.adapter.trackBatch(batch));
      return results.flat();
    },
    maxBatch(courier) {
      return adapters.get(courier)?.adapter.maxBatch ?? 1;
    },
    isSandbox(courier) {
      return adapters.get(courier)?.sandbox ?? false;
    },
    close() {
      adapters.clear();
    },
  };
}
