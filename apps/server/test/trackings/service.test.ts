// The service a parcel travels by (issue 32, decision 158): on the tracking (from the number at the add, then from
// the carrier's answers, never blanked by an answer without one), in the delivery_days rollup, and in the transit
// figures per carrier and service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/client.ts';
import * as repo from '../../src/modules/trackings/trackings.repository.ts';
import { applyResult, modeOf, runDueRefreshes } from '../../src/modules/trackings/refresh.ts';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { ACROSS_MIGRATION_TIMEOUT_MS, acrossMigration } from '../db/across-migration.ts';
import { createDeliveryPredictions } from '../../src/edd/index.ts';
import { deliveredHistory } from '../../src/modules/trackings/trackings.service.ts';
import { EX, add, list, userIdOf } from './fixtures.ts';
import { DAY, HOUR, iso, newTracking, scan } from '../rows-by-sql.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

describe('the service of a tracking', () => {
  it('comes from the number at the add (a UPS 1Z service code), then from the carrier, in the view and the list', async () => {
    const a = await signUp(env.app);
    const added = await add(env, a.session, { tid: EX.ups.delivered });
    expect(added.body.code).toBe(201);
    // 1Z5R8939 03 …: service code 03 (tracking_number_data's UPS lookup).
    expect(added.body.payload.service).toBe('UPS United States Ground');
    const usps = await add(env, a.session, { tid: EX.usps.delivered });
    expect(usps.body.payload.service).toBeNull();
    await runDueRefreshes(env.ctx);
    const rows = (await list(env, a.session)).body.payload as Array<{ tid: string; service: string | null }>;
    const by = Object.fromEntries(rows.map((r) => [r.tid, r.service]));
    // The sandbox names the service in each carrier's own field; the adapters read it (HTML stripped for USPS).
    expect(['UPS Ground', 'UPS 2nd Day Air']).toContain(by[EX.ups.delivered]);
    expect(['USPS Ground Advantage', 'Priority Mail']).toContain(by[EX.usps.delivered]);
    const one = await call(env.app, 'GET', `/v1/trackings/get/${EX.ups.delivered}`, { token: a.session });
    if (one.body.code === 200) expect(one.body.payload.service).toBe(by[EX.ups.delivered]);
  });

  it('an answer without a service (a pushed event) keeps the known one; a new name replaces it', async () => {
    const a = await signUp(env.app);
    await add(env, a.session, { tid: EX.fedex.delivered });
    const ua = await userIdOf(env, a.email);
    const [t] = rowsOf<{ id: string }>(await env.ctx.db.execute(sql`select id from trackings where user_id = ${ua}::uuid`));
    const result = (service?: string) => ({
      ok: true as const,
      tid: EX.fedex.delivered,
      courier: 'fedex' as const,
      status: 'InTransit' as const,
      checkpoints: [{ status: 'InTransit' as const, location: null, message: 'Departed', time: iso(Date.now() - HOUR) }],
      expected: null,
      origin: null,
      destination: null,
      ...(service === undefined ? {} : { service }),
    });
    const serviceOf = async () =>
      rowsOf<{ service: string | null }>(await env.ctx.db.execute(sql`select service from trackings where id = ${t!.id}::uuid`))[0]!
        .service;
    await applyResult(env.ctx, t!.id, result('FedEx 2Day'), modeOf(env.ctx, 'fedex'), 'poll');
    expect(await serviceOf()).toBe('FedEx 2Day');
    await applyResult(env.ctx, t!.id, result(), modeOf(env.ctx, 'fedex'), 'push');
    expect(await serviceOf()).toBe('FedEx 2Day');
    await applyResult(env.ctx, t!.id, result('FedEx Ground'), modeOf(env.ctx, 'fedex'), 'poll');
    expect(await serviceOf()).toBe('FedEx Ground');
  });
});

async function newDelivered(userId: string, tid: string, service: string | null, start: number, transit: number, courier = 'ups') {
  const lane = { origin: 'Memphis, TN 38118', destination: 'Austin, TX 78701' };
  const id = await newTracking(env, userId, tid, { status: 'InTransit', createdAt: start, courier, service, ...lane });
  await repo.insertCheckpoints(env.ctx.db, [scan(id, 'InfoReceived', start), scan(id, 'Delivered', start + transit)]);
  return id;
}

