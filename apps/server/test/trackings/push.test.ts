// Carrier push end to end: the app listens on loopback, the built-in sandbox takes UPS, FedEx and USPS
// subscriptions and pushes each scan, signed as the carrier signs it, to the app's receivers; the app applies it
// through the same path as a poll. Forged, stale and replayed calls are refused; a duplicate and an older event are
// no-ops for the status; the subscription loop batches to each carrier's limit and renews.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { carrierSubscriptions, checkpoints, trackingEvents, trackings } from '../../src/db/schema.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { refreshJob } from '../../src/modules/trackings/trackings.jobs.ts';
import { startRefreshScheduler } from '../../src/modules/trackings/refresh.ts';
import { listenerUrl, runSubscriptionRound, startPushSubscriptions } from '../../src/modules/trackings/push.ts';
import { carriersOf } from '../../src/modules/carriers/carriers.service.ts';
import { hmacBase64 } from '../../src/modules/carriers/push.ts';
import { registry } from '../../src/lib/metrics.ts';
import { fedexTrackResult, routeFor } from '../../src/modules/carriers/sandbox/render.ts';
import { EX, add, userIdOf } from './fixtures.ts';

async function pushCount(carrier: string, outcome: string): Promise<number> {
  const m = (await registry.getSingleMetric('shiptrail_carrier_push_events_total')!.get()).values;
  return m.filter((v) => v.labels.carrier === carrier && v.labels.outcome === outcome).reduce((s, v) => s + v.value, 0);
}

async function start(extra: Record<string, string> = {}) {
  // Pace 0.05: a journey plays in about 10 s; the sandbox pushes every 300 ms, the backstop polls every ~2.4 s.
  const env = await createTestEnv({ CARRIER_SANDBOX_PACE: '0.05', ...extra });
  const address = await env.app.listen({ port: 0, host: '127.0.0.1' });
  return { env, base: address };
}

type User = Awaited<ReturnType<typeof signUp>>;

/** One app per describe block, listening on loopback, with a signed-up account. */
function appPerBlock(set: (x: { env: TestEnv; base: string; user: User }) => void) {
  let env: TestEnv | undefined;
  beforeAll(async () => {
    const s = await start();
    env = s.env;
    set({ ...s, user: await signUp(s.env.app) });
  });
  afterAll(async () => {
    await env?.close();
  });
}

async function row(env: TestEnv, tid: string) {
  const [t] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, tid));
  return t!;
}

