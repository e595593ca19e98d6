// The refresh engine end to end: the real carrier sandbox on loopback at a fast pace, the real carrier
// client, pg-boss jobs and the scheduler loop. Sandbox numbers must reach their final status through the
// list and the public page; re-fetches must not duplicate checkpoints or status events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq, inArray } from 'drizzle-orm';
import { createTestEnv, call, eventually, signUp, type TestEnv } from '../helpers.ts';
import { checkpoints, trackingEvents, trackings, users } from '../../src/db/schema.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { refreshJob } from '../../src/modules/trackings/trackings.jobs.ts';
import {
  startRefreshScheduler,
  stopRefreshScheduler,
  runDueRefreshes,
  applyResult,
  modeOf,
  LEASE_MS,
} from '../../src/modules/trackings/refresh.ts';
import { carriersOf } from '../../src/modules/carriers/carriers.service.ts';
import { claimDue } from '../../src/modules/trackings/trackings.repository.ts';

import { EX, add, list } from './fixtures.ts';

const BAD = 'BADNUMBER1';
/** The carrier answers this one with a checkpoint whose time is no time: writing it fails. */
const UNWRITABLE = '1ZUNWRITABLE0001';
let env: TestEnv;
let user: Awaited<ReturnType<typeof signUp>>;
const trackCalls: string[][] = [];

beforeAll(async () => {
  // Pace 0.01: a whole sandbox journey takes 2-4 s; the scheduler polls every ~120 ms.
  env = await createTestEnv({ CARRIER_SANDBOX_PACE: '0.01' });
  // Wrap the real client: record each call, and make one number fail as a carrier outage would.
  const rt = env.ctx.resources.carriers!;
  const real = rt.client;
  rt.client = {
    ...real,
    async track(courier, tids) {
      trackCalls.push(tids);
      const good = await real.track(
        courier,
        tids.filter((t) => t !== BAD && t !== UNWRITABLE),
      );
      const odd = [
        ...(tids.includes(BAD)
          ? [{ ok: false as const, tid: BAD, courier, error: { kind: 'carrier-down' as const, message: 'HTTP 503' } }]
          : []),
        ...(tids.includes(UNWRITABLE)
          ? [
              {
                ok: true as const,
                tid: UNWRITABLE,
                courier,
                status: 'InTransit' as const,
                checkpoints: [{ status: 'InTransit' as const, location: null, message: 'Scanned', time: 'not a time' }],
                expected: null,
                origin: null,
                destination: null,
              },
            ]
          : []),
      ];
      return [...good, ...odd];
    },
  };
  user = await signUp(env.app);
});
afterAll(async () => {
  await env?.close();
});

async function row(tid: string) {
  const [t] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, tid));
  return t!;
}

