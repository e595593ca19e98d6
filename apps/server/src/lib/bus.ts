import { randomBytes } from 'node:crypto';
import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Queryable } from '../db/client.ts';

/**
 * One cross-process signal for every process on the same database: PostgreSQL LISTEN/NOTIFY on one
 * dedicated connection per process, or PGlite's own listen/notify in the embedded database.
 *
 * Publishing is a `pg_notify` issued on the caller's connection, ideally inside the transaction that makes
 * the change: PostgreSQL delivers it only when that transaction commits, so a rolled-back change never
 * notifies and a listener that reacts can already read the committed rows. A message is a topic and a small
 * JSON body (ids and short fields: NOTIFY refuses payloads of 8000 bytes or more).
 *
 * Topics let other consumers share the connection: `live` carries the events of the signed-in users'
 * streams; `auth` (a token revoked) and `jobs` (work committed) are for caches and workers.
 */
export const BUS_CHANNEL = 'shiptrail_bus';

export type BusTopic = 'live' | 'auth' | 'jobs';

export interface BusMessage<T = Record<string, unknown>> {
  topic: BusTopic;
  /** Unique across processes: made by the publisher, so every process sees the same id. */
  id: string;
  data: T;
}

/** Payloads must stay below PostgreSQL's NOTIFY limit; ours are a few hundred bytes. */
const MAX_PAYLOAD = 7900;

let seq = 0;
const processTag = randomBytes(3).toString('hex');
/** Time-ordered within a process and unique across processes. */
export function newMessageId(): string {
  seq = (seq + 1) % 1_679_616;
  return `${Date.now().toString(36)}-${processTag}-${seq.toString(36)}`;
}

/**
 * Publish on `db`: the database (sent at once) or an open transaction (sent when it commits, dropped if it
 * rolls back). Costs one small statement.
 */
export async function publish(db: Queryable, topic: BusTopic, data: Record<string, unknown>): Promise<void> {
  await db.execute(sql`select ${notifySql(topic, data)}`);
}

/** The `pg_notify(...)` call that publishes a message, for a statement that does more (one round trip instead of two). */
export function notifySql(topic: BusTopic, data: Record<string, unknown>): SQL {
  return notifyMessageSql(busMessage(topic, data));
}

/** A message as the text `pg_notify` sends (a new id each call). */
function busMessage(topic: BusTopic, data: Record<string, unknown>): string {
  const payload = JSON.stringify({ topic, id: newMessageId(), data } satisfies BusMessage);
  if (payload.length > MAX_PAYLOAD) throw new Error(`bus message too large (${payload.length} bytes) on topic ${topic}`);
  return payload;
}

/**
 * Several messages as one `pg_notify` text (a JSON array of messages, each with its new id, in this order), which
 * every listener dispatches one by one as if each had been sent alone (decision 187): one notification for a
 * statement that announces several things (the add: the balance, the tracking, the scheduler's wake), so the server
 * queues and delivers one and each process's listener reads one. A process older than decision 187 ignores such a
 * text (it has no topic): during a rolling upgrade its streams miss those events until their next refetch.
 */
export function busMessages(messages: Array<{ topic: BusTopic; data: Record<string, unknown> }>): string {
  const texts = gathered(messages);
  if (texts.length !== 1) throw new Error(`bus messages too large for one notification: ${messages.length} messages`);
  return texts[0]!;
}

/**
 * The `pg_notify(...)` call that sends `message` (a message's text), or the placeholder of a statement built once
 * (StatementOnce) where each request binds its busMessages.
 */
export function notifyMessageSql(message: string | Placeholder): SQL {
  return sql`pg_notify(${BUS_CHANNEL}, ${message})`;
}

export type BusHandler = (m: BusMessage) => void;

export interface Bus {
  /** Call `fn` for every message of `topic` from any process (this one included); returns the unsubscribe. */
  subscribe(topic: BusTopic, fn: BusHandler): () => void;
  /**
   * Send `messages` soon, after work that has committed (decision 190): this process's messages of the next
   * SEND_WINDOW_MS go together in one notification (several if they exceed NOTIFY's limit), in order, each with its
   * own id. Hints only: a process that dies before it sends them loses them (pages catch up at their next refetch, the
   * scheduler at its next tick).
   */
  sendSoon(messages: Array<{ topic: BusTopic; data: Record<string, unknown> }>): void;
  /** How many handlers are subscribed (tests check a closed stream lets go of its handler). */
  handlerCount(topic?: BusTopic): number;
  close(): Promise<void>;
}

type Dispatch = (raw: string) => void;

/** Tells every handler that messages may have been lost: streams refetch, token caches forget everything. */
function dispatchResets(dispatch: Dispatch) {
  dispatch(JSON.stringify({ topic: 'live', id: newMessageId(), data: { kind: 'reset' } } satisfies BusMessage));
  dispatch(JSON.stringify({ topic: 'auth', id: newMessageId(), data: { kind: 'reset' } } satisfies BusMessage));
}

/** Listens on the embedded database; returns how to stop. */
async function listenPglite(database: Database, dispatch: Dispatch): Promise<() => Promise<void>> {
  const unlisten = await database.pglite!.listen(BUS_CHANNEL, dispatch);
  // The database thread (decision 115) re-listens when it is restarted; what was sent meanwhile is lost, as on a
  // reconnect to PostgreSQL below.
  const offRestart = database.thread?.onRestart(() => dispatchResets(dispatch));
  return () => {
    offRestart?.();
    return unlisten().catch(() => {});
  };
}