describe('carrier push through the sandbox', () => {
  let env: TestEnv;
  let base: string;
  let user: User;
  appPerBlock((x) => {
    ({ env, base, user } = x);
  });

  it('UPS, FedEx and USPS numbers are subscribed and their scans arrive pushed, each status recorded once', async () => {
    const nums = [EX.ups.delivered, EX.fedex.delivered, EX.usps.delivered];
    for (const tid of nums) expect((await add(env, user.apiKey, { tid })).statusCode).toBe(201);
    await startJobWorkers(env.ctx, [refreshJob]);
    await startRefreshScheduler(env.ctx);
    startPushSubscriptions(env.ctx, { base, tickMs: 150 });

    await eventually(async () => {
      const subs = await env.ctx.db.select().from(carrierSubscriptions);
      return subs.filter((s) => s.state === 'active').length === 3 ? subs : null;
    }, 20_000);
    const done = await eventually(async () => {
      const rows = await Promise.all(nums.map((t) => row(env, t)));
      return rows.every((r) => r.status === 'Delivered') ? rows : null;
    }, 60_000);
    for (const r of done) {
      // Pushed: the carrier told us, not (only) the poll.
      expect(r.lastPushedAt, r.tid).not.toBeNull();
      const events = await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, r.id));
      const statuses = events.map((e) => e.toStatus);
      expect(new Set(statuses).size, `${r.tid}: ${statuses.join(',')}`).toBe(statuses.length);
      // Poll and push read the same scans the same way: no checkpoint twice.
      const cps = await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, r.id));
      expect(new Set(cps.map((c) => `${c.time.toISOString()} ${c.message}`)).size, r.tid).toBe(cps.length);
    }
    expect(await pushCount('ups', 'applied')).toBeGreaterThan(0);
    expect(await pushCount('fedex', 'applied')).toBeGreaterThan(0);
    expect(await pushCount('usps', 'applied')).toBeGreaterThan(0);

    // Delivered everywhere: the next round unsubscribes and forgets them.
    await eventually(async () => ((await env.ctx.db.select().from(carrierSubscriptions)).length === 0 ? true : null), 20_000);
  }, 90_000);

  it('refuses forged and stale calls of each carrier (401, counted) and answers a replay without applying it', async () => {
    const ups = (cred: string) =>
      fetch(listenerUrl(base, 'ups'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'UPSPubSubTrackingService', credential: cred },
        body: JSON.stringify({
          trackingNumber: EX.ups.exception,
          gmtActivityDate: '20261120',
          gmtActivityTime: '101500',
          activityStatus: { type: 'D', code: 'KB', description: 'Delivered', descriptionCode: '011' },
        }),
      });
    const forgedBefore = await pushCount('ups', 'forged');
    const forged = await ups('not-the-credential');
    expect(forged.status, await forged.text()).toBe(401);
    expect(await pushCount('ups', 'forged')).toBe(forgedBefore + 1);

    const fedexBody = JSON.stringify({ output: { completeTrackResults: [{ trackingNumber: EX.fedex.notFound, trackResults: [] }] } });
    const fedex = (sig: string) =>
      fetch(listenerUrl(base, 'fedex'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'fdx-signature': sig },
        body: fedexBody,
      });
    expect((await fedex(hmacBase64('wrong-token-wrong-token', fedexBody))).status).toBe(401);
    // Correctly signed, sent twice: the second is a replay.
    const fedexToken = carriersOf(env.ctx).push('fedex')!.secret;
    expect(await (await fedex(hmacBase64(fedexToken, fedexBody))).json()).toMatchObject({ ok: true, applied: 0 });
    expect(await (await fedex(hmacBase64(fedexToken, fedexBody))).json()).toMatchObject({ ok: true, ignored: 'replay' });
    // UPS: the right credential without the UPS user agent is not UPS.
    const noAgent = await fetch(listenerUrl(base, 'ups'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', credential: carriersOf(env.ctx).push('ups')!.secret },
      body: '{}',
    });
    expect(noAgent.status).toBe(401);

    const secret = carriersOf(env.ctx).push('usps')!.secret;
    const usps = (timestamp: string) => {
      const payload = JSON.stringify({ trackingNumber: EX.usps.notFound, trackingEvents: [] });
      return fetch(listenerUrl(base, 'usps'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hmac': hmacBase64(secret, timestamp + payload) },
        body: JSON.stringify({ subscriptionId: 'x', timestamp, payload }),
      });
    };
    // Signed with another secret, or the payload changed after signing: forged.
    const forgedUsps = async (sign: (ts: string, payload: string) => string, payload: string) => {
      const timestamp = new Date().toISOString();
      return fetch(listenerUrl(base, 'usps'), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hmac': sign(timestamp, JSON.stringify({ trackingNumber: EX.usps.notFound, trackingEvents: [] })),
        },
        body: JSON.stringify({ subscriptionId: 'x', timestamp, payload }),
      });
    };
    const uspsForged = await pushCount('usps', 'forged');
    const okPayload = JSON.stringify({ trackingNumber: EX.usps.notFound, trackingEvents: [] });
    expect((await forgedUsps((ts, p) => hmacBase64('another-secret-another-secret-32', ts + p), okPayload)).status).toBe(401);
    expect((await forgedUsps((ts, p) => hmacBase64(secret, ts + p), okPayload.replace('[]', '[{}]'))).status).toBe(401);
    expect(await pushCount('usps', 'forged')).toBe(uspsForged + 2);
    const staleBefore = await pushCount('usps', 'stale');
    expect((await usps(new Date(Date.now() - 10 * 60_000).toISOString())).status).toBe(401);
    expect(await pushCount('usps', 'stale')).toBe(staleBefore + 1);

    // A correctly signed call sent twice: the second is a replay.
    const fresh = new Date().toISOString();
    const payload = JSON.stringify({ trackingNumber: EX.usps.notFound, trackingEvents: [] });
    const call = () =>
      fetch(listenerUrl(base, 'usps'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hmac': hmacBase64(secret, fresh + payload) },
        body: JSON.stringify({ subscriptionId: 'x', timestamp: fresh, payload }),
      });
    expect((await call()).status).toBe(200);
    const again = await call();
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ ignored: 'replay' });

    // A carrier we do not take pushes from.
    expect((await fetch(listenerUrl(base, 'canadapost' as 'ups'), { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('a duplicate UPS event changes nothing; an older one joins the history without moving the status back', async () => {
    // A number the sandbox never finds: polls add nothing, so every checkpoint here is one the test pushed.
    const tid = EX.ups.notFound;
    expect((await add(env, user.apiKey, { tid })).statusCode).toBe(201);
    const t0 = await row(env, tid);
    const cred = carriersOf(env.ctx).push('ups')!.secret;
    const send = (ev: Record<string, unknown>) =>
      fetch(listenerUrl(base, 'ups'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'UPSPubSubTrackingService', credential: cred },
        body: JSON.stringify(ev),
      });
    const event = (at: Date, kind: 'ofd' | 'arrive') => {
      const d = at.toISOString();
      return {
        trackingNumber: tid,
        gmtActivityDate: d.slice(0, 10).replace(/-/g, ''),
        gmtActivityTime: d.slice(11, 19).replace(/:/g, ''),
        activityLocation: { city: 'DALLAS', stateProvince: 'TX', postalCode: '75201', country: 'US' },
        activityStatus:
          kind === 'ofd'
            ? { type: 'I', code: 'OT', description: 'Out For Delivery Today', descriptionCode: '021' }
            : { type: 'I', code: 'AR', description: 'Arrived at Facility', descriptionCode: '005' },
      };
    };
    const future = new Date(Date.now() + 3600_000);
    expect((await send(event(future, 'ofd'))).status).toBe(200);
    const t1 = await row(env, tid);
    expect(t1.status).toBe('OutForDelivery');
    const n1 = (await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, t0.id))).length;
    const e1 = (await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t0.id))).length;

    // The same event with its fields in another order (not a byte-identical replay): no new checkpoint, no event.
    const same = event(future, 'ofd');
    const reordered = Object.fromEntries(Object.entries(same).reverse());
    const dup = await send(reordered);
    expect(await dup.json()).toMatchObject({ ok: true, applied: 0 });
    expect((await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, t0.id))).length).toBe(n1);

    // A newer informational scan (type U): it joins the history, the status stays what it was.
    const info = {
      ...event(new Date(future.getTime() + 60_000), 'ofd'),
      activityStatus: { type: 'U', code: 'ZZ', description: 'Your package is at the clearing agency', descriptionCode: '' },
    };
    expect((await send(info)).status).toBe(200);
    expect((await row(env, tid)).status).toBe('OutForDelivery');
    expect((await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, t0.id))).length).toBe(n1 + 1);
    expect((await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t0.id))).length).toBe(e1);

    // An older scan arriving late: kept in the history, the status stays Out For Delivery, nobody is told.
    expect((await send(event(new Date(future.getTime() - 7200_000), 'arrive'))).status).toBe(200);
    const t2 = await row(env, tid);
    expect(t2.status).toBe('OutForDelivery');
    expect((await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, t0.id))).length).toBe(n1 + 2);
    expect((await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t0.id))).length).toBe(e1);
  });
});

