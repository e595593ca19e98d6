// Rows written by SQL, as no API call would write them (a creation time in the past, a promised date, a scan at a
// given time): the set-up the rollup tests share (delivery summary and rollups, stalled, exception scans, service,
// courier days). The rollups are kept by the database, so these writes go through the same triggers as the app's.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { rowsOf } from '../src/db/client.ts';
import type * as repo from '../src/modules/trackings/trackings.repository.ts';
import { signUp, type TestEnv } from './helpers.ts';
import { userIdOf } from './trackings/fixtures.ts';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const iso = (ms: number) => new Date(ms).toISOString();

/** A new account's user id. */
export async function newAccount(env: TestEnv): Promise<string> {
  const a = await signUp(env.app);
  return userIdOf(env, a.email);
}

export type TrackingRow = {
  status: string;
  /** ms; default now. */
  createdAt?: number;
  courier?: string;
  origin?: string;
  destination?: string;
  service?: string | null;
  /** ms; default none. */
  promisedBy?: number | null;
};

/** A tracking of `userId` that the refresh engine leaves alone (next_check_at null); its id. */
export async function newTracking(env: TestEnv, userId: string, tid: string, t: TrackingRow): Promise<string> {
  const promisedBy = t.promisedBy === undefined || t.promisedBy === null ? null : iso(t.promisedBy);
  const r = await env.ctx.db.execute(sql`
    insert into trackings (user_id, tid, courier, status, origin, destination, service, created_at, next_check_at, promised_by)
    values (${userId}::uuid, ${tid}, ${t.courier ?? 'ups'}, ${t.status}, ${t.origin ?? ''}, ${t.destination ?? ''},
            ${t.service ?? null}, ${iso(t.createdAt ?? Date.now())}::timestamptz, null, ${promisedBy}::timestamptz)
    returning id`);
  return rowsOf<{ id: string }>(r)[0]!.id;
}

/**
 * A scan for repo.insertCheckpoints. Its fingerprint differs with its status, time and message, and stays short for a
 * message of any length (the fingerprint is indexed).
 */
export const scan = (trackingId: string, status: string, time: number, message = status): repo.NewCheckpoint => ({
  trackingId,
  status,
  location: null,
  message,
  time: new Date(time),
  fingerprint: `${status}-${time}-${createHash('sha1').update(message).digest('hex').slice(0, 12)}`,
});

/**
 * PostgreSQL only: run `second` on connection b while a's transaction holds `first`, check that b waits for a's lock,
 * then commit a and b in that order.
 */
export async function overlapping(env: TestEnv, first: [string, unknown[]], second: [string, unknown[]]) {
  const a = new pg.Client({ connectionString: env.ctx.database.url });
  const b = new pg.Client({ connectionString: env.ctx.database.url });
  await a.connect();
  await b.connect();
  try {
    const bPid = (await b.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    await a.query('begin');
    await a.query(...first);
    await b.query('begin');
    const b1 = b.query(...second);
    // b's statement waits for a's transaction whatever the code does; seen from the server's pool, outside a's
    // transaction (pg_stat_activity is read once per transaction).
    let waiting = false;
    const giveUp = Date.now() + 20_000;
    while (!waiting && Date.now() < giveUp) {
      await new Promise((r) => setTimeout(r, 50));
      const r = await env.ctx.db.execute(
        sql`select count(*)::int as n from pg_stat_activity where pid = ${bPid} and wait_event_type = 'Lock'`,
      );
      waiting = rowsOf<{ n: number }>(r)[0]!.n === 1;
    }
    expect(waiting).toBe(true);
    await a.query('commit');
    await b1;
    await b.query('commit');
  } finally {
    await a.query('rollback').catch(() => {});
    await b.query('rollback').catch(() => {});
    await a.end();
    await b.end();
  }
}

/** A scan of a shipment: status, time (ms), and the courier's user id, or null for the office. */
export type ShipmentScan = [status: string, time: number, by: string | null];

const place = JSON.stringify({ name: 'X', address1: '1 Main St', city: 'Austin', country: 'US' });
let shipments = 0;

/**
 * A shipment of the company with its scans, all in one insert statement (a statement-level trigger sees them
 * together); a courier's scan carries the name `names` gives its id. The shipment's id.
 */
export async function newShipment(
  env: TestEnv,
  companyId: string,
  scans: ShipmentScan[],
  names: Record<string, string> = {},
): Promise<string> {
  shipments += 1;
  const r = await env.ctx.db.execute(sql`
    insert into shipments (company_id, tid, origin, destination)
    values (${companyId}::uuid, ${`SHMSQL${companyId.slice(0, 8)}${shipments}`}, ${place}::jsonb, ${place}::jsonb) returning id`);
  const id = rowsOf<{ id: string }>(r)[0]!.id;
  if (scans.length > 0) await addShipmentScans(env, id, scans, names);
  return id;
}

/** The scans of a shipment in one insert statement. */
export async function addShipmentScans(env: TestEnv, shipmentId: string, scans: ShipmentScan[], names: Record<string, string> = {}) {
  const values = scans.map(
    ([status, time, by]) =>
      sql`(${shipmentId}::uuid, ${status}, ${iso(time)}::timestamptz, ${by}::uuid, ${by ? 'courier' : 'company'}, ${by ? (names[by] ?? 'Courier') : 'Office'})`,
  );
  await env.ctx.db.execute(
    sql`insert into shipment_checkpoints (shipment_id, status, time, by_user_id, by_role, by_name) values ${sql.join(values, sql`, `)}`,
  );
}
