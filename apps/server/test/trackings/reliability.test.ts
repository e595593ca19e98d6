// What a restart or a stale carrier answer must not do: send a parcel back a step (and mail its owner twice),
// or expire a parcel that still needs attention because the sandbox plays journeys fast. The clock is the
// engine's own (ctx.now), so nothing here sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { checkpoints, trackingEvents, trackings } from '../../src/db/schema.ts';
import { applyResult, modeOf, refreshTrackings } from '../../src/modules/trackings/refresh.ts';
import { carriersOf, closeCarriers, setupCarriers } from '../../src/modules/carriers/carriers.service.ts';
import type { TrackResult, TrackSuccess } from '../../src/modules/carriers/types.ts';
import { EX, add } from './fixtures.ts';

const DAY = 24 * 3600_000;
let env: TestEnv;
let user: Awaited<ReturnType<typeof signUp>>;
const realNow = () => new Date();

beforeAll(async () => {
  // Pace 0.01 (a journey in seconds): expiry must not follow it.
  env = await createTestEnv({ CARRIER_SANDBOX_PACE: '0.01' });
  user = await signUp(env.app);
});
afterAll(async () => {
  env.ctx.now = realNow;
  await env?.close();
});

async function row(tid: string) {
  const [t] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, tid));
  return t!;
}
const eventsOf = async (id: string) => env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, id));
const checkpointsOf = async (id: string) => env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, id));
const statusOf = (r: TrackResult | undefined) => (r?.ok ? r.status : `error:${r?.error.kind}`);

describe('the sandbox journey survives a restart', () => {
  it('after a restart (new sandbox instance, same database) a journey continues where it was', async () => {
    const tid = EX.ups.delivered;
    expect((await add(env, user.apiKey, { tid })).body.code).toBe(201);
    const t = await row(tid);
    const created = t.createdAt.getTime();
    const item = { id: t.id, tid, courier: 'ups' };
    // The engine asks a moment after the add (label printed), then well into the journey (pace 0.01: steps
    // ~0.3-2.8 s apart).
    env.ctx.now = () => new Date(created + 100);
    await refreshTrackings(env.ctx, [item]);
    expect((await row(tid)).status).toBe('InfoReceived');
    env.ctx.now = () => new Date(created + 1_500);
    await refreshTrackings(env.ctx, [item]);
    const mid = await row(tid);
    expect(['InTransit', 'OutForDelivery']).toContain(mid.status);
    const [before] = await carriersOf(env.ctx).track('ups', [tid]);
    const cpsBefore = await checkpointsOf(t.id);
    const eventsBefore = await eventsOf(t.id);

    // Restart: the sandbox (and the client) are rebuilt from nothing but the configuration and the database.
    await closeCarriers(env.ctx);
    await setupCarriers(env.ctx);
    const [after] = await carriersOf(env.ctx).track('ups', [tid]);
    expect(statusOf(after)).toBe(mid.status);
    expect(after?.ok && after.checkpoints).toEqual(before?.ok && before.checkpoints);
    await refreshTrackings(env.ctx, [item]);
    expect((await row(tid)).status).toBe(mid.status);
    expect(await checkpointsOf(t.id)).toHaveLength(cpsBefore.length);
    expect(await eventsOf(t.id)).toHaveLength(eventsBefore.length);

    // And it goes on to the end on the new instance, each status reached once.
    env.ctx.now = () => new Date(created + 10_000);
    await refreshTrackings(env.ctx, [item]);
    expect((await row(tid)).status).toBe('Delivered');
    const chain = (await eventsOf(t.id)).map((e) => e.toStatus);
    expect(new Set(chain).size).toBe(chain.length);
    env.ctx.now = realNow;
  });
});

