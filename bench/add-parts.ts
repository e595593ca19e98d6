// The add's statement part by part, without HTTP (decision 184): `node bench/add-parts.ts [pglite|postgres]`. Runs
// the floor's statement, the add's as the API sends it, and the add's without one part at a time (or another form of
// it), each for BENCH_SECONDS at BENCH_CONNECTIONS statements in flight on one account, BENCH_ROUNDS rounds in
// alternation, and prints statements/s and the CPU per statement (the threads', PostgreSQL's server processes'), which
// holds when the machine is shared. BENCH_VARIANTS="floor|add" runs only those.
import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../apps/server/src/db/client.ts';
import { freshChargeCtes } from '../apps/server/src/modules/billing/billing.service.ts';
import { lowBalanceFollowUpSql } from '../apps/server/src/modules/billing/payments.ts';
import { liveNotifySql } from '../apps/server/src/modules/live/live.service.ts';
import { FIRST_IN_LINE, refreshWakeSql } from '../apps/server/src/modules/trackings/refresh.ts';
import {
  insertPaidTracking,
  paidTrackingStatement,
  type PaidTrackingValues,
} from '../apps/server/src/modules/trackings/trackings.repository.ts';
import { addMessages, addStatement } from '../apps/server/src/modules/trackings/trackings.service.ts';
import { startPostgres } from './lib/postgres.ts';
import { openApp } from './billing.bench.ts';
import { cpuMeter, parentOf } from './lib/cpu.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/** billing.bench's app (an account signed up) with a balance for every add. */
async function open(adminUrl?: string) {
  const o = await openApp(adminUrl);
  await o.ctx.db.execute(sql`update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = ${o.userId}`);
  return o;
}

type Opened = Awaited<ReturnType<typeof open>>;
let n = 0;
const kind = process.argv[2] ?? 'pglite';

/** The add's charge CTEs with parts left out. */
function charge(o: Opened, id: string, tid: string, opts: { lock: boolean; notify: boolean; followUps: boolean }): SQL {
  const lock = opts.lock ? sql`for no key update` : sql``;
  const live = opts.notify ? liveNotifySql({ kind: 'balance', accountId: o.userId }) : sql`1`;
  const f = lowBalanceFollowUpSql(sql`charge_paid`, 5, `tracking:${id}`);
  const followUps = opts.followUps ? sql`, charge_recharge as (${f.recharge}), charge_alert as (${f.alert})` : sql``;
  return sql`charge_lock as materialized (select id from users where id = ${o.userId} ${lock}),
    charge_paid as (update billing_accounts b set balance_cents = b.balance_cents - 5, updated_at = now()
      from charge_lock where b.user_id = charge_lock.id and b.balance_cents >= 5 returning b.*),
    charge_booked as (insert into ledger_entries (user_id, amount_cents, kind, ref, description)
      select ${o.userId}, -5, 'tracking', ${id}, ${`Tracking ${tid}`} from charge_paid returning 1),
    charge_live as (select ${live} from charge_paid)${followUps}`;
}

function values(o: Opened, id: string, tid: string) {
  const now = new Date();
  return {
    id,
    userId: o.userId,
    tid,
    courier: 'ups',
    title: '',
    orderId: '',
    customer: '',
    notifyEmail: '',
    notifyPhone: '',
    note: '',
    service: null,
    status: 'Pending',
    nextCheckAt: FIRST_IN_LINE,
    createdAt: now,
    updatedAt: now,
  };
}

type Exec = { execute: (q: SQL) => Promise<unknown> };

function floor(o: Opened, db: Exec) {
  const tid = `F${n++}`;
  return db.execute(sql`with t as (insert into trackings (user_id, tid, courier, next_check_at) values (${o.userId}::uuid, ${tid}, 'ups', now()) returning id, tid),
               l as (insert into ledger_entries (user_id, amount_cents, kind, ref, description) select ${o.userId}::uuid, -5, 'tracking', t.id::text, t.tid from t returning amount_cents)
          update billing_accounts set balance_cents = balance_cents + (select amount_cents from l), updated_at = now() where user_id = ${o.userId}::uuid returning balance_cents`);
}