describe('refresh engine against the carrier sandbox', () => {
  it('sandbox numbers move to their final status; checkpoints and events are recorded once', async () => {
    for (const body of [
      { tid: EX.ups.delivered },
      { tid: EX.fedex.delivered },
      { tid: EX.canadapost.delivered },
      { tid: EX.ups.exception },
      { tid: EX.usps.notFound },
      { tid: BAD, courier: 'ups' },
    ]) {
      expect((await add(env, user.apiKey, body)).statusCode).toBe(201);
    }
    await startJobWorkers(env.ctx, [refreshJob]);
    await startRefreshScheduler(env.ctx);

    const final = await eventually(
      async () => {
        const r = await list(env, user.apiKey);
        const by = Object.fromEntries(r.body.payload.map((t: { tid: string; status: string }) => [t.tid, t]));
        const done =
          by[EX.ups.delivered].status === 'Delivered' &&
          by[EX.fedex.delivered].status === 'Delivered' &&
          by[EX.canadapost.delivered].status === 'Delivered' &&
          by[EX.ups.exception].status === 'Exception';
        return done ? by : null;
      },
      25_000,
      200,
    );
    const ups = final[EX.ups.delivered];
    expect(ups.checkpoints.length).toBeGreaterThanOrEqual(4);
    expect(ups.checkpoints[0].status).toBe('Delivered');
    expect(ups.lastCheckPoint).toEqual(ups.checkpoints[0]);
    expect(ups.origin).not.toBe('');
    expect(ups.destination).not.toBe('');
    // Newest first.
    const times = ups.checkpoints.map((c: { time: string }) => Date.parse(c.time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    // The public page shows the same journey.
    const pub = await call(env.app, 'GET', `/v1/track/${ups.uid}_${EX.ups.delivered}`);
    expect(pub.body.payload[0].status).toBe('Delivered');
    expect(pub.body.payload[0].checkpoints).toEqual(ups.checkpoints);

    // Delivered stops refreshing.
    const t = await row(EX.ups.delivered);
    expect(t.nextCheckAt).toBeNull();

    // Status events: a chain Pending → ... → Delivered, one row per change, none repeated.
    const events = await env.ctx.db
      .select()
      .from(trackingEvents)
      .where(eq(trackingEvents.trackingId, t.id))
      .orderBy(asc(trackingEvents.createdAt));
    expect(events[0]!.fromStatus).toBe('Pending');
    expect(events.at(-1)!.toStatus).toBe('Delivered');
    for (let i = 0; i < events.length; i++) {
      expect(events[i]!.fromStatus).not.toBe(events[i]!.toStatus);
      if (i > 0) expect(events[i]!.fromStatus).toBe(events[i - 1]!.toStatus);
    }
    // Every scan is kept; statuses a parcel passed between two reads are folded into one event (decision 105), so on a
    // busy machine, where reads come later, the events may skip a status the checkpoints show.
    expect(ups.checkpoints.map((c: { status: string }) => c.status)).toEqual(
      expect.arrayContaining(['InfoReceived', 'InTransit', 'OutForDelivery', 'Delivered']),
    );

    // A carrier number is asked once per call even when batched with others (FedEx batches, UPS one by one).
    expect(trackCalls.every((c) => new Set(c).size === c.length)).toBe(true);
  });

  it('a re-fetch of the same data adds no checkpoint and no event', async () => {
    const t = await row(EX.fedex.delivered);
    const before = await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, t.id));
    const eventsBefore = await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t.id));
    const [again] = await carriersOf(env.ctx).track('fedex', [EX.fedex.delivered]);
    expect(again!.ok).toBe(true);
    // Re-open the tracking as if a delayed job ran again, then apply the same result twice. Its next check is an hour
    // away: the scheduler running beside this test must not claim it and apply the result first (CI saw that once).
    await env.ctx.db
      .update(trackings)
      .set({ nextCheckAt: new Date(Date.now() + 3_600_000), status: 'OutForDelivery' })
      .where(eq(trackings.id, t.id));
    expect(await applyResult(env.ctx, t.id, again!, modeOf(env.ctx, 'fedex'))).toBe(true);
    expect(await applyResult(env.ctx, t.id, again!, modeOf(env.ctx, 'fedex'))).toBe(false);
    const after = await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, t.id));
    expect(after.length).toBe(before.length);
    const eventsAfter = await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t.id));
    expect(eventsAfter.length).toBe(eventsBefore.length + 1); // only the OutForDelivery → Delivered we staged
  });

  it('one failing number backs off without holding back the batch', async () => {
    const bad = await eventually(async () => {
      const t = await row(BAD);
      return t.failures >= 1 ? t : null;
    });
    expect(bad.status).toBe('Pending');
    expect(bad.lastError).toMatch(/carrier-down: HTTP 503/);
    expect(bad.nextCheckAt!.getTime()).toBeGreaterThan(Date.now());
    // The exception journey in the same UPS calls finished regardless.
    expect((await row(EX.ups.exception)).status).toBe('Exception');
  });

  it('a result that cannot be written fails alone: its batch is applied one by one instead', async () => {
    // Both due in the same round, for the same carrier: one batch, whose write fails on the bad checkpoint.
    const u = await env.ctx.db.select({ id: trackings.userId }).from(trackings).limit(1);
    const rows = await env.ctx.db
      .insert(trackings)
      .values(
        [UNWRITABLE, '1Z5R89390350075699'].map((tid) => ({
          userId: u[0]!.id,
          tid,
          courier: 'ups',
          nextCheckAt: new Date(Date.now() - 1000),
        })),
      )
      .returning();
    const good = await eventually(async () => {
      const t = await row('1Z5R89390350075699');
      return t.lastCheckedAt ? t : null;
    });
    expect(good.status).not.toBe('Pending');
    const broken = rows.find((r) => r.tid === UNWRITABLE)!;
    expect(await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, broken.id))).toEqual([]);
    expect((await row(UNWRITABLE)).lastCheckedAt).toBeNull();
  });

  it('a number the carrier never finds stays Pending, then expires after the silence limit', async () => {
    const nf = await row(EX.usps.notFound);
    expect(nf.status).toBe('Pending');
    expect(nf.lastCheckedAt).not.toBeNull();
    const real = env.ctx.now;
    // The read that expires it is this test's own: with the scheduler running, making the row due by hand could
    // hand it to a second claim while a round's claim of it was still in flight (its lease overwritten), and that
    // round's late write then set a next check on the expired row (CI, 2026-11-26, a busy machine).
    await stopRefreshScheduler(env.ctx);
    // 30 days without carrier data, whatever the sandbox pace; move the clock 31 days on.
    env.ctx.now = () => new Date(Date.now() + 31 * 24 * 3600_000);
    try {
      await env.ctx.db.update(trackings).set({ nextCheckAt: new Date() }).where(eq(trackings.id, nf.id));
      await runDueRefreshes(env.ctx);
      const expired = await row(EX.usps.notFound);
      expect(expired.status).toBe('Expired');
      expect(expired.nextCheckAt).toBeNull();
      const events = await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, nf.id));
      expect(events.map((e) => [e.fromStatus, e.toStatus])).toEqual([['Pending', 'Expired']]);
    } finally {
      env.ctx.now = real;
      await startRefreshScheduler(env.ctx);
    }
  });

  it('claims are disjoint: two schedulers never take the same tracking', async () => {
    const ids: string[] = [];
    const uid = (await row(EX.ups.delivered)).userId;
    const now = new Date();
    const rows = await env.ctx.db
      .insert(trackings)
      .values(
        Array.from({ length: 40 }, (_, i) => ({
          userId: uid,
          tid: `CLAIM${i}`,
          courier: 'ups',
          nextCheckAt: new Date(now.getTime() + 3600_000),
        })),
      )
      .returning({ id: trackings.id });
    ids.push(...rows.map((r) => r.id));
    // Make them due for a claim at a moment the running loop cannot reach (a clock one day ahead).
    const later = new Date(now.getTime() + 2 * 3600_000);
    const lease = new Date(later.getTime() + LEASE_MS);
    const [a, b] = await Promise.all([claimDue(env.ctx.db, later, lease, 25), claimDue(env.ctx.db, later, lease, 25)]);
    const claimed = [...a, ...b].map((d) => d.id).filter((id) => ids.includes(id));
    expect(claimed.length).toBe(40);
    expect(new Set(claimed).size).toBe(40);
    await env.ctx.db.delete(trackings).where(inArray(trackings.id, ids));
  });

  it('a reading that adds checkpoints under the same status tells the open screens', async () => {
    const [me] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
    const uid = me!.id;
    const [t] = await env.ctx.db
      .insert(trackings)
      .values({ userId: uid, tid: '1ZANNOUNCE0001', courier: 'ups', status: 'InTransit', nextCheckAt: new Date(Date.now() + 3600_000) })
      .returning();
    // No delivery prediction (earlier tests delivered parcels to learn from): the estimate stays, so what is
    // announced is the new checkpoint alone.
    const predictions = env.ctx.resources.deliveryPredictions;
    env.ctx.resources.deliveryPredictions = undefined;
    const heard: Array<Record<string, unknown>> = [];
    const stop = env.ctx.bus.subscribe('live', (m) => {
      if (m.data.trackingId === t!.id) heard.push(m.data);
    });
    try {
      const reading = {
        ok: true as const,
        tid: '1ZANNOUNCE0001',
        courier: 'ups' as const,
        status: 'InTransit' as const,
        checkpoints: [
          { status: 'InTransit' as const, location: 'Louisville, KY', message: 'Arrived at facility', time: '2026-03-02T08:00:00Z' },
        ],
        expected: null,
        origin: null,
        destination: null,
      };
      // A new checkpoint, no status change: no status event, but the open list and page hear of the tracking.
      expect(await applyResult(env.ctx, t!.id, reading, modeOf(env.ctx, 'ups'))).toBe(false);
      await eventually(async () => heard.length > 0);
      expect(heard[0]).toEqual({
        kind: 'tracking',
        accountId: uid,
        trackingId: t!.id,
        tid: '1ZANNOUNCE0001',
        status: 'InTransit',
        statusChanged: false,
      });
      expect(await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t!.id))).toEqual([]);
    } finally {
      stop();
      env.ctx.resources.deliveryPredictions = predictions;
      await env.ctx.db.delete(trackings).where(eq(trackings.id, t!.id));
    }
  });
});
