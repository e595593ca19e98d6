// The company's own couriers' figures from a per-day rollup (decision 152): `courier_days`, kept by the database from
// shipment_checkpoints (and from a shipment's company and the company's time zone) in the writer's statement. The
// figures themselves are proved by performance-figures.test.ts and courier-figures-edges.test.ts, unchanged; this
// file proves what is kept after each kind of write, that it equals a count from the scans, the part days of a
// period that does not start at a local midnight, and the backfill of migrations 0027-0028.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/client.ts';
import { courierPerformance } from '../../src/modules/shipments/shipments.repository.ts';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from '../trackings/fixtures.ts';
import { HOUR, addShipmentScans, iso, newShipment, overlapping, type ShipmentScan } from '../rows-by-sql.ts';
import { ACROSS_MIGRATION_TIMEOUT_MS, acrossMigration } from '../db/across-migration.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const DANA = '00000000-0000-4000-8000-0000000da4a0';
const SAM = '00000000-0000-4000-8000-00000005a300';
const names: Record<string, string> = { [DANA]: 'Dana', [SAM]: 'Sam' };

type Kept = [courier: string, day: string, name: string | null, stops: number, delivered: number, onTime: number, failed: number];

/** The company's courier_days rows, and the same days counted from the scans (the backfill's count). */
async function keptAndCounted(companyId: string): Promise<{ kept: Kept[]; counted: Kept[] }> {
  const shape = (r: unknown) =>
    rowsOf<Record<string, unknown>>(r).map((x): Kept => [
      String(x.courier_id),
      String(x.day),
      x.by_name as string | null,
      Number(x.stops),
      Number(x.delivered),
      Number(x.on_time),
      Number(x.failed),
    ]);
  const kept = shape(
    await env.ctx.db.execute(sql`
      select courier_id, day::text as day, by_name, stops, delivered, on_time, failed from courier_days
      where company_id = ${companyId}::uuid order by day, by_name`),
  );
  const counted = shape(
    await env.ctx.db.execute(sql`
      select sc.by_user_id as courier_id, ((sc.time at time zone u.time_zone)::date)::text as day, max(sc.by_name) as by_name,
        count(*) filter (where sc.status in ('Delivered', 'FailAttempt')) as stops,
        count(*) filter (where sc.status = 'Delivered') as delivered,
        count(*) filter (where sc.status = 'Delivered' and exists (
          select 1 from shipment_checkpoints o where o.shipment_id = sc.shipment_id and o.status = 'OutForDelivery'
            and (o.time at time zone u.time_zone)::date = (sc.time at time zone u.time_zone)::date)) as on_time,
        count(*) filter (where sc.status = 'FailAttempt') as failed
      from shipment_checkpoints sc join shipments s on s.id = sc.shipment_id join users u on u.id = s.company_id
      where s.company_id = ${companyId}::uuid and sc.by_role = 'courier' and sc.by_user_id is not null
      group by 1, 2 order by 2, 3`),
  );
  return { kept, counted };
}

async function expectKept(companyId: string, expected: Kept[]) {
  const { kept, counted } = await keptAndCounted(companyId);
  expect(kept).toEqual(expected);
  expect(counted).toEqual(expected);
}

const shipment = (companyId: string, scans: ShipmentScan[]) => newShipment(env, companyId, scans, names);
const addScans = (shipmentId: string, scans: ShipmentScan[]) => addShipmentScans(env, shipmentId, scans, names);

async function company(timeZone: string): Promise<string> {
  const co = await signUp(env.app);
  const id = await userIdOf(env, co.email);
  await env.ctx.db.execute(sql`update users set time_zone = ${timeZone} where id = ${id}::uuid`);
  return id;
}

// 2026-10-14 and 15 in New York (UTC-4): local 08:00 is 12:00 UTC.
const d1 = (localHour: number) => Date.parse('2026-10-14T04:00:00Z') + localHour * HOUR;
const d2 = (localHour: number) => d1(24 + localHour);

