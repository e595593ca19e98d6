// The embedded database in its own thread (decision 115). PGlite runs every statement synchronously in the thread
// that owns it; on the main thread that held a person's request behind background work (issue 29). Here a
// worker_threads Worker owns PGlite (db/pglite-thread.worker.ts) and this class stands in for it on the main thread
// with the part of PGlite's API the application uses: Drizzle's pglite driver (query, exec, transaction), pg-boss's
// fromPglite adapter (query, exec, listen, onLeaderChange) and the bus and backup (listen, dumpDataDir).
//
// A statement's error comes back with PostgreSQL's fields (code, constraint, detail, ...), so db/errors.ts reads it
// as before. If the thread dies, every call in flight fails (none of them was acknowledged), a new thread opens the
// same data directory (PostgreSQL's crash recovery, as after a kill -9, decision 112) and calls wait for it.
import { Worker } from 'node:worker_threads';
import type { PGliteOptions, QueryOptions, Results, Transaction } from '@electric-sql/pglite';
import { DATABASE_THREAD_YOUNG_GENERATION_MB, limitHeapGrowth } from './heap.ts';

export interface WireQueryOptions {
  rowMode?: 'array' | 'object';
  /** OIDs whose parser returns the text unchanged (the only parsers Drizzle passes). */
  identityParsers?: number[];
}
export interface WireError {
  message: string;
  name: string;
  fields: Record<string, string | number | boolean>;
}
type Id = { id: number };
export type ToWorker = Id &
  (
    | { t: 'query'; tx?: number; sql: string; params?: unknown[]; options?: WireQueryOptions; urgent?: boolean }
    | { t: 'exec'; tx?: number; sql: string; options?: WireQueryOptions; urgent?: boolean }
    | { t: 'begin'; urgent?: boolean }
    | { t: 'end'; tx: number; commit: boolean }
    | { t: 'listen'; channel: string }
    | { t: 'unlisten'; channel: string }
    | { t: 'dump'; compression: 'gzip' | 'none' | 'auto' }
    | { t: 'stats'; reset: boolean }
    | { t: 'memory'; gc: boolean }
    | { t: 'close' }
  );
export type FromWorker =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError }
  | { t: 'notify'; channel: string; payload: string }
  | { t: 'ready' }
  | { t: 'failed'; error: WireError };

/** An error from the database thread, with PostgreSQL's fields (`code`, `constraint`, `detail`, ...) as PGlite gave them. */
function fromWire(w: WireError): Error {
  const err = new Error(w.message);
  Object.assign(err, w.fields);
  err.name = w.name;
  return err;
}

function wireOptions(o?: QueryOptions): WireQueryOptions | undefined {
  if (!o) return undefined;
  const { parsers, ...rest } = o as QueryOptions & Record<string, unknown>;
  for (const [k, v] of Object.entries(rest))
    if (typeof v === 'function') throw new Error(`query option ${k} cannot cross to the database thread`);
  const identityParsers = parsers ? Object.keys(parsers).map(Number) : undefined;
  return { ...(rest as WireQueryOptions), ...(identityParsers?.length ? { identityParsers } : {}) };
}

/**
 * The database thread's own memory (`PGliteThread.memory()`): its V8 isolate's figures from `process.memoryUsage()` in
 * the thread (rss is the whole process's) and the size of PGlite's WebAssembly memory, an ArrayBuffer inside `external`
 * and `arrayBuffers` that grows when PostgreSQL needs more and never shrinks. Bytes.
 */
export interface ThreadMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  wasmMemory: number;
}

export interface ThreadState {
  /** 'ready', 'starting' (the first open or a restart) or 'closed'. */
  state: 'starting' | 'ready' | 'closed';
  restarts: number;
  /** Why the last thread stopped, when one did. */
  lastExit?: string;
}