/** The add's statement with its parts built for this call (as before decision 187: Drizzle assembles it each time). */
function insertPerCall(db: Queryable, v: PaidTrackingValues, charge: SQL, live: SQL) {
  return insertPaidTracking(
    db,
    paidTrackingStatement(() => ({ charge, live })),
    v,
  );
}

function add(o: Opened, db: Exec) {
  const id = randomUUID();
  const tid = `A${n++}`;
  return insertPerCall(
    db as never,
    values(o, id, tid),
    freshChargeCtes(o.userId, 5, 'tracking', id, `Tracking ${tid}`),
    sql`${liveNotifySql({ kind: 'tracking', accountId: o.userId, trackingId: id, tid, status: 'Pending', statusChanged: false })}, ${refreshWakeSql()}`,
  );
}

/** The add as the API sends it since decision 187: its statement built once, each call binding its values. */
function addBuiltOnce(o: Opened) {
  const id = randomUUID();
  const tid = `B${n++}`;
  return insertPaidTracking(o.ctx.db, addStatement, {
    ...values(o, id, tid),
    chargeDescription: `Tracking ${tid}`,
    messages: addMessages(o.userId, id, tid),
  });
}

const variants: Record<string, (o: Opened) => Promise<unknown>> = {
  floor: (o) => floor(o, o.ctx.db),
  add: (o) => add(o, o.ctx.db),
  'add, built once': addBuiltOnce,
  ...(kind === 'postgres' ? { 'floor, named': named('floor', floor), 'add, named': named('add', add) } : {}),
  // The inserts first, the account's lock and the charge last (nothing paid: the division fails the statement).
  'lock last': (o) => {
    const id = randomUUID();
    const tid = `L${n++}`;
    const v = values(o, id, tid);
    const f = lowBalanceFollowUpSql(sql`charge_paid`, 5, `tracking:${id}`);
    return o.ctx.db.execute(sql`
      with t as (
        insert into trackings (id, user_id, tid, courier, title, order_id, customer, notify_email, notify_phone, note, service, status, next_check_at, created_at, updated_at)
        values (${v.id}, ${v.userId}, ${v.tid}, ${v.courier}, ${v.title}, ${v.orderId}, ${v.customer}, ${v.notifyEmail}, ${v.notifyPhone}, ${v.note}, ${v.service}::text, ${v.status},
          ${v.nextCheckAt}::timestamptz, ${v.createdAt}::timestamptz, ${v.updatedAt}::timestamptz)
        returning *
      ), charge_booked as (
        insert into ledger_entries (user_id, amount_cents, kind, ref, description) select ${o.userId}, -5, 'tracking', ${id}, ${`Tracking ${tid}`} from t returning 1
      ), charge_lock as materialized (
        select id from users where id = ${o.userId} and exists (select 1 from charge_booked) for no key update
      ), charge_paid as (
        update billing_accounts b set balance_cents = b.balance_cents - 5, updated_at = now()
        from charge_lock where b.user_id = charge_lock.id and b.balance_cents >= 5 returning b.*
      ), charge_live as (select ${liveNotifySql({ kind: 'balance', accountId: o.userId })} from charge_paid),
      charge_recharge as (${f.recharge}), charge_alert as (${f.alert}),
      t_live as (select ${liveNotifySql({ kind: 'tracking', accountId: o.userId, trackingId: id, tid, status: 'Pending', statusChanged: false })}, ${refreshWakeSql()} from charge_paid)
      select t.*, 1 / (select count(*) from charge_paid)::int as paid, (select count(*) from charge_live)::int + (select count(*) from t_live)::int as notified from t`);
  },
  ...Object.fromEntries(
    (
      [
        ['no notify', { lock: true, notify: false, followUps: true }],
        ['no lock', { lock: false, notify: true, followUps: true }],
        ['no follow-ups', { lock: true, notify: true, followUps: false }],
        ['none of the three', { lock: false, notify: false, followUps: false }],
      ] as const
    ).map(([name, opts]) => [
      name,
      (o: Opened) => {
        const id = randomUUID();
        const tid = `V${n++}`;
        const live = opts.notify
          ? sql`${liveNotifySql({ kind: 'tracking', accountId: o.userId, trackingId: id, tid, status: 'Pending', statusChanged: false })}, ${refreshWakeSql()}`
          : sql`1`;
        return insertPerCall(o.ctx.db, values(o, id, tid), charge(o, id, tid, opts), live);
      },
    ]),
  ),
};

