// The embedded database's own thread (decision 115): PGlite runs here, so its synchronous WebAssembly work never
// holds the main thread's event loop. The main thread (db/pglite-thread.ts) sends statements, transaction steps,
// LISTEN subscriptions and backup requests as messages; each answer or error goes back under the request's id.
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { TurnQueue, yieldBeforeEachTurn } from './pglite-turns.ts';
import { PreparedStatements } from './pglite-thread.prepared.ts';
import type { FromWorker, ThreadMemory, ToWorker, WireQueryOptions, WireError } from './pglite-thread.ts';

const port = parentPort!;
const { dataDir, options } = workerData as { dataDir?: string; options?: PGliteOptions };

const send = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** Only plain values cross the thread boundary: PGlite attaches the query's options (functions) to its errors. */
function wireError(err: unknown): WireError {
  const e = (err ?? {}) as Record<string, unknown>;
  const fields: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(e)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
  return { message: String(e.message ?? err), name: String(e.name ?? 'Error'), fields };
}

/** Drizzle's only parsers keep the text as it is (dates, intervals, numeric arrays): they are rebuilt here. */
function queryOptions(o?: WireQueryOptions): QueryOptions | undefined {
  if (!o) return undefined;
  const { identityParsers, ...rest } = o;
  if (!identityParsers?.length) return rest as QueryOptions;
  return { ...rest, parsers: Object.fromEntries(identityParsers.map((oid) => [oid, (v: string) => v])) } as QueryOptions;
}

/** The part of a result the caller reads; a WebAssembly abort means this PGlite is unusable: the thread exits and is restarted. */
const plain = (r: Results) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows });

const pglite = new PGlite({ ...options, ...(dataDir ? { dataDir } : {}) });
/** Statements with parameters are parsed once under a name, then bound and executed (decision 148). */
const prepared = new PreparedStatements(pglite);

/**
 * What the bench reads (`stats`): how long top-level statements took in the thread, queue included, how long
 * transactions held PGlite, and how many statements each transaction ran (decision 148: each is a round trip between
 * the threads while the transaction holds the only connection).
 */
const timings = {
  statement: [] as number[],
  urgentStatement: [] as number[],
  transaction: [] as number[],
  transactionStatements: [] as number[],
};
const note = (list: number[], ms: number) => {
  if (list.length < 100_000) list.push(ms);
};
const summary = (list: number[]) => {
  const s = [...list].sort((a, b) => a - b);
  const at = (p: number) => Math.round((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0) * 10) / 10;
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: at(1) };
};
/** Persons' statements before queued background work (decision 164); statements inside a transaction hold its turn. */
const turns = new TurnQueue();
/** An open transaction: its end, how many statements it ran, and its first (what it is, for `holders`). */
type OpenTx = { tx: Transaction; end: (commit: boolean) => void; statements: number; first?: string };
const txs = new Map<number, OpenTx>();
/**
 * Transactions by their first statement (what they are: a refresh batch locks its rows first, a delivery claims its
 * notifications), how many, how long they held PGlite in all and at most, and their statements: which background work
 * a person's statement waited behind (decision 177).
 */
const holders = new Map<string, { n: number; totalMs: number; maxMs: number; statements: number }>();
function noteHolder(first: string | undefined, ms: number, statements: number) {
  const key = (first ?? '(none)').replace(/\s+/g, ' ').trim().slice(0, 100);
  const h = holders.get(key) ?? { n: 0, totalMs: 0, maxMs: 0, statements: 0 };
  if (!holders.has(key) && holders.size >= 200) return;
  holders.set(key, { n: h.n + 1, totalMs: h.totalMs + ms, maxMs: Math.max(h.maxMs, ms), statements: h.statements + statements });
}
const topHolders = () =>
  [...holders]
    .sort((a, b) => b[1].totalMs - a[1].totalMs)
    .slice(0, 8)
    .map(([first, h]) => ({
      first,
      n: h.n,
      totalMs: Math.round(h.totalMs),
      maxMs: Math.round(h.maxMs),
      statementsEach: Math.round(h.statements / h.n),
    }));
const unlisten = new Map<string, () => Promise<void>>();

function fail(id: number, err: unknown) {
  send({ id, ok: false, error: wireError(err) });
  // A WebAssembly trap (RuntimeError: an abort, out of memory) leaves this PGlite unusable: exit, and the main thread
  // reopens the data directory in a new thread.
  if ((err as Error | undefined)?.name === 'RuntimeError') process.exit(70);
}

/**
 * Where a statement runs: PGlite itself, or the open transaction it names (counted in that transaction's statements,
 * the first one kept to name it in the stats). A transaction that has ended refuses it.
 */
function target(m: { tx?: number; sql: string }): { q: PGlite | Transaction; open: OpenTx | undefined } {
  const open = m.tx ? txs.get(m.tx) : undefined;
  const q = m.tx ? open?.tx : pglite;
  if (!q) throw new Error('the transaction has ended');
  if (open) {
    open.statements++;
    open.first ??= m.sql;
  }
  return { q, open };
}