describe('FedEx pictures out of order', () => {
  let env: TestEnv;
  let base: string;
  let user: User;
  appPerBlock((x) => {
    ({ env, base, user } = x);
  });

  it('a signed older picture arriving after a newer one moves nothing back and tells nobody; the same picture again is a no-op', async () => {
    // A number the sandbox never finds, so only the pictures the test pushes move it.
    const tid = EX.fedex.notFound;
    expect((await add(env, user.apiKey, { tid })).statusCode).toBe(201);
    const id = (await row(env, tid)).id;
    const token = carriersOf(env.ctx).push('fedex')!.secret;
    const t0 = Date.now() - 3600_000;
    const picture = (kinds: Array<'label' | 'pickup' | 'arrive' | 'ofd'>) =>
      JSON.stringify({
        output: {
          completeTrackResults: [
            fedexTrackResult(
              tid,
              kinds.map((kind, i) => ({ kind, time: t0 + i * 600_000 })),
              routeFor(7, false),
              null,
            ),
          ],
        },
      });
    const send = (body: string, pad = '') =>
      fetch(listenerUrl(base, 'fedex'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'fdx-signature': hmacBase64(token, body + pad) },
        body: body + pad,
      });

    expect((await send(picture(['label', 'pickup', 'arrive', 'ofd']))).status).toBe(200);
    expect((await row(env, tid)).status).toBe('OutForDelivery');
    const events = async () => (await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, id))).length;
    const cps = async () => (await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, id))).length;
    const [e1, c1] = [await events(), await cps()];
    expect(c1).toBe(4);

    const older = await send(picture(['label', 'pickup']));
    expect(await older.json()).toMatchObject({ ok: true, applied: 0 });
    expect((await row(env, tid)).status).toBe('OutForDelivery');
    // The same newest picture again, not byte-identical (a trailing space): no checkpoint, no event.
    const again = await send(picture(['label', 'pickup', 'arrive', 'ofd']), ' ');
    expect(await again.json()).toMatchObject({ ok: true, applied: 0 });
    expect([await events(), await cps()]).toEqual([e1, c1]);
  });
});

