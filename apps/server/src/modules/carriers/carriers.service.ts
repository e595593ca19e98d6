import type { AppContext } from '../../context.ts';
import { carrierConfig, createCarrierClient, hasCredentials, type CarrierClient } from './carriers.ts';
import { COURIER_SLUGS } from './types.ts';
import { startCarrierSandbox } from './sandbox/carrier-sandbox.ts';
import { createSharedRateLimiter } from './rate-limit.ts';
import { createHash, createHmac } from 'node:crypto';
import { PUSH_COURIERS } from './push-subscribe.ts';
import { carrierRateLimitWait } from '../../lib/metrics.ts';

// The carrier wing's public face: other modules reach carriers only through this file (the boundary lint
// rule holds it). The carrier client (and the built-in sandbox when a carrier has no credentials) live on
// the context so the API role (detect, "sandbox" flags) and the worker role (refresh engine) share one instance.

export {
  CarrierDetectError,
  detectCarriers,
  normalizeTrackingNumber,
  resolveCourier,
  serviceFromNumber,
  UNKNOWN_FORMAT_MESSAGE,
} from './detect.ts';
export { COURIER_SLUGS, isCourierSlug } from './types.ts';
export type { CourierSlug, TrackResult, TrackSuccess, TrackFailure, NormalizedCheckpoint, CarrierErrorKind } from './types.ts';
export type { CarrierClient } from './carriers.ts';
export { sandboxPollIntervalMs } from './sandbox/journeys.ts';
export type { JourneyStartLookup } from './sandbox/carrier-sandbox.ts';
export { PUSH_COURIERS, PUSH_TTL_MS, isPushCourier, type PushCourier, type CarrierPush } from './push-subscribe.ts';
export { readPush, type PushReading } from './push.ts';

export interface CarrierRuntime {
  client: CarrierClient;
  sandbox: { url: string; close(): Promise<void> } | null;
  pace: number;
}

/**
 * Start the carrier sandbox if any carrier lacks credentials, create the client, keep both on the context.
 * The sandbox continues each journey from `ctx.resources.sandboxJourneyStart` when it is set (the trackings
 * module provides it from the stored checkpoints; the carrier wing does not read another module's tables).
 */
export async function setupCarriers(ctx: AppContext): Promise<void> {
  const own = carrierConfig(ctx.config);
  own.usps.adminEmail = ctx.config.SUPPORT_EMAIL;
  const needSandbox = COURIER_SLUGS.some((c) => !hasCredentials(own, c));
  // Sandbox carriers push with a secret derived from the session secret, so every process of one deployment
  // agrees on it with nothing configured; a secret set for the carrier wins.
  const sandboxPush = ctx.config.CARRIER_SANDBOX_PUSH === 'on';
  for (const c of PUSH_COURIERS)
    if (!hasCredentials(own, c) && !own.pushSecrets?.[c])
      own.pushSecrets = { ...own.pushSecrets, [c]: derivedPushSecret(ctx.config.sessionSecret, c) };
  own.sandboxPush = sandboxPush;
  const sandbox = needSandbox
    ? await startCarrierSandbox({
        port: ctx.config.CARRIER_SANDBOX_PORT,
        host: '127.0.0.1',
        pace: ctx.config.CARRIER_SANDBOX_PACE,
        now: () => ctx.now().getTime(),
        journeyStart: ctx.resources.sandboxJourneyStart,
        push: { enabled: sandboxPush, fedexSecurityToken: own.pushSecrets?.fedex ?? '', dropRate: ctx.config.CARRIER_SANDBOX_PUSH_DROP },
      })
    : null;
  const client = createCarrierClient(sandbox ? { ...own, sandboxUrl: sandbox.url } : own, {
    limiter: (courier, setting, credential) =>
      createSharedRateLimiter(ctx.db, carrierLimitKey(courier, credential), setting, {
        onWait: (ms) => carrierRateLimitWait.inc({ carrier: courier }, ms / 1000),
      }),
  });
  ctx.resources.carriers = { client, sandbox, pace: ctx.config.CARRIER_SANDBOX_PACE };
}

export async function closeCarriers(ctx: AppContext): Promise<void> {
  const rt = ctx.resources.carriers;
  if (!rt) return;
  delete ctx.resources.carriers;
  rt.client.close?.();
  await rt.sandbox?.close();
}

/** A 32-character push secret for a sandbox carrier, the same in every process that shares the session secret. */
export function derivedPushSecret(sessionSecret: string, courier: string): string {
  return createHmac('sha256', sessionSecret).update(`carrier-push:${courier}`).digest('base64url').slice(0, 32);
}

/** The shared quota's key: the carrier and a digest of its credential (the id itself stays out of the table). */
export function carrierLimitKey(courier: string, credential: string): string {
  return `carrier:${courier}:${createHash('sha256').update(credential).digest('hex').slice(0, 16)}`;
}

function runtimeOf(ctx: AppContext): CarrierRuntime {
  const rt = ctx.resources.carriers;
  if (!rt) throw new Error('carrier client not set up: bootstrap calls setupCarriers(ctx)');
  return rt;
}

export const carriersOf = (ctx: AppContext): CarrierClient => runtimeOf(ctx).client;
export const sandboxPaceOf = (ctx: AppContext): number => runtimeOf(ctx).pace;
