// Test helpers only (decision 186): a worker process's pool of in-memory PGlite instances loaded from the migrated
// template. Loading the 43 MB dump costs about half a second of CPU per database; a used instance is reset to the
// template's state (a few milliseconds) and handed to the next test env of the same process instead.
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database, Db } from '../src/db/client.ts';
import * as schema from '../src/db/schema.ts';

/** One PGlite of the pool as it was opened: loaded from the dump, its turns yielding, migrations checked. */
type Opened = Pick<Database, 'pglite' | 'close'>;

/** Schemas the reset and the checks look at: every one but PostgreSQL's own and the sessions' temporary ones. */
const USER_NAMESPACES = `select oid from pg_namespace
  where nspname not in ('pg_catalog', 'information_schema') and nspname not like 'pg\\_toast%' and nspname not like 'pg\\_temp%'`;

/**
 * A digest of the catalog a test could change: schemas, relations (tables, views, sequences, indexes, their kinds,
 * persistence and row security), columns (type, nullability, default, identity, generated), constraints, index
 * definitions, functions (arguments and body), triggers, views' text, types and enum labels, extensions, roles,
 * databases and per-database settings. Two instances with the same digest have the same schema.
 */
const FINGERPRINT = `
with ns as (${USER_NAMESPACES}),
parts(x) as (
  select 'n ' || nspname from pg_namespace where oid in (select oid from ns)
  union all select 'c ' || c.oid::regclass::text || ' ' || c.relkind::text || c.relpersistence::text || c.relrowsecurity::text || c.relispartition::text
    from pg_class c where c.relnamespace in (select oid from ns)
  union all select 'a ' || a.attrelid::regclass::text || '.' || a.attname || ' ' || a.attnum || ' ' || format_type(a.atttypid, a.atttypmod)
      || a.attnotnull::text || a.attidentity::text || a.attgenerated::text || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where c.relnamespace in (select oid from ns) and a.attnum > 0 and not a.attisdropped
  union all select 'k ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    from pg_constraint where connamespace in (select oid from ns)
  union all select 'i ' || pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relnamespace in (select oid from ns)
  union all select 'f ' || p.oid::regprocedure::text || ' ' || md5(coalesce(p.prosrc, '')) from pg_proc p
    where p.pronamespace in (select oid from ns)
  union all select 't ' || tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text || ' ' || pg_get_triggerdef(oid)
    from pg_trigger where not tgisinternal
  union all select 'v ' || c.oid::regclass::text || ' ' || pg_get_viewdef(c.oid) from pg_class c
    where c.relkind in ('v', 'm') and c.relnamespace in (select oid from ns)
  union all select 'y ' || t.oid::regtype::text || ' ' || t.typtype::text from pg_type t
    where t.typnamespace in (select oid from ns) and t.typtype in ('e', 'd', 'c', 'r', 'm') and t.typrelid = 0
  union all select 'e ' || enumtypid::regtype::text || ' ' || enumlabel || ' ' || enumsortorder from pg_enum
  union all select 'x ' || extname || ' ' || extversion from pg_extension
  union all select 'r ' || rolname from pg_roles
  union all select 'd ' || datname from pg_database
  union all select 's ' || setdatabase || ' ' || setrole || ' ' || array_to_string(setconfig, ',') from pg_db_role_setting
)
select md5(string_agg(x, E'\\n' order by x)) as fingerprint from parts`;

export async function fingerprint(pglite: PGlite): Promise<string> {
  return (await pglite.query<{ fingerprint: string }>(FINGERPRINT)).rows[0]!.fingerprint;
}

const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * What a fresh copy of the template holds beyond its schema, read once per pool from a fresh instance, and the
 * statement that puts a used instance back to it: every table of the user schemas emptied (partitions through their
 * parent), the template's rows put back (the migrations' journal, pg-boss's version and anything a migration
 * inserted), every sequence set to the template's value, planner statistics of user tables dropped when the
 * template had none (an ANALYZE a test ran would otherwise change plans in the next file), and each table's and
 * index's size and row estimate in pg_class set back to the template's.
 */