/** A statement on its own or in an open transaction; one with parameters as a prepared statement (decision 148). */
async function query(m: Extract<ToWorker, { t: 'query' }>): Promise<void> {
  const { q, open } = target(m);
  const t0 = performance.now();
  const options = queryOptions(m.options);
  const release = m.tx ? undefined : await turns.take(!!m.urgent);
  let value;
  try {
    value = plain(
      PreparedStatements.handles(m.params, options)
        ? await prepared.query(m.sql, m.params!, options, !!open)
        : await q.query(m.sql, m.params, options),
    );
  } finally {
    release?.();
  }
  if (!m.tx) note(m.urgent ? timings.urgentStatement : timings.statement, performance.now() - t0);
  send({ id: m.id, ok: true, value });
}

/**
 * A transaction holds PGlite's turn until the main thread ends it; other statements queue behind it exactly as they
 * do on an in-thread PGlite. Its outcome (commit, or the error of COMMIT) answers `end`.
 */
async function begin(id: number, urgent: boolean): Promise<void> {
  let begun = false;
  const release = await turns.take(urgent);
  const done = pglite
    .transaction(async (tx) => {
      const open: OpenTx = { tx, end: () => {}, statements: 0 };
      const outcome = new Promise<boolean>((resolve) => txs.set(id, Object.assign(open, { end: resolve })));
      begun = true;
      const t0 = performance.now();
      send({ id, ok: true, value: null });
      const commit = await outcome;
      note(timings.transaction, performance.now() - t0);
      note(timings.transactionStatements, open.statements);
      noteHolder(open.first, performance.now() - t0, open.statements);
      if (!commit) throw ROLLBACK;
    })
    .finally(() => {
      txs.delete(id);
      release();
    });
  done.then(
    () => endReply.get(id)?.(null),
    (err) => (begun ? endReply.get(id)?.(err === ROLLBACK ? null : err) : fail(id, err)),
  );
}

/** The thread's statement and transaction timings (and its prepared statements), emptied after when `reset`. */
function stats(reset: boolean | undefined) {
  const value = {
    statement: summary(timings.statement),
    urgentStatement: summary(timings.urgentStatement),
    transaction: summary(timings.transaction),
    transactionStatements: summary(timings.transactionStatements),
    prepared: prepared.prepared,
    holders: topHolders(),
  };
  if (reset) holders.clear();
  if (reset)
    timings.statement.length = timings.urgentStatement.length = timings.transaction.length = timings.transactionStatements.length = 0;
  return value;
}

/** The thread's own memory and PGlite's WebAssembly memory; after a full collection when `gc`. */
function memory(gc: boolean | undefined): ThreadMemory {
  if (gc) {
    // A full collection without starting node with --expose-gc (the soak reads what is still referenced).
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
  }
  const u = process.memoryUsage();
  const mod = (pglite as unknown as { mod?: { HEAPU8?: Uint8Array } }).mod;
  return {
    rss: u.rss,
    heapTotal: u.heapTotal,
    heapUsed: u.heapUsed,
    external: u.external,
    arrayBuffers: u.arrayBuffers,
    wasmMemory: mod?.HEAPU8?.buffer.byteLength ?? 0,
  };
}

async function handle(m: ToWorker): Promise<void> {
  switch (m.t) {
    case 'query':
      return query(m);
    case 'exec': {
      const { q } = target(m);
      const release = m.tx ? undefined : await turns.take(!!m.urgent);
      try {
        send({ id: m.id, ok: true, value: (await q.exec(m.sql, queryOptions(m.options))).map(plain) });
      } finally {
        release?.();
      }
      return;
    }
    case 'begin':
      return begin(m.id, !!m.urgent);
    case 'end': {
      const t = txs.get(m.tx);
      if (!t) return void send({ id: m.id, ok: true, value: null });
      endReply.set(m.tx, (err) => {
        endReply.delete(m.tx);
        if (err) fail(m.id, err);
        else send({ id: m.id, ok: true, value: null });
      });
      t.end(m.commit);
      return;
    }
    case 'listen': {
      if (!unlisten.has(m.channel))
        unlisten.set(m.channel, await pglite.listen(m.channel, (payload) => send({ t: 'notify', channel: m.channel, payload })));
      send({ id: m.id, ok: true, value: null });
      return;
    }
    case 'unlisten': {
      const stop = unlisten.get(m.channel);
      unlisten.delete(m.channel);
      await stop?.();
      send({ id: m.id, ok: true, value: null });
      return;
    }
    case 'dump': {
      const file = await pglite.dumpDataDir(m.compression);
      const bytes = await file.arrayBuffer();
      send({ id: m.id, ok: true, value: bytes }, [bytes]);
      return;
    }
    case 'stats':
      return void send({ id: m.id, ok: true, value: stats(m.reset) });
    case 'memory':
      return void send({ id: m.id, ok: true, value: memory(m.gc) });
    case 'close': {
      await pglite.close();
      send({ id: m.id, ok: true, value: null });
      return;
    }
  }
}

const ROLLBACK = new Error('rollback');
const endReply = new Map<number, (err: unknown) => void>();

port.on('message', (m: ToWorker) => {
  handle(m).catch((err) => fail(m.id, err));
});

try {
  await pglite.waitReady;
  yieldBeforeEachTurn(pglite);
  send({ t: 'ready' });
} catch (err) {
  send({ t: 'failed', error: wireError(err) });
  process.exit(1);
}