describe('the subscription loop', () => {
  // Nothing moves on its own here: rounds are run by the test.
  let env: TestEnv;
  let base: string;
  let user: User;
  appPerBlock((x) => {
    ({ env, base, user } = x);
  });

  it('subscribes in batches of each carrier limit (UPS 100, USPS 1), refuses numbers Track Alert does not take, and renews before expiry', async () => {
    const batches: Array<{ courier: string; size: number }> = [];
    const client = carriersOf(env.ctx);
    const real = client.push.bind(client);
    client.push = (courier) => {
      const p = real(courier);
      if (!p) return p;
      return {
        secret: p.secret,
        push: {
          ...p.push,
          eligible: p.push.eligible,
          subscribe: (tids, url, secret) => {
            batches.push({ courier, size: tids.length });
            return p.push.subscribe(tids, url, secret);
          },
        },
      };
    };
    // 230 UPS numbers straight into the table (adding them through the API would cost 230 trackings' worth of checks).
    const userId = await userIdOf(env, user.email);
    const upsTids = Array.from({ length: 230 }, (_, i) => `1Z999AA1${1_000_000_000 + i}`);
    const now = new Date();
    await env.ctx.db.insert(trackings).values([
      ...upsTids.map((tid) => ({ userId, tid, courier: 'ups', nextCheckAt: new Date(now.getTime() + 3600_000) })),
      // A UPS number that is not 1Z/1R: Track Alert does not take it.
      { userId, tid: 'MI123456789012345', courier: 'ups', nextCheckAt: new Date(now.getTime() + 3600_000) },
      { userId, tid: EX.usps.delivered, courier: 'usps', nextCheckAt: new Date(now.getTime() + 3600_000) },
      { userId, tid: EX.usps.notFound, courier: 'usps', nextCheckAt: new Date(now.getTime() + 3600_000) },
    ]);

    // Two workers' rounds at once: each number is claimed by one of them and subscribed once.
    const both = await Promise.all([runSubscriptionRound(env.ctx, base), runSubscriptionRound(env.ctx, base)]);
    expect(both.map((b) => b.failed)).toEqual([0, 0]);
    expect(both[0].subscribed + both[1].subscribed).toBe(230 + 2);
    const upsSizes = batches.filter((b) => b.courier === 'ups').map((b) => b.size);
    expect(upsSizes.reduce((a, b) => a + b, 0)).toBe(230);
    expect(Math.max(...upsSizes)).toBeLessThanOrEqual(100);
    batches.length = 0;
    await env.ctx.db.delete(carrierSubscriptions);
    const stats = await runSubscriptionRound(env.ctx, base);
    expect(stats.failed).toBe(0);
    expect(batches.filter((b) => b.courier === 'ups').map((b) => b.size)).toEqual([100, 100, 30]);
    expect(batches.filter((b) => b.courier === 'usps').map((b) => b.size)).toEqual([1, 1]);
    const [mi] = await env.ctx.db
      .select()
      .from(carrierSubscriptions)
      .where(and(eq(carrierSubscriptions.courier, 'ups'), eq(carrierSubscriptions.tid, 'MI123456789012345')));
    expect(mi?.state).toBe('refused');
    const [one] = await env.ctx.db.select().from(carrierSubscriptions).where(eq(carrierSubscriptions.tid, upsTids[0]!));
    expect(one?.state).toBe('active');

    // Nothing due: a second round subscribes nothing.
    batches.length = 0;
    await runSubscriptionRound(env.ctx, base);
    expect(batches).toEqual([]);

    // The USPS number watched for the renewal is one whose journey never ends at the sandbox (not found there): a
    // delivered journey ends its subscription once all of it is sent (carriers stop after delivery), which at this
    // pace happens within seconds, so the id a renewal got back depended on the machine's speed.
    const [uspsBefore] = await env.ctx.db.select().from(carrierSubscriptions).where(eq(carrierSubscriptions.tid, EX.usps.notFound));
    expect(uspsBefore?.subscriptionId).toBeTruthy();
    // Past the renewal time (half the lifetime), every active subscription is made again, before it lapses. The
    // round made the USPS one after the UPS ones (seconds later on a busy machine): past the later of the two.
    const later = new Date(Math.max(one!.renewAt.getTime(), uspsBefore!.renewAt.getTime()) + 1000);
    expect(later.getTime()).toBeLessThan(Math.min(one!.expiresAt.getTime(), uspsBefore!.expiresAt.getTime()));
    env.ctx.now = () => later;
    await runSubscriptionRound(env.ctx, base);
    expect(batches.filter((b) => b.courier === 'ups').map((b) => b.size)).toEqual([100, 100, 30]);
    const [renewed] = await env.ctx.db.select().from(carrierSubscriptions).where(eq(carrierSubscriptions.tid, upsTids[0]!));
    expect(renewed!.expiresAt.getTime()).toBeGreaterThan(one!.expiresAt.getTime());
    // USPS refuses a second subscription of a number as a duplicate and names the first: it goes on, same id.
    const [uspsAfter] = await env.ctx.db.select().from(carrierSubscriptions).where(eq(carrierSubscriptions.tid, EX.usps.notFound));
    expect(uspsAfter).toMatchObject({ state: 'active', subscriptionId: uspsBefore!.subscriptionId });
    expect(uspsAfter!.expiresAt.getTime()).toBeGreaterThan(uspsBefore!.expiresAt.getTime());
    env.ctx.now = () => new Date();
  });

  it('the carriers refuse more than 100 UPS numbers, or 1,000 FedEx numbers, in one request', async () => {
    const p = carriersOf(env.ctx).push('ups')!;
    const tids = Array.from({ length: 101 }, (_, i) => `1Z999AA1${2_000_000_000 + i}`);
    await expect(p.push.subscribe(tids, listenerUrl(base, 'ups'), p.secret)).rejects.toThrow(/refused the subscription/);
    const f = carriersOf(env.ctx).push('fedex')!;
    const fedex = Array.from({ length: 1001 }, (_, i) => String(600_000_000_000 + i));
    await expect(f.push.subscribe(fedex, listenerUrl(base, 'fedex'), f.secret)).rejects.toThrow(/refused the subscription/);
    expect((await f.push.subscribe(fedex.slice(0, 1000), listenerUrl(base, 'fedex'), f.secret)).subscribed).toHaveLength(1000);
  });
});