describe('courier_days: kept by the database from the scans', () => {
  it('follows scans inserted, changed and deleted, and shipments deleted, equal to a count from the scans', async () => {
    const uc = await company('America/New_York');
    // Out by the office at 08:00, delivered by Dana at 10:00: on time. Delivered by Dana at 11:00, never out: not.
    const a = await shipment(uc, [
      ['OutForDelivery', d1(8), null],
      ['Delivered', d1(10), DANA],
    ]);
    const b = await shipment(uc, [['Delivered', d1(11), DANA]]);
    // Sam's failed attempt the next day, 23:30 local (03:30 UTC the day after: the local day counts).
    await shipment(uc, [['FailAttempt', d2(23.5), SAM]]);
    await expectKept(uc, [
      [DANA, '2026-10-14', 'Dana', 2, 2, 1, 0],
      [SAM, '2026-10-15', 'Sam', 1, 0, 0, 1],
    ]);
    // Sam takes b out at 09:00 the same day: Dana's delivery of b is now on time; Sam worked that day (no stop).
    await addScans(b, [['OutForDelivery', d1(9), SAM]]);
    await expectKept(uc, [
      [DANA, '2026-10-14', 'Dana', 2, 2, 2, 0],
      [SAM, '2026-10-14', 'Sam', 0, 0, 0, 0],
      [SAM, '2026-10-15', 'Sam', 1, 0, 0, 1],
    ]);
    // b's delivery moved to the next day: it leaves Dana's first day and is not on time on the second.
    await env.ctx.db.execute(
      sql`update shipment_checkpoints set time = ${iso(d2(10))}::timestamptz where shipment_id = ${b}::uuid and status = 'Delivered'`,
    );
    await expectKept(uc, [
      [DANA, '2026-10-14', 'Dana', 1, 1, 1, 0],
      [SAM, '2026-10-14', 'Sam', 0, 0, 0, 0],
      [DANA, '2026-10-15', 'Dana', 1, 1, 0, 0],
      [SAM, '2026-10-15', 'Sam', 1, 0, 0, 1],
    ]);
    // A change that touches no counted column (a proof's recipient) changes nothing.
    await env.ctx.db.execute(sql`update shipment_checkpoints set pod_recipient_name = 'Ann' where shipment_id = ${b}::uuid`);
    // Sam's out-for-delivery scan removed: Sam did not work the 14th.
    await env.ctx.db.execute(sql`delete from shipment_checkpoints where shipment_id = ${b}::uuid and status = 'OutForDelivery'`);
    await expectKept(uc, [
      [DANA, '2026-10-14', 'Dana', 1, 1, 1, 0],
      [DANA, '2026-10-15', 'Dana', 1, 1, 0, 0],
      [SAM, '2026-10-15', 'Sam', 1, 0, 0, 1],
    ]);
    // The office's scan of a changed to Dana's: still out that day, and now a scan of Dana's that day too.
    await env.ctx.db.execute(
      sql`update shipment_checkpoints set by_user_id = ${DANA}::uuid, by_role = 'courier', by_name = 'Dana' where shipment_id = ${a}::uuid and status = 'OutForDelivery'`,
    );
    await expectKept(uc, [
      [DANA, '2026-10-14', 'Dana', 1, 1, 1, 0],
      [DANA, '2026-10-15', 'Dana', 1, 1, 0, 0],
      [SAM, '2026-10-15', 'Sam', 1, 0, 0, 1],
    ]);
    // A shipment deleted: its scans go by the foreign key, and the days with them.
    await env.ctx.db.execute(sql`delete from shipments where id = ${a}::uuid`);
    await expectKept(uc, [
      [DANA, '2026-10-15', 'Dana', 1, 1, 0, 0],
      [SAM, '2026-10-15', 'Sam', 1, 0, 0, 1],
    ]);
  });

  it('counts the days again when the company changes its time zone, and follows a shipment to another company', async () => {
    const uc = await company('America/New_York');
    const other = await company('UTC');
    // 22:00 and 23:00 in New York on the 14th are 02:00 and 03:00 UTC on the 15th.
    const s = await shipment(uc, [
      ['OutForDelivery', d1(22), DANA],
      ['Delivered', d1(23), DANA],
    ]);
    await expectKept(uc, [[DANA, '2026-10-14', 'Dana', 1, 1, 1, 0]]);
    await env.ctx.db.execute(sql`update users set time_zone = 'UTC' where id = ${uc}::uuid`);
    await expectKept(uc, [[DANA, '2026-10-15', 'Dana', 1, 1, 1, 0]]);
    await env.ctx.db.execute(sql`update users set time_zone = 'America/New_York' where id = ${uc}::uuid`);
    await expectKept(uc, [[DANA, '2026-10-14', 'Dana', 1, 1, 1, 0]]);
    await env.ctx.db.execute(sql`update shipments set company_id = ${other}::uuid where id = ${s}::uuid`);
    await expectKept(uc, []);
    await expectKept(other, [[DANA, '2026-10-15', 'Dana', 1, 1, 1, 0]]);
  });

  it('answers a period that starts and ends inside a local day: the whole days kept, the part days from the scans', async () => {
    // courier-figures-edges.test.ts's data, in a company whose own time zone is New York, so the rollup is read.
    const uc = await company('America/New_York');
    const from = Date.parse('2026-10-14T22:00:00Z');
    const to = from + 48 * HOUR;
    await shipment(uc, [
      ['OutForDelivery', Date.parse('2026-10-14T12:00:00Z'), DANA],
      ['Delivered', from + HOUR, DANA],
    ]);
    await shipment(uc, [
      ['OutForDelivery', Date.parse('2026-10-14T03:30:00Z'), null],
      ['Delivered', from + 1.5 * HOUR, DANA],
    ]);
    await shipment(uc, [
      ['Delivered', to - 0.5 * HOUR, DANA],
      ['OutForDelivery', to + 2.5 * HOUR, null],
    ]);
    await shipment(uc, [
      ['OutForDelivery', from + 10 * HOUR, DANA],
      ['FailAttempt', from + 11 * HOUR, DANA],
    ]);
    // Scans outside the period on its part days: the 14th before 18:00 local (Sam), the 16th after 18:00 (Dana).
    await shipment(uc, [['Delivered', from - 3 * HOUR, SAM]]);
    await shipment(uc, [['FailAttempt', to + HOUR, DANA]]);
    const figures = await courierPerformance(env.ctx.db, uc, new Date(from), new Date(to), 'America/New_York');
    expect(figures).toEqual([{ courierId: DANA, name: 'Dana', daysWorked: 3, stops: 4, delivered: 3, onTime: 2, failed: 1 }]);
    // The same period in another zone than the company's reads the scans (the kept days are New York's).
    const utc = await courierPerformance(env.ctx.db, uc, new Date(from), new Date(to), 'UTC');
    expect(utc.map((c) => [c.name, c.stops, c.delivered, c.failed])).toEqual([['Dana', 4, 3, 1]]);
    // Whole days (local midnights): the rollup alone.
    const whole = await courierPerformance(
      env.ctx.db,
      uc,
      new Date(Date.parse('2026-10-14T04:00:00Z')),
      new Date(Date.parse('2026-10-17T04:00:00Z')),
      'America/New_York',
    );
    expect(whole).toEqual([
      { courierId: DANA, name: 'Dana', daysWorked: 3, stops: 5, delivered: 3, onTime: 2, failed: 2 },
      { courierId: SAM, name: 'Sam', daysWorked: 1, stops: 1, delivered: 1, onTime: 0, failed: 0 },
    ]);
  });
});

