// Delivery performance, the figures of issue 32's analytics (decisions 133, 134): the period by dates in the
// account's time zone, the transit histogram by carrier and lane, exceptions and their causes, stalled parcels,
// the company's own couriers, and the CSV, each with exact numbers on small data of its own, through the API on a
// real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, call, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from './fixtures.ts';
import { DAY, iso, newShipment, newTracking, type ShipmentScan, type TrackingRow } from '../rows-by-sql.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const dayOf = (ms: number) => iso(ms).slice(0, 10);
/** Noon UTC `n` days ago. */
const noonAgo = (n: number) => Date.parse(`${dayOf(Date.now() - n * DAY)}T12:00:00Z`);

/** A tracking with its scans: [status, time ms, message?]. */
async function tracking(
  userId: string,
  tid: string,
  o: Omit<TrackingRow, 'service' | 'promisedBy'> & { scans: Array<[string, number, string?]> },
) {
  const id = await newTracking(env, userId, tid, o);
  for (const [i, [status, time, message]] of o.scans.entries()) {
    await env.ctx.db.execute(sql`
      insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
      values (${id}::uuid, ${status}, null, ${message ?? status}, ${iso(time)}::timestamptz, ${`${tid}-${i}`})`);
  }
}

/** Delivered `transitDays` (fractional allowed) after its first scan, delivered at `deliveredAt`. */
const delivered = (deliveredAt: number, transitDays: number, failed = false): Array<[string, number]> => [
  ['InfoReceived', deliveredAt - transitDays * DAY],
  ...(failed ? ([['FailAttempt', deliveredAt - 3_600_000]] as Array<[string, number]>) : []),
  ['Delivered', deliveredAt],
];

