// The refresh engine applies carrier results a chunk at a time (one transaction, one lock statement, one
// checkpoint insert: refresh.ts applyChunk). The guarantees of the one-at-a-time path must hold: each status
// change recorded and notified once, a repeat adds nothing, and one bad result never holds back the others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { checkpoints, notifications, trackingEvents, trackings } from '../../src/db/schema.ts';
import { applyResults } from '../../src/modules/trackings/refresh.ts';
import type { TrackResult } from '../../src/modules/carriers/types.ts';
import { add } from './fixtures.ts';

let env: TestEnv;
let user: Awaited<ReturnType<typeof signUp>>;
const mode = { sandbox: false, pace: 1 };

beforeAll(async () => {
  env = await createTestEnv();
  user = await signUp(env.app);
  // Mail on every status this test reaches, so exactly-once is checked on notifications too.
  const triggers = { InfoReceived: true, InTransit: true, OutForDelivery: true, Delivered: true };
  await env.app.inject({ method: 'POST', url: '/v1/user/general/update', headers: { 'sm-api-token': user.session }, payload: { settings: { receiveNotification: { email: { triggers } } } } });
});
afterAll(() => env.close());

const ok = (tid: string, status: 'InTransit' | 'Delivered', time: string): TrackResult => ({
  ok: true,
  tid,
  courier: 'ups',
  status,
  checkpoints: [{ status, location: 'Louisville, KY, US', message: status, time }],
  expected: null,
  origin: null,
  destination: null,
});

async function trackingsNamed(tids: string[]) {
  for (const tid of tids) expect((await add(env, user.apiKey, { tid, courier: 'ups' })).body.code).toBe(201);
  const rows = await env.ctx.db.select().from(trackings).where(inArray(trackings.tid, tids));
  return tids.map((tid) => rows.find((r) => r.tid === tid)!);
}
const eventsOf = async (ids: string[]) => env.ctx.db.select().from(trackingEvents).where(inArray(trackingEvents.trackingId, ids));

describe('applying carrier results a chunk at a time', () => {
  it('records each change once with its notifications, and a repeat of the same results adds nothing', async () => {
    const tids = Array.from({ length: 120 }, (_, i) => `1ZCHUNK${String(i).padStart(11, '0')}`);
    const rows = await trackingsNamed(tids);
    const results = rows.map((t, i) => ({ id: t.id, r: ok(t.tid, i % 2 ? 'Delivered' : 'InTransit', '2026-11-20T10:00:00.000Z') }));
    const done: string[] = [];
    const first = await applyResults(env.ctx, results, mode, (id) => done.push(id));
    expect(first).toEqual({ fetched: 120, changed: 120, failed: 0 });
    expect(new Set(done).size).toBe(120);
    const ids = rows.map((t) => t.id);
    expect(await eventsOf(ids)).toHaveLength(120);
    const after = await env.ctx.db.select().from(trackings).where(inArray(trackings.id, ids));
    expect(after.filter((t) => t.status === 'Delivered')).toHaveLength(60);
    expect(after.filter((t) => t.status === 'Delivered').every((t) => t.nextCheckAt === null)).toBe(true);
    expect(await env.ctx.db.select().from(checkpoints).where(inArray(checkpoints.trackingId, ids))).toHaveLength(120);
    const mails = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, after[0]!.userId));
    expect(mails.filter((n) => n.channel === 'email')).toHaveLength(120);

    const again = await applyResults(env.ctx, results, mode);
    // Delivered ones are final (skipped); the others see nothing new.
    expect(again).toEqual({ fetched: 120, changed: 0, failed: 0 });
    expect(await eventsOf(ids)).toHaveLength(120);
    expect(await env.ctx.db.select().from(checkpoints).where(inArray(checkpoints.trackingId, ids))).toHaveLength(120);
  });

  it('one result that cannot be applied fails alone: the rest of its chunk is applied one by one', async () => {
    const [a, bad, c] = await trackingsNamed(['1ZCHUNKBAD000000001', '1ZCHUNKBAD000000002', '1ZCHUNKBAD000000003']);
    const stats = await applyResults(
      env.ctx,
      [
        { id: a!.id, r: ok(a!.tid, 'InTransit', '2026-11-21T10:00:00.000Z') },
        { id: bad!.id, r: ok(bad!.tid, 'InTransit', 'not a time') },
        { id: c!.id, r: ok(c!.tid, 'InTransit', '2026-11-21T11:00:00.000Z') },
      ],
      mode,
    );
    expect(stats).toEqual({ fetched: 2, changed: 2, failed: 1 });
    const rows = await env.ctx.db.select().from(trackings).where(inArray(trackings.id, [a!.id, bad!.id, c!.id]));
    expect(Object.fromEntries(rows.map((t) => [t.tid, t.status]))).toEqual({ [a!.tid]: 'InTransit', [bad!.tid]: 'Pending', [c!.tid]: 'InTransit' });
    expect(await eventsOf([a!.id, bad!.id, c!.id])).toHaveLength(2);
  });
});