describe('the refresh engine never moves a status backwards', () => {
  const cp = (status: 'InfoReceived' | 'InTransit' | 'OutForDelivery', time: string, message: string = status) => ({
    status,
    location: 'Louisville, KY, US',
    message,
    time,
  });
  const result = (
    tid: string,
    status: 'InfoReceived' | 'InTransit' | 'OutForDelivery',
    cps: TrackSuccess['checkpoints'],
  ): TrackSuccess => ({
    ok: true,
    tid,
    courier: 'ups',
    status,
    checkpoints: cps,
    expected: null,
    origin: null,
    destination: null,
  });

  it('a carrier answer older than what is stored adds nothing and changes no status', async () => {
    const tid = '1Z5R89390350075626';
    expect((await add(env, user.apiKey, { tid })).body.code).toBe(201);
    const t = await row(tid);
    const mode = { sandbox: false, pace: 1 };
    const newer = result(tid, 'InTransit', [cp('InTransit', '2026-03-02T10:00:00.000Z'), cp('InfoReceived', '2026-03-01T09:00:00.000Z')]);
    expect(await applyResult(env.ctx, t.id, newer, mode)).toBe(true);
    expect((await row(tid)).status).toBe('InTransit');
    const cpsBefore = await checkpointsOf(t.id);
    const eventsBefore = await eventsOf(t.id);

    // The carrier answers with yesterday's picture (a different label scan, so it would be a "new" checkpoint).
    const older = result(tid, 'InfoReceived', [cp('InfoReceived', '2026-03-01T08:00:00.000Z', 'Label created again')]);
    expect(await applyResult(env.ctx, t.id, older, mode)).toBe(false);
    const after = await row(tid);
    expect(after.status).toBe('InTransit');
    expect(after.lastCheckPoint).toMatchObject({ status: 'InTransit', time: '2026-03-02T10:00:00.000Z' });
    expect(await checkpointsOf(t.id)).toHaveLength(cpsBefore.length);
    expect(await eventsOf(t.id)).toHaveLength(eventsBefore.length);
    // It is still checked again later.
    expect(after.nextCheckAt!.getTime()).toBeGreaterThan(env.ctx.now().getTime());

    // A newer answer still moves it on.
    const next = result(tid, 'OutForDelivery', [cp('OutForDelivery', '2026-03-03T07:00:00.000Z'), ...newer.checkpoints]);
    expect(await applyResult(env.ctx, t.id, next, mode)).toBe(true);
    expect((await row(tid)).status).toBe('OutForDelivery');
  });
});

describe('expiry follows the 30-day rule whatever the sandbox pace', () => {
  it('an Exception and a number never found stay as they are for weeks, and expire after 30 days without carrier data', async () => {
    for (const tid of [EX.ups.exception, EX.fedex.notFound]) expect((await add(env, user.apiKey, { tid })).body.code).toBe(201);
    const exc = await row(EX.ups.exception);
    const nf = await row(EX.fedex.notFound);
    const refresh = async (id: string, courier: 'ups' | 'fedex', tid: string) => {
      const [r] = await carriersOf(env.ctx).track(courier, [tid]);
      return applyResult(env.ctx, id, r!, modeOf(env.ctx, courier));
    };
    const at = (ms: number) => {
      env.ctx.now = () => new Date(exc.createdAt.getTime() + ms);
    };

    // Label first; the exception journey then ends within seconds at this pace.
    at(100);
    await refresh(exc.id, 'ups', EX.ups.exception);
    at(10_000);
    await refresh(exc.id, 'ups', EX.ups.exception);
    await refresh(nf.id, 'fedex', EX.fedex.notFound);
    expect((await row(EX.ups.exception)).status).toBe('Exception');
    expect((await row(EX.fedex.notFound)).status).toBe('Pending');

    // Formerly both were Expired after 20 minutes × pace; now nothing happens for an hour, nor for 29 days.
    for (const ms of [3600_000, 29 * DAY]) {
      at(ms);
      await refresh(exc.id, 'ups', EX.ups.exception);
      await refresh(nf.id, 'fedex', EX.fedex.notFound);
      expect((await row(EX.ups.exception)).status).toBe('Exception');
      expect((await row(EX.fedex.notFound)).status).toBe('Pending');
    }

    // 30 days after the last carrier data (the exception) or the creation (never found): Expired, one event each.
    const lastData = (await row(EX.ups.exception)).lastCarrierDataAt!.getTime();
    env.ctx.now = () => new Date(lastData + 30 * DAY + 1000);
    await refresh(exc.id, 'ups', EX.ups.exception);
    await refresh(nf.id, 'fedex', EX.fedex.notFound);
    expect((await row(EX.ups.exception)).status).toBe('Expired');
    expect((await row(EX.fedex.notFound)).status).toBe('Expired');
    expect((await eventsOf(nf.id)).map((e) => [e.fromStatus, e.toStatus])).toEqual([['Pending', 'Expired']]);
    expect((await eventsOf(exc.id)).at(-1)).toMatchObject({ fromStatus: 'Exception', toStatus: 'Expired' });
    env.ctx.now = realNow;
  });
});