/** delivery_days as kept by the triggers, and as counted again from trackings. */
async function keptAndRecount(userId: string) {
  const kept = await env.ctx.db.execute(sql`
    select day::text, courier, service, transit_hour, delivered from delivery_days where user_id = ${userId}::uuid order by 1, 2, 3, 4`);
  const recount = await env.ctx.db.execute(sql`
    select (delivered_at at time zone 'UTC')::date::text as day, courier, coalesce(service, '') as service,
      coalesce(floor(date_part('epoch', delivered_at - first_scan_at) / 3600)::int, -1) as transit_hour, count(*)::int as delivered
    from trackings where user_id = ${userId}::uuid and status = 'Delivered' and delivered_at is not null
    group by 1, 2, 3, 4 order by 1, 2, 3, 4`);
  return { kept: rowsOf<Record<string, unknown>>(kept), recount: rowsOf<Record<string, unknown>>(recount) };
}

describe('the delivery date by service (decision 166)', () => {
  it('the predictor learns each parcel with its service: two services on one lane get their own dates', async () => {
    const a = await signUp(env.app);
    const userId = await userIdOf(env, a.email);
    // 20 parcels each, all shipped Tuesday 2026-09-15 from Chicago to Dallas: Ground 5 business days, Next Day Air 1.
    await env.ctx.db.execute(sql`
      with t as (
        insert into trackings (user_id, tid, courier, service, status, origin, destination, next_check_at, created_at, updated_at)
        select ${userId}::uuid, 'SVC' || s.days || '-' || k, 'ups', s.name, 'Delivered', 'CHICAGO, IL, 60607, US', 'DALLAS, TX, 75201, US',
          null, now(), now()
        from generate_series(1, 20) k, (values ('UPS Ground', 7), ('UPS Next Day Air', 1)) s(name, days)
        returning id, tid
      )
      insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
      select id, c.status, null, c.status, c.time, c.status || tid from t,
        lateral (values ('InfoReceived', timestamptz '2026-09-15 15:00:00+00'),
                        ('Delivered', timestamptz '2026-09-15 18:00:00+00' + (split_part(substr(tid, 4), '-', 1) || ' days')::interval)) c(status, time)`);
    const history = await deliveredHistory(env.ctx);
    expect(history.filter((h) => h.service === 'UPS Next Day Air')).toHaveLength(20);
    const predictions = createDeliveryPredictions(() => deliveredHistory(env.ctx));
    await predictions.ready();
    const shipped = { carrier: 'ups', originPostal: '60607', destinationPostal: '75201', shippedAt: '2026-09-29T15:00:00Z' };
    const now = new Date('2026-09-29T16:00:00Z');
    expect(predictions.predict({ ...shipped, service: 'UPS Next Day Air' }, now)?.date).toBe('2026-09-30');
    expect(predictions.predict({ ...shipped, service: 'UPS Ground' }, now)?.date).toBe('2026-10-06');
  });
});