/** PostgreSQL: a variant's statement sent as a named (prepared) statement on the pool, not Drizzle's unnamed one. */
function named(name: string, build: (o: Opened, db: Exec) => Promise<unknown>) {
  return (o: Opened) =>
    build(o, {
      execute: (q: SQL) => {
        const { sql: text, params } = (
          o.ctx.db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } } }
        ).dialect.sqlToQuery(q);
        return o.ctx.database.pool!.query({ name, text, values: params as unknown[] });
      },
    });
}

let postmaster = 0;

async function measure(
  o: Opened,
  run: (o: Opened) => Promise<unknown>,
  seconds: number,
): Promise<{ rate: number; cpu: number; server: number }> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const t0 = Number(process.hrtime.bigint() / 1000n);
  const meter = cpuMeter(postmaster || undefined);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        await run(o);
        done++;
      }
    }),
  );
  const cpu = meter(Math.max(1, done));
  if (seconds > 1)
    console.error(`window ${t0} ${Number(process.hrtime.bigint() / 1000n)} ${done}: CPU µs per statement ${JSON.stringify(cpu)}`);
  return { rate: done / seconds, cpu: (cpu.MainThread ?? 0) + (cpu.WorkerThread ?? 0), server: cpu.PostgreSQL ?? 0 };
}

const pg = kind === 'postgres' ? await startPostgres() : undefined;
if (pg && 'skipped' in pg) throw new Error(pg.skipped);
const o = await open(pg?.url);
try {
  if (pg) {
    const [b] = rowsOf<{ pid: number }>(await o.ctx.db.execute(sql`select pg_backend_pid() as pid`));
    postmaster = parentOf(b!.pid);
  }
  const names = Object.keys(variants).filter((v) => !process.env.BENCH_VARIANTS || process.env.BENCH_VARIANTS.split('|').includes(v));
  for (const name of names) await measure(o, variants[name]!, 1);
  const got = new Map<string, Array<{ rate: number; cpu: number; server: number }>>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of r % 2 ? [...names].reverse() : names) {
      got.set(name, [...(got.get(name) ?? []), await measure(o, variants[name]!, SECONDS)]);
    }
  }
  console.log(
    `${kind}, ${CONNECTIONS} in flight, ${ROUNDS} rounds of ${SECONDS} s, load ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    "statements/s per round; CPU µs per statement, median of rounds: this process's main and database threads (server: PostgreSQL's processes)",
  );
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, m] of got)
    console.log(
      `${name.padEnd(20)} ${m
        .map((x) => Math.round(x.rate))
        .join(', ')
        .padEnd(30)} cpu ${Math.round(med(m.map((x) => x.cpu)))}${pg ? ` server ${Math.round(med(m.map((x) => x.server)))}` : ''}`,
    );
  if (kind === 'pglite') {
    const plans = rowsOf<Record<string, unknown>>(
      await o.ctx.db.execute(
        sql`select generic_plans, custom_plans, left(regexp_replace(statement, '\s+', ' ', 'g'), 90) as statement from pg_prepared_statements order by custom_plans + generic_plans desc limit 8`,
      ),
    );
    for (const p of plans) console.log(`generic ${p.generic_plans} custom ${p.custom_plans}: ${p.statement}`);
  }
} finally {
  await o.close();
  if (pg && !('skipped' in pg)) pg.stop();
}