export interface PGliteThreadOptions {
  /** PGlite's directory; undefined for an in-memory database. */
  dataDir?: string;
  /** Cloneable PGlite options (loadDataDir, a compiled pgliteWasmModule, ...). */
  options?: PGliteOptions;
  /**
   * Whether the statement or transaction being sent serves a person (an HTTP request) rather than background work:
   * asked when it is sent, in the caller's context; urgent ones take the database's next turn first (decision 164).
   */
  urgent?: () => boolean;
  /** Told when the thread stopped unexpectedly, and when its successor is ready. */
  onEvent?: (
    e:
      | { kind: 'died'; reason: string; restarts: number }
      | { kind: 'restarted'; restarts: number; ms: number }
      | { kind: 'restart-failed'; reason: string },
  ) => void;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class PGliteThread {
  private worker!: Worker;
  private generation = 0;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private listeners = new Map<string, Set<(payload: string) => void>>();
  private restartListeners = new Set<() => void>();
  private ready!: Promise<void>;
  private closing = false;
  readonly status: ThreadState = { state: 'starting', restarts: 0 };
  /** Resolves once the first thread has opened the database; rejects if it could not. */
  readonly waitReady: Promise<void>;

  private readonly opts: PGliteThreadOptions;

  constructor(opts: PGliteThreadOptions) {
    this.opts = opts;
    this.waitReady = this.start(opts.options).then(() => {
      if (!this.closing) this.status.state = 'ready';
    });
  }

  private start(options: PGliteOptions | undefined): Promise<void> {
    const gen = ++this.generation;
    limitHeapGrowth();
    const worker = new Worker(new URL('./pglite-thread.worker.ts', import.meta.url), {
      workerData: { dataDir: this.opts.dataDir, options },
      // Its garbage is rows, dead as soon as they are sent: a small young generation collects them cheaply (decision 156).
      resourceLimits: { maxYoungGenerationSizeMb: DATABASE_THREAD_YOUNG_GENERATION_MB },
    });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromWorker) => {
        if ('t' in m) {
          if (m.t === 'ready') return resolve();
          if (m.t === 'failed') return reject(fromWire(m.error));
          if (m.t === 'notify') for (const fn of [...(this.listeners.get(m.channel) ?? [])]) fn(m.payload);
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.value);
        else p.reject(fromWire(m.error));
      });
      worker.on('error', (err) => {
        this.status.lastExit = err.message;
        reject(err);
      });
      worker.on('exit', (code) => {
        reject(new Error(`the database thread exited (code ${code}) before it was ready`));
        if (gen === this.generation) this.died(code);
      });
    });
    return this.ready;
  }

  /** The thread stopped while in use: fail what was in flight (unacknowledged) and open the data directory again. */
  private died(code: number): void {
    const reason = this.status.lastExit ?? `exit code ${code}`;
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) p.reject(new Error(`the database thread stopped (${reason}); the statement's outcome is unknown`));
    if (this.closing || this.status.state !== 'ready') return;
    if (!this.opts.dataDir) {
      // An in-memory database cannot be reopened: a new one would be silently empty.
      this.status.state = 'closed';
      this.status.lastExit = reason;
      this.closing = true;
      return;
    }
    this.status.state = 'starting';
    this.status.restarts++;
    this.opts.onEvent?.({ kind: 'died', reason, restarts: this.status.restarts });
    void this.restart(250);
  }

  private async restart(backoffMs: number): Promise<void> {
    const t0 = performance.now();
    this.status.lastExit = undefined;
    try {
      // The directory holds the database now: never load the initial dump over it again.
      await this.start({ ...this.opts.options, loadDataDir: undefined });
      for (const channel of this.listeners.keys()) await this.call({ t: 'listen', channel });
      if (this.closing) return;
      this.status.state = 'ready';
      this.opts.onEvent?.({ kind: 'restarted', restarts: this.status.restarts, ms: Math.round(performance.now() - t0) });
      for (const fn of [...this.restartListeners]) fn();
    } catch (err) {
      if (this.closing) return;
      this.opts.onEvent?.({ kind: 'restart-failed', reason: (err as Error).message });
      this.status.state = 'starting';
      setTimeout(() => void this.restart(Math.min(backoffMs * 2, 10_000)), backoffMs).unref();
    }
  }

  private async call<T>(m: DistributiveOmit<ToWorker, 'id'>, id = this.nextId++): Promise<T> {
    await this.ready.catch((err: Error) => {
      if (this.closing || this.status.restarts === 0) throw err;
      return this.waitForRestart();
    });
    if (this.closing && m.t !== 'close') throw new Error('the database is closed');
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.worker.postMessage({ ...m, id });
      } catch (err) {
        this.pending.delete(id);
        reject(err as Error);
      }
    });
  }

  private async waitForRestart(): Promise<void> {
    for (;;) {
      if (this.closing) throw new Error('the database is closed');
      const r = this.ready;
      const ok = await r.then(
        () => true,
        () => false,
      );
      if (ok) return;
      if (r === this.ready) await new Promise((res) => setTimeout(res, 100));
    }
  }

  /** `{ urgent: true }` when the caller serves a person (decision 164); nothing otherwise, so messages stay small. */
  private priority(): { urgent?: true } {
    return this.opts.urgent?.() ? { urgent: true } : {};
  }

  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.call({ t: 'query', sql, params, options: wireOptions(options), ...this.priority() });
  }

  exec(sql: string, options?: QueryOptions): Promise<Array<Results>> {
    return this.call({ t: 'exec', sql, options: wireOptions(options), ...this.priority() });
  }

  /** An interactive transaction: it holds the database's turn in its thread until `fn` settles, as on PGlite. */
  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const gen = this.generation;
    const txId = this.nextId++;
    await this.call({ t: 'begin', ...this.priority() }, txId);
    let closed = false;
    const live = () => {
      if (closed) throw new Error('the transaction has ended');
      if (gen !== this.generation) throw new Error('the database thread restarted; the transaction was rolled back');
    };
    const tx = {
      query: <R>(sql: string, params?: unknown[], options?: QueryOptions) => (
        live(),
        this.call<Results<R>>({ t: 'query', tx: txId, sql, params, options: wireOptions(options) })
      ),
      exec: (sql: string, options?: QueryOptions) => (
        live(),
        this.call<Results[]>({ t: 'exec', tx: txId, sql, options: wireOptions(options) })
      ),
      rollback: async () => {
        live();
        closed = true;
        await this.call({ t: 'end', tx: txId, commit: false });
      },
      get closed() {
        return closed;
      },
    } as unknown as Transaction;
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      if (!closed && gen === this.generation) {
        closed = true;
        await this.call({ t: 'end', tx: txId, commit: false }).catch(() => {});
      }
      throw err;
    }
    if (closed) return result;
    closed = true;
    await this.call({ t: 'end', tx: txId, commit: true });
    return result;
  }

  /** LISTEN on `channel`; kept across a restart of the thread. Returns the UNLISTEN. */
  async listen(channel: string, fn: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      await this.call({ t: 'listen', channel });
    }
    set.add(fn);
    return async () => {
      set.delete(fn);
      if (set.size === 0 && this.listeners.get(channel) === set) {
        this.listeners.delete(channel);
        await this.call({ t: 'unlisten', channel }).catch(() => {});
      }
    };
  }

  /** pg-boss's hook for "the session was replaced" (its adapter fails what was in flight and reapplies its session settings). */
  onLeaderChange(fn: () => void): () => void {
    this.restartListeners.add(fn);
    return () => void this.restartListeners.delete(fn);
  }

  /** Called after a restart of the thread (the bus tells its streams that messages may have been lost). */
  onRestart(fn: () => void): () => void {
    return this.onLeaderChange(fn);
  }

  /** A tar of the data directory taken in the thread between two statements (db/backup.ts). */
  async dumpDataDir(compression: 'gzip' | 'none' | 'auto' = 'auto'): Promise<Blob> {
    const bytes = await this.call<ArrayBuffer>({ t: 'dump', compression });
    return new Blob([bytes]);
  }

  /**
   * How long top-level statements took in the thread (from their arrival, the queue for PGlite's turn included; a
   * person's, `urgentStatement`, apart from the background's, decision 164) and
   * how long transactions held PGlite, since the last reset: ms, p50 / p99 / max; and how many statements each
   * transaction ran (`transactionStatements`: counts, not ms), and how many statements the thread has prepared since
   * it started (`prepared`, never reset: db/pglite-thread.prepared.ts). The bench reads them; tests count them.
   */
  stats(reset = false): Promise<
    Record<
      'statement' | 'urgentStatement' | 'transaction' | 'transactionStatements',
      { n: number; p50: number; p99: number; max: number }
    > & {
      prepared: number;
      /** The transactions that held PGlite longest in all, by their first statement (decision 177). */
      holders: Array<{ first: string; n: number; totalMs: number; maxMs: number; statementsEach: number }>;
    }
  > {
    return this.call({ t: 'stats', reset });
  }

  /** The thread's memory (the soak's breakdown, decision 156); `gc` first runs a full collection in the thread. */
  memory(gc = false): Promise<ThreadMemory> {
    return this.call({ t: 'memory', gc });
  }

  /** The thread's V8 heap figures; `external_memory` includes PGlite's WebAssembly memory (tests, decision 144). */
  heapStatistics(): ReturnType<Worker['getHeapStatistics']> {
    return this.worker.getHeapStatistics();
  }

  async close(): Promise<void> {
    if (this.closing) return;
    try {
      await this.call({ t: 'close' });
    } finally {
      this.closing = true;
      this.status.state = 'closed';
      await this.worker.terminate();
    }
  }

  /** Kills the thread as a crash would (tests). */
  async crash(): Promise<void> {
    await this.worker.terminate();
  }
}