describe('GET /v1/trackings/performance: the figures', () => {
  it('transit histogram per carrier and per lane (region to region), the busiest lanes first', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const at = noonAgo(2);
    // UPS: 0.5, 1.2, 1.9, 3, 12 days; Memphis TN -> Austin TX three times, Toronto ON -> Austin TX once, one unknown place.
    await tracking(ua, 'L1', { status: 'Delivered', origin: 'Memphis, TN', destination: 'Austin, TX 78701', scans: delivered(at, 0.5) });
    await tracking(ua, 'L2', { status: 'Delivered', origin: 'Memphis, TN 38118', destination: 'Austin, TX', scans: delivered(at, 1.2) });
    await tracking(ua, 'L3', { status: 'Delivered', origin: 'Memphis, tn', destination: 'Austin, TX', scans: delivered(at, 1.9, true) });
    await tracking(ua, 'L4', {
      status: 'Delivered',
      origin: 'Toronto, ON M5V 2T6, CA',
      destination: 'Austin, TX, US',
      scans: delivered(at, 3),
    });
    await tracking(ua, 'L5', { status: 'Delivered', origin: '', destination: 'Austin, TX', scans: delivered(at, 12) });
    await tracking(ua, 'F1', {
      courier: 'fedex',
      status: 'Delivered',
      origin: 'Memphis, TN',
      destination: 'Reno, NV',
      scans: delivered(at, 2),
    });

    const r = await call(env.app, 'GET', '/v1/trackings/performance?days=7', { token: a.apiKey });
    expect(r.statusCode).toBe(200);
    const p = r.body.payload;
    expect(p.delivered).toBe(6);
    expect(p.firstAttempt).toEqual({ count: 5, of: 6, rate: 0.833 });
    expect(p.byCarrier).toEqual([
      {
        courier: 'fedex',
        delivered: 1,
        medianDays: 2,
        p90Days: 2,
        histogram: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        onTime: { count: 0, of: 0, rate: null },
        firstAttempt: { count: 1, of: 1, rate: 1 },
      },
      {
        courier: 'ups',
        delivered: 5,
        medianDays: 1.9,
        p90Days: 8.4,
        histogram: [1, 2, 0, 1, 0, 0, 0, 0, 0, 0, 1],
        onTime: { count: 0, of: 0, rate: null },
        firstAttempt: { count: 4, of: 5, rate: 0.8 },
      },
    ]);
    expect(p.lanes).toEqual([
      {
        courier: 'ups',
        origin: 'TN',
        destination: 'TX',
        delivered: 3,
        medianDays: 1.2,
        p90Days: 1.8,
        histogram: [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      },
      {
        courier: 'fedex',
        origin: 'TN',
        destination: 'NV',
        delivered: 1,
        medianDays: 2,
        p90Days: 2,
        histogram: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
      },
      {
        courier: 'ups',
        origin: 'ON',
        destination: 'TX',
        delivered: 1,
        medianDays: 3,
        p90Days: 3,
        histogram: [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
      },
    ]);
  });

  it('the period: from/to days in the account time zone (both included), days still works, to alone ends there', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    await env.ctx.db.execute(sql`update users set time_zone = 'America/New_York' where id = ${ua}::uuid`);
    // 03:00 UTC on day D is the evening of D-1 in New York.
    const d = dayOf(Date.now() - 20 * DAY);
    const dMinus1 = dayOf(Date.parse(`${d}T00:00:00Z`) - DAY);
    const lateEvening = Date.parse(`${d}T03:00:00Z`);
    await tracking(ua, 'P1', { status: 'Delivered', scans: delivered(lateEvening, 1) });
    await tracking(ua, 'P2', { status: 'Delivered', scans: delivered(Date.parse(`${d}T15:00:00Z`), 2) });
    await tracking(ua, 'P3', { status: 'Delivered', scans: delivered(noonAgo(1), 3) });

    const get = async (q: string) => (await call(env.app, 'GET', `/v1/trackings/performance?${q}`, { token: a.apiKey })).body.payload;
    const first = await get(`from=${dMinus1}&to=${dMinus1}`);
    expect([first.from, first.to, first.days, first.delivered]).toEqual([dMinus1, dMinus1, 1, 1]);
    expect(first.byCarrier[0].histogram[1]).toBe(1);
    const second = await get(`from=${d}&to=${d}`);
    expect([second.days, second.delivered, second.byCarrier[0].histogram[2]]).toEqual([1, 1, 1]);
    expect((await get(`from=${dMinus1}&to=${d}`)).delivered).toBe(2);
    expect((await get('days=7')).delivered).toBe(1);
    expect((await get('days=30')).delivered).toBe(3);
    const ending = await get(`to=${d}&days=2`);
    expect([ending.from, ending.to, ending.delivered]).toEqual([dMinus1, d, 2]);
    expect((await get(`from=${d}`)).delivered).toBe(2);
  });

  it('exceptions in the period by the carrier’s words, the 10 most frequent, with the total and the parcels', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const t = noonAgo(3);
    const scans: Array<[string, number, string?]> = [['InTransit', t - DAY]];
    // 12 causes: "Address incorrect" 3 times on two parcels, "Damaged" twice, 10 others once; one too old.
    await tracking(ua, 'E1', {
      status: 'Exception',
      scans: [
        ...scans,
        ['Exception', t, 'Address incorrect'],
        ['Exception', t + 1000, ' Address incorrect '],
        ['Exception', t + 2000, 'Damaged'],
      ],
    });
    await tracking(ua, 'E2', {
      status: 'Exception',
      scans: [
        ['Exception', t, 'Address incorrect'],
        ['Exception', t + 1000, 'Damaged'],
        ...Array.from({ length: 10 }, (_, i) => ['Exception', t + 2000 + i, `Other ${i}`] as [string, number, string]),
      ],
    });
    await tracking(ua, 'E3', { status: 'Exception', scans: [['Exception', noonAgo(100), 'Address incorrect']] });
    const p = (await call(env.app, 'GET', '/v1/trackings/performance?days=30', { token: a.apiKey })).body.payload;
    expect(p.exceptions.count).toBe(15);
    expect(p.exceptions.parcels).toBe(2);
    expect(p.exceptions.causes).toHaveLength(10);
    expect(p.exceptions.causes.slice(0, 4)).toEqual([
      { cause: 'Address incorrect', count: 3 },
      { cause: 'Damaged', count: 2 },
      { cause: 'Other 0', count: 1 },
      { cause: 'Other 1', count: 1 },
    ]);
  });

  it('stalled: open parcels with no scan for N days (default 3), longest silent first, the list capped at 50', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const now = Date.now();
    const ago = (days: number) => now - days * DAY;
    await tracking(ua, 'S1', { status: 'InTransit', createdAt: ago(10), scans: [['InTransit', ago(5.5)]] });
    await tracking(ua, 'S2', {
      status: 'InTransit',
      createdAt: ago(10),
      scans: [
        ['InTransit', ago(8)],
        ['InTransit', ago(4.5)],
      ],
    });
    // Scanned yesterday: not stalled; delivered or expired long ago: not open.
    await tracking(ua, 'S3', { status: 'InTransit', createdAt: noonAgo(10), scans: [['InTransit', noonAgo(1)]] });
    await tracking(ua, 'S4', { status: 'Delivered', createdAt: noonAgo(10), scans: delivered(noonAgo(9), 1) });
    await tracking(ua, 'S5', { status: 'Expired', createdAt: noonAgo(60), scans: [['InTransit', noonAgo(50)]] });
    // No scan at all, added 6 days ago: stalled since it was added.
    await tracking(ua, 'S6', { status: 'Pending', createdAt: ago(6.5), scans: [] });

    const p = (await call(env.app, 'GET', '/v1/trackings/performance', { token: a.apiKey })).body.payload;
    expect(p.stalled.days).toBe(3);
    expect(p.stalled.count).toBe(3);
    expect(p.stalled.parcels.map((x: { tid: string }) => x.tid)).toEqual(['S6', 'S1', 'S2']);
    expect(p.stalled.parcels[0]).toEqual({
      tid: 'S6',
      courier: 'ups',
      title: '',
      status: 'Pending',
      lastScanAt: null,
      addedAt: iso(ago(6.5)),
    });
    expect(p.stalled.parcels[1].lastScanAt).toBe(iso(ago(5.5)));
    const five = (await call(env.app, 'GET', '/v1/trackings/performance?stalledDays=5', { token: a.apiKey })).body.payload;
    expect([five.stalled.days, five.stalled.count]).toEqual([5, 2]);

    for (let i = 0; i < 52; i++) await tracking(ua, `M${i}`, { status: 'InTransit', createdAt: noonAgo(20), scans: [] });
    const many = (await call(env.app, 'GET', '/v1/trackings/performance', { token: a.apiKey })).body.payload;
    expect([many.stalled.count, many.stalled.parcels.length]).toEqual([55, 50]);
  });

  it('the company’s own couriers: stops a day over days worked, delivered the day they went out, failed attempts', async () => {
    const co = await signUp(env.app);
    const uc = await userIdOf(env, co.email);
    const dana = '00000000-0000-4000-8000-00000000d0a0';
    const eli = '00000000-0000-4000-8000-0000000000e1';
    const shipment = (scans: ShipmentScan[]) => newShipment(env, uc, scans, { [dana]: 'Dana', [eli]: 'Eli' });
    const d1 = noonAgo(4);
    const d2 = noonAgo(3);
    // Dana, day 1: 3 delivered the same day out (one of them out the day before: late), 1 failed attempt; day 2: 2 delivered.
    await shipment([
      ['InfoReceived', d1 - DAY, null],
      ['OutForDelivery', d1 - 3_600_000, dana],
      ['Delivered', d1, dana],
    ]);
    await shipment([
      ['OutForDelivery', d1 - 3_600_000, dana],
      ['Delivered', d1 + 60_000, dana],
    ]);
    await shipment([
      ['OutForDelivery', d1 - DAY, dana],
      ['Delivered', d1 + 120_000, dana],
    ]);
    await shipment([
      ['OutForDelivery', d1 - 3_600_000, dana],
      ['FailAttempt', d1 + 180_000, dana],
      ['OutForDelivery', d2 - 3_600_000, dana],
      ['Delivered', d2, dana],
    ]);
    await shipment([
      ['OutForDelivery', d2 - 3_600_000, dana],
      ['Delivered', d2 + 60_000, dana],
    ]);
    // Eli, one day: 1 failed attempt; and a delivery 40 days ago, outside 30 days.
    await shipment([
      ['OutForDelivery', d2 - 3_600_000, eli],
      ['FailAttempt', d2, eli],
    ]);
    await shipment([
      ['OutForDelivery', noonAgo(40) - 3_600_000, eli],
      ['Delivered', noonAgo(40), eli],
    ]);

    const p = (await call(env.app, 'GET', '/v1/trackings/performance?days=30', { token: co.apiKey })).body.payload;
    expect(p.couriers).toEqual([
      {
        courierId: dana,
        name: 'Dana',
        daysWorked: 3,
        stops: 6,
        stopsPerDay: 2,
        delivered: 5,
        onTime: { count: 4, of: 5, rate: 0.8 },
        failedAttempts: 1,
      },
      {
        courierId: eli,
        name: 'Eli',
        daysWorked: 1,
        stops: 1,
        stopsPerDay: 1,
        delivered: 0,
        onTime: { count: 0, of: 0, rate: null },
        failedAttempts: 1,
      },
    ]);
    // Another account sees none of them.
    const other = await signUp(env.app);
    expect((await call(env.app, 'GET', '/v1/trackings/performance', { token: other.apiKey })).body.payload.couriers).toEqual([]);
  });

  it('format=csv: the same figures as a CSV file with its type and a filename naming the period', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    await tracking(ua, 'C1', { status: 'Delivered', origin: 'Memphis, TN', destination: 'Austin, TX', scans: delivered(noonAgo(2), 1.5) });
    await tracking(ua, 'C2', { status: 'Exception', scans: [['Exception', noonAgo(2), '=cmd, "quoted"']] });
    const from = dayOf(Date.now() - 6 * DAY);
    const to = dayOf(Date.now());
    const res = await env.app.inject({
      method: 'GET',
      url: `/v1/trackings/performance?days=7&format=csv`,
      headers: { 'sm-api-token': a.apiKey },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="delivery-performance-${from}-to-${to}.csv"`);
    const lines = res.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'section,name,count,of,rate,median_days,p90_days,days_0,days_1,days_2,days_3,days_4,days_5,days_6,days_7,days_8,days_9,days_10+,detail',
    );
    expect(lines).toContain(`period,${from} to ${to},7,,,,,,,,,,,,,,,,`);
    expect(lines).toContain('delivered,all carriers,1,,,,,,,,,,,,,,,,');
    expect(lines).toContain('transit,UPS,1,,,1.5,1.5,0,1,0,0,0,0,0,0,0,0,0,');
    expect(lines).toContain('lane,UPS TN to TX,1,,,1.5,1.5,0,1,0,0,0,0,0,0,0,0,0,');
    expect(lines).toContain('first_attempt,UPS,1,1,1,,,,,,,,,,,,,,');
    // A spreadsheet formula in a carrier's words is neutralised, quotes doubled.
    expect(lines).toContain(`exception_cause,"'=cmd, ""quoted""",1,1,,,,,,,,,,,,,,,`);
    expect(lines).toContain('stalled,no scan for 3 days,0,,,,,,,,,,,,,,,,');
  });

  it('refuses bad dates, a reversed or too long period, a bad stalled days or format, with the message (400)', async () => {
    const a = await signUp(env.app);
    const cases: Array<[string, string]> = [
      ['from=2026-13-01', MSG.performanceDate],
      ['from=2026-02-30', MSG.performanceDate],
      ['to=yesterday', MSG.performanceDate],
      ['from=2026-1-1&to=2026-01-05', MSG.performanceDate],
      ['from=2026-03-02&to=2026-03-01', MSG.performanceRange],
      ['from=2025-01-01&to=2026-01-02', MSG.performanceSpan],
      ['stalledDays=0', MSG.performanceStalledDays],
      ['stalledDays=91', MSG.performanceStalledDays],
      ['stalledDays=x', MSG.performanceStalledDays],
      ['format=xlsx', MSG.performanceFormat],
    ];
    for (const [q, message] of cases) {
      const r = await call(env.app, 'GET', `/v1/trackings/performance?${q}`, { token: a.apiKey });
      expect([r.statusCode, r.body.message], q).toEqual([400, message]);
    }
    // A whole leap year is 366 days: accepted.
    const leap = await call(env.app, 'GET', '/v1/trackings/performance?from=2024-01-01&to=2024-12-31', { token: a.apiKey });
    expect([leap.statusCode, leap.body.payload.days]).toEqual([200, 366]);
  });
});