async function readClean(pglite: PGlite): Promise<{ fingerprint: string; resetSql: string }> {
  const tables = (
    await pglite.query<{ name: string }>(
      `select c.oid::regclass::text as name from pg_class c
       where c.relkind in ('r', 'p') and not c.relispartition and c.relnamespace in (${USER_NAMESPACES}) order by 1`,
    )
  ).rows.map((r) => r.name);
  const restore: string[] = [];
  for (const table of tables) {
    const { rows } = await pglite.query<{ rows: string | null }>(`select json_agg(t)::text as rows from ${table} t`);
    if (!rows[0]?.rows) continue;
    const columns = (
      await pglite.query<{ name: string }>(
        `select quote_ident(attname) as name from pg_attribute
         where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
        [table],
      )
    ).rows
      .map((r) => r.name)
      .join(', ');
    restore.push(
      `insert into ${table} (${columns}) overriding system value select ${columns} from json_populate_recordset(null::${table}, ${quoteLiteral(rows[0].rows)})`,
    );
  }
  const sequences = (
    await pglite.query<{ name: string }>(
      `select c.oid::regclass::text as name from pg_class c where c.relkind = 'S' and c.relnamespace in (${USER_NAMESPACES}) order by 1`,
    )
  ).rows.map((r) => r.name);
  for (const seq of sequences) {
    const { rows } = await pglite.query<{ last_value: string; is_called: boolean }>(`select last_value::text, is_called from ${seq}`);
    restore.push(`select setval(${quoteLiteral(seq)}, ${rows[0]!.last_value}, ${rows[0]!.is_called})`);
  }
  const { rows: stats } = await pglite.query<{ n: number }>(
    `select count(*)::int as n from pg_statistic s join pg_class c on c.oid = s.starelid where c.relnamespace in (${USER_NAMESPACES})`,
  );
  if (stats[0]!.n === 0)
    restore.push(`delete from pg_statistic where starelid in (select oid from pg_class where relnamespace in (${USER_NAMESPACES}))`);
  // TRUNCATE gives every table and index new, empty files and sets their size and row estimate to "never counted"
  // (0 pages, -1 rows); the template's indexes say 1 page, 0 rows. The planner reads these: put them back.
  const { rows: sizes } = await pglite.query<{ v: string }>(
    `select string_agg(format('(%L::regclass, %s, %s::real, %s)', c.oid::regclass::text, c.relpages, c.reltuples, c.relallvisible), ', ') as v
     from pg_class c where c.relkind in ('r', 'p', 'i', 'm') and c.relnamespace in (${USER_NAMESPACES})`,
  );
  if (sizes[0]?.v)
    restore.push(
      `update pg_class c set relpages = v.pages, reltuples = v.tuples, relallvisible = v.visible
       from (values ${sizes[0].v}) v(oid, pages, tuples, visible) where c.oid = v.oid`,
    );
  const resetSql = [
    'begin',
    // The template's rows go back as they were: no foreign key or trigger fires on them.
    'set local session_replication_role = replica',
    ...(tables.length ? [`truncate ${tables.join(', ')} restart identity cascade`] : []),
    ...restore,
    'commit',
  ].join(';\n');
  return { fingerprint: await fingerprint(pglite), resetSql };
}

const closedError = () => new Error('PGlite is closed');

interface Entry {
  opened: Opened;
  /** A test closed it or left it unusable: it is closed, never reused. */
  broken: boolean;
}

/** The instance a test env's `database.pglite` stands for (the pool's own tests check which one they got). */
const leased = new WeakMap<object, PGlite>();
export function instanceOf(lease: object): PGlite | undefined {
  return leased.get(lease);
}

export interface PoolOptions {
  /** How many clean instances wait for the next env; an env released beyond that is closed. */
  maxIdle?: number;
  /** Only the pool's own test turns it off, to show that its equality check sees a reuse without the reset. */
  reset?: boolean;
  /** How long a reset may take before the instance is given up (a statement a test left running holds PGlite). */
  resetTimeoutMs?: number;
}

export class PglitePool {
  private readonly idle: Entry[] = [];
  private clean?: Promise<{ fingerprint: string; resetSql: string }>;
  /** What happened to released instances (the pool's test reads it). */
  readonly counts = { opened: 0, reused: 0, dropped: 0 };

  private readonly open: () => Promise<Opened>;
  private readonly opts: PoolOptions;

  constructor(open: () => Promise<Opened>, opts: PoolOptions = {}) {
    this.open = open;
    this.opts = opts;
  }

  /** A database equal to a fresh copy of the template: a clean one of the pool, or a new one loaded from the dump. */
  async take(): Promise<Database> {
    let entry = this.idle.pop();
    if (entry) this.counts.reused++;
    else {
      const opened = await this.open();
      this.counts.opened++;
      // Read from the first instance, before any test touched it.
      this.clean ??= readClean(opened.pglite!);
      await this.clean;
      entry = { opened, broken: false };
    }
    return this.lease(entry);
  }

  /** Closes the instances waiting in the pool (the pool's own test; a worker process simply exits with them). */
  async drain(): Promise<void> {
    for (const e of this.idle.splice(0)) await e.opened.close().catch(() => {});
  }

  /**
   * The env's view of the instance: the same PGlite, except that after the env's close every call fails as on a
   * closed PGlite (a timer or job of the finished file must not write into the next file's database), its listeners
   * are removed, and `close()` by a test really closes the instance, which the pool then drops.
   */
  private lease(entry: Entry): Database {
    const raw = entry.opened.pglite!;
    let released = false;
    const unlistens = new Set<() => Promise<void>>();
    const handlers = new Set<() => void>();
    const lease = new Proxy(raw, {
      get(target, prop) {
        if (prop === 'closed') return released || target.closed;
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        const fn = value as (...args: unknown[]) => unknown;
        if (prop === 'close')
          return async () => {
            entry.broken = true;
            if (!target.closed) await target.close();
          };
        if (prop === 'listen')
          return async (channel: string, cb: (payload: string) => void, tx?: unknown) => {
            if (released) throw closedError();
            const unlisten = await target.listen(channel, cb, tx as never);
            const once = async (t?: unknown) => {
              unlistens.delete(once);
              await unlisten(t as never);
            };
            unlistens.add(once);
            return once;
          };
        if (prop === 'onNotification')
          return (cb: (channel: string, payload: string) => void) => {
            if (released) throw closedError();
            const off = target.onNotification(cb);
            handlers.add(off);
            return () => {
              handlers.delete(off);
              off();
            };
          };
        return (...args: unknown[]) => {
          if (released) return Promise.reject(closedError());
          return fn.apply(target, args);
        };
      },
    });
    leased.set(lease, raw);
    const release = async () => {
      if (released) return;
      released = true;
      // The JavaScript side of LISTEN: callbacks the env did not remove would hear the next env's notifications.
      for (const off of handlers) off();
      for (const unlisten of [...unlistens]) await unlisten().catch(() => (entry.broken = true));
      await this.giveBack(entry);
    };
    return { db: drizzlePglite(lease, { schema }) as unknown as Db, kind: 'pglite', pglite: lease, close: release };
  }

  private async giveBack(entry: Entry): Promise<void> {
    const raw = entry.opened.pglite!;
    let clean = !entry.broken && !raw.closed && !raw.isInTransaction() && this.idle.length < (this.opts.maxIdle ?? 2);
    if (clean) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.opts.resetTimeoutMs ?? 10_000)));
      clean = await Promise.race([this.reset(raw), timedOut]).catch(() => false);
      clearTimeout(timer);
    }
    if (clean) {
      this.idle.push(entry);
      return;
    }
    this.counts.dropped++;
    if (!raw.closed) void entry.opened.close().catch(() => {});
  }

  /** Puts the instance back to the template's state; false when its catalog is not the template's (never reused). */
  private async reset(raw: PGlite): Promise<boolean> {
    const clean = await this.clean!;
    if (this.opts.reset !== false) {
      await raw.exec(clean.resetSql);
      // Session state: settings, prepared statements, temporary tables, LISTEN, advisory locks, cached sequence values.
      await raw.exec('discard all');
    }
    return (await fingerprint(raw)) === clean.fingerprint;
  }
}