/** Listens on a PostgreSQL connection of its own, reopened with backoff when lost; returns how to stop. */
async function listenPostgres(database: Database, log: FastifyBaseLogger, dispatch: Dispatch): Promise<() => Promise<void>> {
  let closed = false;
  let client: pg.Client | null = null;
  let retryMs = 250;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (isReconnect: boolean): Promise<void> => {
    const c = new pg.Client({ connectionString: database.url });
    c.on('notification', (n) => n.payload && dispatch(n.payload));
    c.on('error', (err) => log.warn({ err }, 'bus connection error'));
    c.on('end', () => {
      if (closed || client !== c) return;
      client = null;
      timer = setTimeout(() => void connect(true).catch(() => {}), retryMs);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${BUS_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => {});
      if (!isReconnect) throw err;
      retryMs = Math.min(retryMs * 2, 10_000);
      log.warn({ err }, 'bus reconnect failed; retrying');
      timer = setTimeout(() => void connect(true).catch(() => {}), retryMs);
      return;
    }
    if (closed) return void (await c.end().catch(() => {}));
    client = c;
    retryMs = 250;
    // Messages sent while the connection was down are lost: streams tell their clients to refetch, and the token
    // caches forget everything (a revocation may have been among them).
    if (isReconnect) dispatchResets(dispatch);
  };
  await connect(false);
  return async () => {
    closed = true;
    clearTimeout(timer);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}

/**
 * Start this process's listener. On PostgreSQL a lost listening connection is reopened with backoff; the
 * messages sent while it was down are lost, so every handler gets a `reset` message on `live` after a
 * reconnect and may tell its clients to refetch.
 */
export async function createBus(database: Database, log: FastifyBaseLogger): Promise<Bus> {
  const handlers = new Map<BusTopic, Set<BusHandler>>();
  const dispatch = (raw: string) => {
    let parsed: BusMessage | BusMessage[];
    try {
      parsed = JSON.parse(raw) as BusMessage | BusMessage[];
    } catch {
      return;
    }
    // Several messages in one notification (busMessages): each in turn, as if sent alone.
    if (Array.isArray(parsed)) {
      for (const m of parsed) if (m && typeof m === 'object') dispatchOne(m);
    } else if (parsed && typeof parsed === 'object') dispatchOne(parsed);
  };
  const dispatchOne = (m: BusMessage) => {
    const set = handlers.get(m.topic);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        fn(m);
      } catch (err) {
        log.error({ err, topic: m.topic }, 'bus handler failed');
      }
    }
  };

  const stop = database.kind === 'pglite' ? await listenPglite(database, dispatch) : await listenPostgres(database, log, dispatch);
  const sender = createSender(database, log);

  return {
    subscribe(topic, fn) {
      let set = handlers.get(topic);
      if (!set) handlers.set(topic, (set = new Set()));
      set.add(fn);
      return () => void set.delete(fn);
    },
    handlerCount(topic) {
      if (topic) return handlers.get(topic)?.size ?? 0;
      let n = 0;
      for (const s of handlers.values()) n += s.size;
      return n;
    },
    sendSoon: sender.sendSoon,
    async close() {
      await sender.flush();
      handlers.clear();
      await stop();
    },
  };
}

/** How long sendSoon gathers a process's messages before it sends them (decision 190). */
export const SEND_WINDOW_MS = 2;

/** The notifications sendSoon makes of `messages`: in order, each with a new id, as few JSON arrays as fit under NOTIFY's limit. */
export function gathered(messages: Array<{ topic: BusTopic; data: Record<string, unknown> }>): string[] {
  const texts: string[] = [];
  let part: string[] = [];
  let size = 2;
  for (const { topic, data } of messages) {
    const text = JSON.stringify({ topic, id: newMessageId(), data } satisfies BusMessage);
    if (text.length + 2 > MAX_PAYLOAD) throw new Error(`bus message too large (${text.length} bytes) on topic ${topic}`);
    if (part.length && size + text.length + 1 > MAX_PAYLOAD) {
      texts.push(`[${part.join(',')}]`);
      part = [];
      size = 2;
    }
    part.push(text);
    size += text.length + 1;
  }
  if (part.length) texts.push(`[${part.join(',')}]`);
  return texts;
}

/** sendSoon's side: the window's messages, sent by one statement each notification, outside any transaction. */
function createSender(database: Database, log: FastifyBaseLogger) {
  let pending: Array<{ topic: BusTopic; data: Record<string, unknown> }> = [];
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> = Promise.resolve();
  // Never rejects: a failed send (the database gone, a message over the limit) is logged, and later sends still go.
  const send = async (batch: typeof pending) => {
    try {
      for (const text of gathered(batch)) await database.db.execute(sql`select ${notifyMessageSql(text)}`);
    } catch (err) {
      log.warn({ err, messages: batch.length }, 'bus messages could not be sent; their pages catch up at their next refetch');
    }
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length) sending = sending.then(() => send(batch));
    return sending;
  };
  return {
    sendSoon(messages: Array<{ topic: BusTopic; data: Record<string, unknown> }>) {
      pending.push(...messages);
      timer ??= setTimeout(() => void flush(), SEND_WINDOW_MS);
    },
    flush,
  };
}
