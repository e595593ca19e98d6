// What a carrier reading does to a tracking (planApply, the refresh engine's decision, pure): the guards, an older
// picture, a pushed event, a status change and what is written. The database tests (test/trackings) run it through
// the engine; these pin each rule so a mutant of it is caught in milliseconds (issue 27's mutation testing).
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../context.ts';
import type { TrackResult } from '../carriers/carriers.service.ts';
import { planApply } from './refresh.ts';
import { EXPIRE_AFTER_MS, PUSH_BACKSTOP_FACTOR } from './schedule.ts';

type Locked = NonNullable<Parameters<typeof planApply>[1]>;
type Row = Locked['t'];
type Step = NonNullable<ReturnType<typeof planApply>>;

const ctx = { resources: {} } as unknown as AppContext;
const NOW = new Date('2030-05-10T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const REAL = { sandbox: false, pace: 1 };

const row = (over: Partial<Row> = {}): Row =>
  ({
    id: 't1',
    tid: '1Z999',
    userId: 'u1',
    courier: 'ups',
    status: 'InTransit',
    origin: 'Austin, TX',
    destination: 'Denver, CO',
    expected: null,
    estimatedDelivery: null,
    promisedBy: null,
    lateFor: null,
    lastCheckPoint: { status: 'InTransit', location: 'Austin, TX', message: 'Departed', time: '2030-05-09T10:00:00.000Z' },
    lastCarrierDataAt: new Date('2030-05-09T10:05:00Z'),
    lastCheckedAt: null,
    lastPushedAt: null,
    nextCheckAt: new Date('2030-05-10T11:00:00Z'),
    failures: 2,
    lastError: 'carrier-down: 503',
    createdAt: new Date('2030-05-08T09:00:00Z'),
    ...over,
  }) as unknown as Row;
const cp = (status: string, time: string, message = status) => ({ status, time, message, location: 'Denver, CO' }) as never;
const reading = (over: Partial<Extract<TrackResult, { ok: true }>> = {}): TrackResult => ({
  ok: true,
  tid: '1Z999',
  courier: 'ups',
  status: 'OutForDelivery',
  checkpoints: [cp('OutForDelivery', '2030-05-10T08:00:00Z'), cp('InTransit', '2030-05-10T02:00:00Z')],
  expected: null,
  origin: null,
  destination: null,
  ...over,
});
const failure = (kind: 'not-found' | 'carrier-down', retryAfterMs?: number): TrackResult => ({
  ok: false,
  tid: '1Z999',
  courier: 'ups',
  error: { kind, message: kind === 'not-found' ? 'No record' : 'Service unavailable', ...(retryAfterMs ? { retryAfterMs } : {}) },
});
const plan = (t: Row | undefined, r: TrackResult, source: 'poll' | 'push' = 'poll') =>
  planApply(ctx, t ? { t, pushed: false } : undefined, r, REAL, source, NOW);
/** The outcome of a step, given how many of its checkpoints were new. */
const outcome = (s: Step | null, added = 0) => {
  expect(s).not.toBeNull();
  return 'done' in s! ? s.done : s!.then(added);
};
const inserted = (s: Step | null) => ('insert' in s! ? s.insert.map((c) => [c.status, (c.time as Date).toISOString()]) : null);
/** The delay until the next check, in ms from NOW. */
const delayOf = (o: ReturnType<typeof outcome>) => (o.update!.nextCheckAt as Date).getTime() - NOW.getTime();

describe('planApply', () => {
  it('does nothing for a tracking gone, stopped, delivered or expired while the carrier was asked', () => {
    expect(plan(undefined, reading())).toBeNull();
    expect(plan(row({ nextCheckAt: null }), reading())).toBeNull();
    expect(plan(row({ status: 'Delivered' }), reading())).toBeNull();
    expect(plan(row({ status: 'Expired' }), reading())).toBeNull();
    expect(plan(row({ status: 'Pending' }), reading())).not.toBeNull();
  });

  it('a newer reading: its checkpoints oldest first, the new status, the change with the newest checkpoint', () => {
    const s = plan(row(), reading({ origin: 'Dallas, TX', expected: '2030-05-11' }));
    expect(inserted(s)).toEqual([
      ['InTransit', '2030-05-10T02:00:00.000Z'],
      ['OutForDelivery', '2030-05-10T08:00:00.000Z'],
    ]);
    const o = outcome(s, 2);
    const newest = { status: 'OutForDelivery', location: 'Denver, CO', message: 'OutForDelivery', time: '2030-05-10T08:00:00.000Z' };
    expect(o.change).toEqual({ to: 'OutForDelivery', checkpoint: newest });
    expect(o.update).toMatchObject({
      status: 'OutForDelivery',
      origin: 'Dallas, TX',
      destination: 'Denver, CO',
      expected: new Date('2030-05-11T00:00:00Z'),
      lastCheckPoint: newest,
      lastCheckedAt: NOW,
      lastCarrierDataAt: NOW,
      failures: 0,
      lastError: null,
      updatedAt: NOW,
    });
    expect(o.update).not.toHaveProperty('lastPushedAt');
    expect([o.announce, o.counted]).toEqual([false, true]);
    // Out for delivery is checked again in about 30 minutes (jitter 15%).
    expect(delayOf(o)).toBeGreaterThanOrEqual(30 * MIN * 0.85);
    expect(delayOf(o)).toBeLessThanOrEqual(30 * MIN * 1.15);
  });

  it('the same status with new checkpoints: announced, counted, no change', () => {
    const o = outcome(plan(row(), reading({ status: 'InTransit' })), 1);
    expect([o.change, o.announce, o.counted]).toEqual([null, true, true]);
    expect(o.update).toMatchObject({ status: 'InTransit', lastCarrierDataAt: NOW, updatedAt: NOW });
  });

  it('the same reading again: nothing visible, not counted, the carrier data time kept', () => {
    const t = row();
    const o = outcome(plan(t, reading({ status: 'InTransit' })), 0);
    expect([o.change, o.announce, o.counted]).toEqual([null, false, false]);
    expect(o.update).toMatchObject({ status: 'InTransit', lastCarrierDataAt: t.lastCarrierDataAt, lastCheckedAt: NOW });
    expect(o.update).not.toHaveProperty('updatedAt');
    expect(delayOf(o)).toBeGreaterThanOrEqual(2 * HOUR * 0.85);
    expect(delayOf(o)).toBeLessThanOrEqual(2 * HOUR * 1.15);
  });

  it('a status the carrier does not give (keepStatus) keeps the tracking at its own', () => {
    const o = outcome(plan(row(), reading({ keepStatus: true })), 1);
    expect([o.change, o.update!.status]).toEqual([null, 'InTransit']);
  });

  it('the same reading after the silence limit: Expired, checked no more', () => {
    const t = row({ lastCarrierDataAt: new Date(NOW.getTime() - EXPIRE_AFTER_MS - 1000) });
    const o = outcome(plan(t, reading({ status: 'InTransit', checkpoints: [cp('InTransit', '2030-05-10T02:00:00Z')] })), 0);
    expect(o.change).toMatchObject({ to: 'Expired' });
    expect(o.update).toMatchObject({ status: 'Expired', nextCheckAt: null });
    // Not silent for long enough: no expiry.
    const recent = row({ lastCarrierDataAt: new Date(NOW.getTime() - EXPIRE_AFTER_MS + HOUR) });
    expect(
      outcome(plan(recent, reading({ status: 'InTransit', checkpoints: [cp('InTransit', '2030-05-10T02:00:00Z')] })), 0).change,
    ).toBeNull();
    // New checkpoints are news, however long the silence was.
    expect(outcome(plan(t, reading({ status: 'InTransit', checkpoints: [cp('InTransit', '2030-05-10T02:00:00Z')] })), 1).change).toBeNull();
  });

  it('Delivered clears the expected date and is never checked again', () => {
    const o = outcome(
      plan(row({ expected: new Date('2030-05-11T00:00:00Z') }), reading({ status: 'Delivered', expected: '2030-05-11' })),
      1,
    );
    expect(o.update).toMatchObject({ status: 'Delivered', expected: null, nextCheckAt: null });
    expect(o.change).toMatchObject({ to: 'Delivered' });
  });

  it('an older picture than the one stored: no checkpoint, no status, only the next check (poll)', () => {
    const older = reading({ status: 'InfoReceived', checkpoints: [cp('InfoReceived', '2030-05-08T10:00:00Z')] });
    const s = plan(row(), older);
    expect(s).toHaveProperty('done');
    const o = outcome(s);
    expect(o).toMatchObject({ change: null, announce: false, counted: false });
    expect(o.update).toEqual({ lastCheckedAt: NOW, failures: 0, lastError: null, nextCheckAt: o.update!.nextCheckAt });
    expect(delayOf(o)).toBeGreaterThanOrEqual(2 * HOUR * 0.85);
    expect(delayOf(o)).toBeLessThanOrEqual(2 * HOUR * 1.15);
    // A reading with no checkpoint at all is older than any stored one.
    expect(outcome(plan(row(), reading({ checkpoints: [] }))).update).not.toHaveProperty('status');
    // Nothing stored yet: any reading is news.
    expect(outcome(plan(row({ lastCheckPoint: null }), older), 1).change).toMatchObject({ to: 'InfoReceived' });
  });

  it('an older picture after the silence limit expires the tracking', () => {
    const t = row({ lastCarrierDataAt: new Date(NOW.getTime() - EXPIRE_AFTER_MS - 1000) });
    const o = outcome(plan(t, reading({ checkpoints: [cp('InfoReceived', '2030-05-08T10:00:00Z')] })));
    expect(o.change).toEqual({ to: 'Expired', checkpoint: null });
    expect(o.update).toEqual({ status: 'Expired', nextCheckAt: null, lastCheckedAt: NOW, failures: 0, lastError: null, updatedAt: NOW });
    // Never heard from the carrier: the silence counts from the add.
    const never = row({ lastCarrierDataAt: null, createdAt: new Date(NOW.getTime() - EXPIRE_AFTER_MS - 1000) });
    expect(outcome(plan(never, reading({ checkpoints: [cp('InfoReceived', '2030-05-08T10:00:00Z')] }))).change).toMatchObject({
      to: 'Expired',
    });
    const young = row({ lastCarrierDataAt: null, createdAt: new Date(NOW.getTime() - HOUR) });
    expect(outcome(plan(young, reading({ checkpoints: [cp('InfoReceived', '2030-05-08T10:00:00Z')] }))).change).toBeNull();
  });

  it('an older pushed picture only records that the carrier pushes', () => {
    const o = outcome(plan(row(), reading({ checkpoints: [cp('InfoReceived', '2030-05-08T10:00:00Z')] }), 'push'));
    expect(o).toEqual({ update: { lastPushedAt: NOW }, change: null, announce: false, counted: false });
  });

  it('one pushed event older than the stored one joins the history and moves no status', () => {
    const event = reading({
      partial: true,
      status: 'InfoReceived',
      checkpoints: [cp('InfoReceived', '2030-05-08T10:00:00Z'), cp('InfoReceived', '2030-05-08T09:00:00Z')],
    });
    const s = plan(row(), event, 'push');
    // As given (not reversed): the events of a partial push.
    expect(inserted(s)).toEqual([
      ['InfoReceived', '2030-05-08T10:00:00.000Z'],
      ['InfoReceived', '2030-05-08T09:00:00.000Z'],
    ]);
    expect(outcome(s, 1)).toEqual({
      update: { lastPushedAt: NOW, lastCarrierDataAt: NOW, updatedAt: NOW },
      change: null,
      announce: true,
      counted: false,
    });
    expect(outcome(s, 0)).toEqual({ update: null, change: null, announce: false, counted: false });
    // The same event polled (not pushed): the last push time stays.
    const polled = plan(row({ lastPushedAt: new Date('2030-05-01T00:00:00Z') }), event, 'poll');
    expect(outcome(polled, 1).update).toEqual({ lastPushedAt: new Date('2030-05-01T00:00:00Z'), lastCarrierDataAt: NOW, updatedAt: NOW });
    // A partial event newer than the stored one is applied like a reading, without touching the estimate.
    const newer = plan(row({ expected: new Date('2030-05-12T00:00:00Z') }), reading({ partial: true, expected: '2030-05-20' }), 'push');
    expect(outcome(newer, 1).update).toMatchObject({
      status: 'OutForDelivery',
      expected: new Date('2030-05-12T00:00:00Z'),
      lastPushedAt: NOW,
    });
  });

  it('a pushed event already known tells nobody; a pushed new status is applied and checked 4 times less often', () => {
    const known = outcome(plan(row(), reading({ status: 'InTransit' }), 'push'), 0);
    expect(known).toEqual({ update: { lastPushedAt: NOW }, change: null, announce: false, counted: false });
    const news = outcome(plan(row(), reading(), 'push'), 1);
    expect(news.change).toMatchObject({ to: 'OutForDelivery' });
    expect(news.update).toMatchObject({ lastPushedAt: NOW });
    expect(news.update).not.toHaveProperty('lastCheckedAt');
    expect(delayOf(news)).toBeGreaterThanOrEqual(30 * MIN * PUSH_BACKSTOP_FACTOR * 0.85);
    // A new status pushed with no new scan (the scan was polled first) is still applied.
    expect(outcome(plan(row(), reading(), 'push'), 0).change).toMatchObject({ to: 'OutForDelivery' });
    // A known status pushed again with a new scan is still news.
    expect(outcome(plan(row(), reading({ status: 'InTransit' }), 'push'), 1).announce).toBe(true);
  });

  it('a number the carrier pushes is polled 4 times less often, when its carrier still pushes', () => {
    const pushing = {
      resources: { carriers: { client: { push: (c: string) => (c === 'ups' ? { push: {}, secret: 's' } : null) } } },
    } as unknown as AppContext;
    const polled = (courier: string, pushed: boolean) =>
      delayOf(outcome(planApply(pushing, { t: row({ courier }), pushed }, reading({ courier: courier as never }), REAL, 'poll', NOW), 1));
    expect(polled('ups', true)).toBeGreaterThanOrEqual(30 * MIN * PUSH_BACKSTOP_FACTOR * 0.85);
    expect(polled('ups', false)).toBeLessThanOrEqual(30 * MIN * 1.15);
    expect(polled('usps', true)).toBeLessThanOrEqual(30 * MIN * 1.15);
  });

  it('a reading is newer by its newest checkpoint, wherever it is in the list', () => {
    // Newest first, and its oldest scan is older than the stored one: still a newer picture.
    const s = plan(
      row(),
      reading({ checkpoints: [cp('OutForDelivery', '2030-05-10T08:00:00Z'), cp('InfoReceived', '2030-05-08T10:00:00Z')] }),
    );
    expect(outcome(s, 1).change).toMatchObject({ to: 'OutForDelivery' });
  });

  it('the same picture again (newest checkpoint at the stored time) is read as current, not older', () => {
    const same = reading({ status: 'InTransit', checkpoints: [cp('InTransit', '2030-05-09T10:00:00Z', 'Departed')] });
    const o = outcome(plan(row(), same), 0);
    expect(o.update).toMatchObject({ status: 'InTransit', lastCarrierDataAt: row().lastCarrierDataAt, lastCheckedAt: NOW });
    // Nothing stored and no checkpoint in the reading: its status still counts.
    const bare = outcome(plan(row({ status: 'Pending', lastCheckPoint: null }), reading({ status: 'InfoReceived', checkpoints: [] })), 0);
    expect(bare.change).toEqual({ to: 'InfoReceived', checkpoint: null });
  });

  it('what the user sees changing without a new scan (the status, the origin) marks the tracking updated', () => {
    const sameScan = [cp('InTransit', '2030-05-09T10:00:00Z', 'Departed')];
    const moved = outcome(plan(row(), reading({ checkpoints: sameScan })), 0);
    expect([moved.change?.to, moved.update!.updatedAt]).toEqual(['OutForDelivery', NOW]);
    const rerouted = outcome(plan(row(), reading({ status: 'InTransit', origin: 'Dallas, TX', checkpoints: sameScan })), 0);
    expect([rerouted.update!.origin, rerouted.update!.updatedAt]).toEqual(['Dallas, TX', NOW]);
    const redirected = outcome(plan(row(), reading({ status: 'InTransit', destination: 'Boulder, CO', checkpoints: sameScan })), 0);
    expect([redirected.update!.destination, redirected.update!.updatedAt]).toEqual(['Boulder, CO', NOW]);
    const promised = outcome(plan(row(), reading({ status: 'InTransit', expected: '2030-05-12', checkpoints: sameScan })), 0);
    expect([promised.update!.expected, promised.update!.updatedAt]).toEqual([new Date('2030-05-12T00:00:00Z'), NOW]);
    // A new status after a long silence is that status, not Expired.
    const silent = row({ lastCarrierDataAt: new Date(NOW.getTime() - EXPIRE_AFTER_MS - 1000) });
    expect(outcome(plan(silent, reading({ checkpoints: sameScan })), 0).change).toMatchObject({ to: 'OutForDelivery' });
  });

  it('a pushed event at the time of the stored one is not older: a new status in it is applied', () => {
    const same = reading({ partial: true, checkpoints: [cp('OutForDelivery', '2030-05-09T10:00:00Z')] });
    expect(outcome(plan(row(), same, 'push'), 1).change).toMatchObject({ to: 'OutForDelivery' });
    // A pushed call with no event in it: only that the carrier pushes.
    expect(outcome(plan(row(), reading({ partial: true, checkpoints: [] }), 'push'))).toEqual({
      update: { lastPushedAt: NOW },
      change: null,
      announce: false,
      counted: false,
    });
  });

  it('expires only after more than the silence limit: exactly the limit is not yet', () => {
    const older = reading({ checkpoints: [cp('InfoReceived', '2030-05-08T10:00:00Z')] });
    const at = (silence: number) => outcome(plan(row({ lastCarrierDataAt: new Date(NOW.getTime() - silence) }), older)).change;
    expect(at(EXPIRE_AFTER_MS)).toBeNull();
    expect(at(EXPIRE_AFTER_MS + 1)).toMatchObject({ to: 'Expired' });
  });

  it('not found: checked again later, Expired only after the silence limit', () => {
    const o = outcome(plan(row({ status: 'Pending' }), failure('not-found')));
    expect(o.update).toEqual({ lastCheckedAt: NOW, lastError: 'No record', nextCheckAt: o.update!.nextCheckAt });
    expect(delayOf(o)).toBeGreaterThanOrEqual(6 * HOUR * 0.85);
    const old = row({ status: 'Pending', lastCarrierDataAt: null, createdAt: new Date(NOW.getTime() - EXPIRE_AFTER_MS - 1000) });
    const e = outcome(plan(old, failure('not-found')));
    expect(e.change).toEqual({ to: 'Expired', checkpoint: null });
    expect(e.update).toEqual({ status: 'Expired', nextCheckAt: null, lastCheckedAt: NOW, lastError: 'No record', updatedAt: NOW });
  });

  it('a carrier error backs off with one more failure and keeps the status', () => {
    const o = outcome(plan(row({ failures: 2 }), failure('carrier-down')));
    expect(o.update).toEqual({
      lastCheckedAt: NOW,
      failures: 3,
      lastError: 'carrier-down: Service unavailable',
      nextCheckAt: o.update!.nextCheckAt,
    });
    expect(o.change).toBeNull();
    // 2^3 minutes, jitter 20%; a Retry-After longer than that wins.
    expect(delayOf(o)).toBeGreaterThanOrEqual(8 * MIN * 0.8);
    expect(delayOf(o)).toBeLessThanOrEqual(8 * MIN * 1.2);
    expect(delayOf(outcome(plan(row({ failures: 2 }), failure('carrier-down', 3 * HOUR))))).toBe(3 * HOUR);
  });
});