// ------------------------------------------------------------------ the migrations on a database with scans

/** Scans stored before the table: a company in New York with Dana's day and an office scan. */
const BEFORE = sql`
  with u as (
    insert into users (uid, email, api_key_hash, api_key_enc, webhook_secret, referral_code, version, user_type, time_zone)
    values ('cdbf1', 'courier-days-backfill@example.com', 'x', 'x', 'x', 'cdbf1', '1', 'company', 'America/New_York') returning id
  ), s as (
    insert into shipments (company_id, tid, origin, destination)
    select u.id, 'SHMCDBF' || g, '{}'::jsonb, '{}'::jsonb from u, generate_series(1, 2) g returning id, tid
  )
  insert into shipment_checkpoints (shipment_id, status, time, by_user_id, by_role, by_name)
  select s.id, x.status, x.time::timestamptz, x.by::uuid, x.role, x.name from s join (values
    ('SHMCDBF1', 'OutForDelivery', '2026-09-01T12:00:00Z', null, 'company', 'Office'),
    ('SHMCDBF1', 'Delivered', '2026-09-01T15:00:00Z', '${sql.raw(DANA)}', 'courier', 'Dana'),
    ('SHMCDBF2', 'FailAttempt', '2026-09-02T02:00:00Z', '${sql.raw(DANA)}', 'courier', 'Dana')) x(tid, status, time, by, role, name)
  on x.tid = s.tid`;

const KEPT = sql`select courier_id, day::text as day, by_name, stops, delivered, on_time, failed from courier_days order by day`;

describe('migrations 0027-0028 on a database with scans', () => {
  it(
    "give the couriers' days stored before them",
    async () => {
      const rows = await acrossMigration<Record<string, unknown>>('0026_courier_positions', BEFORE, KEPT);
      // The failed attempt at 02:00 UTC on the 2nd is 22:00 on the 1st in New York: one day.
      expect(rows).toEqual([{ courier_id: DANA, day: '2026-09-01', by_name: 'Dana', stops: 2, delivered: 1, on_time: 1, failed: 1 }]);
    },
    ACROSS_MIGRATION_TIMEOUT_MS,
  );
});

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

// PostgreSQL only: PGlite has one connection, so its writers never overlap.
describe.skipIf(!onPostgres)('courier_days under writers at once (PostgreSQL)', () => {
  it("two transactions scanning the same courier's day both commit, and the day counts both scans", async () => {
    const co = await company('America/New_York');
    const first = await shipment(co, []);
    const second = await shipment(co, []);
    const scan = `insert into shipment_checkpoints (shipment_id, status, time, by_user_id, by_role, by_name)
      values ($1::uuid, $2, $3::timestamptz, $4::uuid, 'courier', 'Dana')`;
    // b's scan waits for a's transaction (the same day), whatever the code does; then a commits.
    await overlapping(env, [scan, [first, 'Delivered', iso(d1(10)), DANA]], [scan, [second, 'FailAttempt', iso(d1(11)), DANA]]);
    await expectKept(co, [[DANA, '2026-10-14', 'Dana', 2, 1, 0, 1]]);
  });
});
