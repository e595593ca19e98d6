import type { AppContext } from '../../context.ts';
import { carrierConfigFromEnv, createCarrierClient, type CarrierClient } from '../carriers/carriers.ts';
import { COURIER_SLUGS, type CourierSlug } from '../carriers/types.ts';
import { startCarrierSandbox } from '../../sandbox/carrier-sandbox.ts';
import { journeyStartFromCheckpoints } from '../../sandbox/journey-start.ts';

// The carrier client (and the built-in sandbox when a carrier has no credentials) live on ctx.extras so
// the API role (detect, "sandbox" flags) and the worker role (refresh engine) share one instance.

interface CarrierRuntime {
  client: CarrierClient;
  sandbox: { url: string; close(): Promise<void> } | null;
  pace: number;
}

const KEY = 'carriers';

function hasCredentials(env: NodeJS.ProcessEnv, courier: CourierSlug): boolean {
  const c = courier.toUpperCase();
  if (courier === 'canadapost') return !!(env.CANADAPOST_USERNAME?.trim() && env.CANADAPOST_PASSWORD?.trim());
  return !!(env[`${c}_CLIENT_ID`]?.trim() && env[`${c}_CLIENT_SECRET`]?.trim());
}

/** Start the carrier sandbox if any carrier lacks credentials, create the client, keep both on ctx.extras. */
export async function setupCarriers(ctx: AppContext): Promise<void> {
  const env = ctx.config.raw;
  const needSandbox = COURIER_SLUGS.some((c) => !hasCredentials(env, c));
  const sandbox = needSandbox
    ? await startCarrierSandbox({ port: ctx.config.CARRIER_SANDBOX_PORT, host: '127.0.0.1', pace: ctx.config.CARRIER_SANDBOX_PACE, now: () => ctx.now().getTime(), journeyStart: journeyStartFromCheckpoints(ctx.db) })
    : null;
  const client = createCarrierClient(carrierConfigFromEnv(env, sandbox?.url));
  ctx.extras[KEY] = { client, sandbox, pace: ctx.config.CARRIER_SANDBOX_PACE } satisfies CarrierRuntime;
}

export async function closeCarriers(ctx: AppContext): Promise<void> {
  const rt = ctx.extras[KEY] as CarrierRuntime | undefined;
  if (!rt) return;
  delete ctx.extras[KEY];
  rt.client.close?.();
  await rt.sandbox?.close();
}

function runtimeOf(ctx: AppContext): CarrierRuntime {
  const rt = ctx.extras[KEY] as CarrierRuntime | undefined;
  if (!rt) throw new Error('carrier client not set up: bootstrap calls setupCarriers(ctx)');
  return rt;
}

export const carriersOf = (ctx: AppContext): CarrierClient => runtimeOf(ctx).client;
export const sandboxUrlOf = (ctx: AppContext): string | null => runtimeOf(ctx).sandbox?.url ?? null;
export const sandboxPaceOf = (ctx: AppContext): number => runtimeOf(ctx).pace;