describe('transit by carrier service', () => {
  it('the rollup counts per service (unknown as empty) and follows a service named later', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const t0 = Date.parse('2026-10-05T08:00:00Z');
    await newDelivered(ua, 'SV1', 'UPS Ground', t0, 50 * HOUR);
    await newDelivered(ua, 'SV2', 'UPS Next Day Air', t0, 20 * HOUR);
    const later = await newDelivered(ua, 'SV3', null, t0, 20 * HOUR);
    await env.ctx.db.execute(sql`update trackings set status = 'Delivered' where user_id = ${ua}::uuid`);
    let r = await keptAndRecount(ua);
    expect(r.kept).toEqual(r.recount);
    expect(r.kept.map((x) => [x.service, x.transit_hour, x.delivered])).toEqual([
      ['', 20, 1],
      ['UPS Next Day Air', 20, 1],
      ['UPS Ground', 50, 1],
    ]);
    await env.ctx.db.execute(sql`update trackings set service = 'UPS Next Day Air' where id = ${later}::uuid`);
    r = await keptAndRecount(ua);
    expect(r.kept).toEqual(r.recount);
    expect(r.kept.map((x) => [x.service, x.delivered])).toEqual([
      ['UPS Next Day Air', 2],
      ['UPS Ground', 1],
    ]);
  });

  it('the figures per carrier and service: the same from the rollup as from the parcels, on the API and in the CSV', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const now = Date.now();
    const services = ['UPS Ground', 'UPS 2nd Day Air', null];
    for (let i = 0; i < 30; i++) {
      const deliveredAt = now - (i % 12) * DAY - (i % 7) * HOUR - 1_000 * i;
      const service = services[i % 3]!;
      const transit = (service === 'UPS 2nd Day Air' ? 40 : 90) * HOUR + ((i * 37) % 20) * HOUR;
      await newDelivered(ua, `SF${i}`, service, deliveredAt - transit, transit, i % 5 === 0 ? 'fedex' : 'ups');
    }
    await env.ctx.db.execute(sql`update trackings set status = 'Delivered' where user_id = ${ua}::uuid`);
    const from = new Date(now - 20.4 * DAY);
    const to = new Date(now + HOUR);
    const exact = await repo.exactPerformanceByCarrier(env.ctx.db, ua, from, to);
    const rolled = await repo.performanceByCarrier(env.ctx.db, ua, from, to, 0);
    const strip = (rows: repo.TransitRow[]) => rows.map(({ p50Seconds: _a, p90Seconds: _b, ...rest }) => rest);
    expect(strip(rolled)).toEqual(strip(exact));
    const byService = exact.filter((x) => x.service !== null);
    expect(byService.map((x) => [x.courier, x.service]).sort()).toEqual([
      ['fedex', ''],
      ['fedex', 'UPS 2nd Day Air'],
      ['fedex', 'UPS Ground'],
      ['ups', ''],
      ['ups', 'UPS 2nd Day Air'],
      ['ups', 'UPS Ground'],
    ]);
    // Each carrier's services add up to the carrier.
    for (const c of ['ups', 'fedex']) {
      const own = exact.find((x) => x.courier === c && x.origin === null && x.service === null)!;
      expect(byService.filter((x) => x.courier === c).reduce((n, x) => n + x.delivered, 0)).toBe(own.delivered);
    }
    const res = await call(env.app, 'GET', '/v1/trackings/performance?days=30', { token: a.session });
    expect(res.body.code).toBe(200);
    const p = res.body.payload as { byService: Array<{ courier: string; service: string | null; delivered: number; medianDays: number }> };
    const ground = p.byService.find((s) => s.courier === 'ups' && s.service === 'UPS Ground')!;
    const twoDay = p.byService.find((s) => s.courier === 'ups' && s.service === 'UPS 2nd Day Air')!;
    expect(twoDay.medianDays).toBeLessThan(ground.medianDays);
    expect(p.byService.some((s) => s.service === null)).toBe(true);
    const csv = await env.app.inject({
      method: 'GET',
      url: '/v1/trackings/performance?days=30&format=csv',
      headers: { 'sm-api-token': a.session },
    });
    expect(csv.body).toMatch(/\r\nservice,UPS UPS Ground,\d+,,,[\d.]+,[\d.]+,/);
    expect(csv.body).toContain('service,UPS service not known,');
  });
});

describe('migration 0030 on a database with delivered parcels', () => {
  it(
    'keeps their rollup rows, with an empty service',
    async () => {
      const before = sql`
        with u as (
          insert into users (uid, email, api_key_hash, api_key_enc, webhook_secret, referral_code, version, user_type)
          values ('sv30', 'service-0030@example.com', 'x', 'x', 'x', 'sv30', '1', 'company') returning id
        ), t as (
          insert into trackings (user_id, tid, courier, status, created_at)
          select u.id, 'M30', 'ups', 'Delivered', '2026-09-01T10:00:00Z' from u returning id
        )
        insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
        select t.id, s.status, null, s.status, s.time::timestamptz, s.status || s.time from t join (values
          ('InfoReceived', '2026-09-01T10:00:00Z'), ('Delivered', '2026-09-03T10:00:00Z')) s(status, time) on true`;
      const rows = await acrossMigration<{ service: string; transit_hour: number; delivered: number }>(
        '0028_courier_days_triggers',
        before,
        sql`select service, transit_hour, delivered from delivery_days`,
      );
      expect(rows).toEqual([{ service: '', transit_hour: 48, delivered: 1 }]);
    },
    ACROSS_MIGRATION_TIMEOUT_MS,
  );
});