describe('push lost or off: polling delivers everything', () => {
  for (const [label, extra] of [
    // The sandbox's pace is these tests' clock (nothing here races a push against a poll): at 0.01 a journey plays in
    // about 2.5 s, polled every ~0.12 s (0.5 s for a pushed number); at 0.02 it was 5 s.
    ['the sandbox loses every pushed event', { CARRIER_SANDBOX_PUSH_DROP: '1', CARRIER_SANDBOX_PACE: '0.01' }],
    ['push is switched off', { CARRIER_SANDBOX_PUSH: 'off', CARRIER_SANDBOX_PACE: '0.01' }],
    // A wrong public address: nothing is subscribed (no pushes lost to it, no slower polls).
    ['the public address does not answer as this deployment', { CARRIER_SANDBOX_PACE: '0.01', WRONG_BASE: 'http://127.0.0.1:9' }],
  ] as const) {
    it(
      label,
      async () => {
        const { WRONG_BASE, ...config } = extra as Record<string, string>;
        const started = await start(config);
        const env = started.env;
        const base = WRONG_BASE ?? started.base;
        try {
          const user = await signUp(env.app);
          const nums = [EX.ups.delivered, EX.fedex.delivered, EX.usps.delivered];
          for (const tid of nums) expect((await add(env, user.apiKey, { tid })).statusCode).toBe(201);
          await startJobWorkers(env.ctx, [refreshJob]);
          await startRefreshScheduler(env.ctx);
          startPushSubscriptions(env.ctx, { base, tickMs: 150 });
          const done = await eventually(async () => {
            const rows = await Promise.all(nums.map((t) => row(env, t)));
            return rows.every((r) => r.status === 'Delivered') ? rows : null;
          }, 90_000);
          for (const r of done) expect(r.lastPushedAt, r.tid).toBeNull();
          const subs = await env.ctx.db.select().from(carrierSubscriptions);
          if ('CARRIER_SANDBOX_PUSH' in extra || 'WRONG_BASE' in extra) expect(subs).toEqual([]);
        } finally {
          await env.close();
        }
      },
      120_000,
    );
  }
});
