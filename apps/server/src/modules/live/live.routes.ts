import fp from 'fastify-plugin';
import type { AppContext } from '../../context.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_TOKEN_HEADER } from '@shiptrail/contract';
import { AppError, tooMany } from '../../lib/errors.ts';
import { addressKey } from '../../lib/client-address.ts';
import { publicParcelSubject } from '../trackings/trackings.service.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import { LiveHub } from './hub.ts';

/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;
export const NOT_A_STREAM_CLIENT = 'This call sends server-sent events: ask for them with the header Accept: text/event-stream';
/** A client that stops reading is cut off rather than buffered without end. */
const MAX_BUFFERED = 1024 * 1024;
/** Defaults of LIVE_PUBLIC_STREAMS_PER_ADDRESS and LIVE_PUBLIC_STREAMS_MAX (docs/operations.md "Limits"). */
export const PUBLIC_STREAMS_PER_ADDRESS = 20;
export const PUBLIC_STREAMS_MAX = 5000;
export const TOO_MANY_PUBLIC_STREAMS =
  'Too many open live pages from here: close a few tabs, the page also updates by itself every 30 seconds';
export const TOO_MANY_STREAMS = 'Too many live streams open for this account: close a few tabs or clients, then try again';
export const STREAMS_BUSY = 'Too many live streams open on this server: the page updates by itself when you reload it';

declare module 'fastify' {
  interface FastifyInstance {
    liveHub: LiveHub;
  }
}

/** One signed-in stream: what it was opened with, so it can check that it still may be open. */
interface AuthStream {
  token: string;
  userId: string;
  role: string;
  companyId: string | null;
  expiresAt: Date | null;
  end: () => void;
  checking: boolean;
  checkAgain: boolean;
}

/** Ends a signed-in stream whose token no longer signs in as the same user, role and company; else notes its expiry. */
async function checkStream(app: FastifyInstance, ctx: AppContext, s: AuthStream): Promise<void> {
  if (s.checking) {
    s.checkAgain = true;
    return;
  }
  s.checking = true;
  try {
    do {
      s.checkAgain = false;
      const now = await app.authenticateFresh(s.token).catch((err: unknown) => {
        // The database is away: keep the stream (the next change or the session's end checks it again).
        ctx.log.warn({ err }, 'live stream: could not check its token');
        return undefined;
      });
      if (now === undefined) continue;
      if (!now || now.user.id !== s.userId || now.user.role !== s.role || (now.user.companyId ?? null) !== s.companyId) {
        s.end();
        return;
      }
      s.expiresAt = now.expiresAt ?? null;
    } while (s.checkAgain);
  } finally {
    s.checking = false;
  }
}

/**
 * Answer `req` with an event stream fed by `subscribe` until either side ends it; `stillValid`, asked at every
 * heartbeat, may end it too. Returns the function that ends it; `open` holds it until then.
 */
function eventStream(
  open: Set<() => void>,
  req: FastifyRequest,
  reply: FastifyReply,
  subscribe: (send: (f: { id: string; event: unknown }) => void, lastEventId?: string) => () => void,
  stillValid: () => boolean = () => true,
): () => void {
  const header = req.headers['last-event-id'];
  const fromQuery = (req.query as { lastEventId?: unknown }).lastEventId;
  const last = (typeof header === 'string' ? header : typeof fromQuery === 'string' ? fromQuery : '').slice(0, 100) || undefined;

  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx and similar proxies would otherwise hold events back in their buffers.
    'x-accel-buffering': 'no',
    'x-request-id': req.id,
  });
  res.write('retry: 2000\n: connected\n\n');

  let ended = false;
  const write = (chunk: string) => {
    if (ended) return;
    res.write(chunk);
    if (res.writableLength > MAX_BUFFERED) end();
  };
  const remove = subscribe((f) => write(`id: ${f.id}\ndata: ${JSON.stringify(f.event)}\n\n`), last);
  const heartbeat = setInterval(() => (stillValid() ? write(': ping\n\n') : end()), HEARTBEAT_MS);
  heartbeat.unref();
  function end() {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    remove();
    open.delete(end);
    res.end();
  }
  open.add(end);
  res.on('close', end);
  res.on('error', end);
  return end;
}

/** A client that does not ask for an event stream (a plain API call) would wait on an answer that never ends. */
function requireStreamClient(req: FastifyRequest) {
  if (!String(req.headers.accept ?? '').includes('text/event-stream')) throw new AppError(406, NOT_A_STREAM_CLIENT, 'not_acceptable');
}

/**
 * GET /v1/live: the signed-in user's server-sent events. Authorised like every other read, by the
 * `sm-api-token` header (the web app reads it with fetch streaming), and scoped by the hub to what the user
 * may read. `Last-Event-ID` (header, or `lastEventId` in the query) replays what a reconnecting client missed.
 *
 * A stream stays open only while its token would still sign in as the same user in the same role and company:
 * every announced change to the account (a new API key, a logout, a password change, a deleted member: the auth
 * cache's announcements, lib/auth-signal.ts) checks its streams again and ends the ones that no longer pass, and
 * a session's stream ends when the session expires. At most LIVE_STREAMS_PER_USER streams per user and
 * LIVE_STREAMS_MAX per process.
 */
// fastify-plugin: the hub is decorated on the app itself, so tests and health checks can read its size.
export const liveRoutes = fp(async (app, { ctx }: { ctx: AppContext }) => {
  const hub = new LiveHub(ctx.bus);
  app.decorate('liveHub', hub);
  const open = new Set<() => void>();
  const stopAuth = signedInStreams(app, ctx, hub, open);
  publicStreams(app, ctx, hub, open);

  app.addHook('onClose', async () => {
    stopAuth();
    for (const end of [...open]) end();
    hub.close();
  });
});

/** GET /v1/live and the checks that end its streams; returns how to stop listening for account changes. */
function signedInStreams(app: FastifyInstance, ctx: AppContext, hub: LiveHub, open: Set<() => void>) {
  const byUser = new Map<string, Set<AuthStream>>();
  let authOpen = 0;
  /** When each user's sign-in facts last changed (bounded): a stream opened across a change checks itself once. */
  const changedAt = new Map<string, number>();

  function userChanged(userId: string | null) {
    if (userId) {
      changedAt.delete(userId);
      changedAt.set(userId, Date.now());
      if (changedAt.size > 10_000) changedAt.delete(changedAt.keys().next().value!);
    }
    const streams = userId ? [...(byUser.get(userId) ?? [])] : [...byUser.values()].flatMap((set) => [...set]);
    // After a lost bus message (no user) every stream checks itself: a few at a time, not thousands of queries at once.
    void (async () => {
      for (let i = 0; i < streams.length; i += 20) await Promise.all(streams.slice(i, i + 20).map((x) => checkStream(app, ctx, x)));
    })();
  }
  // On the bus, which delivers a change once it is committed (a check before the commit would read the old row).
  const stopAuth = ctx.bus.subscribe('auth', (m) => {
    const userId = (m.data as { userId?: unknown }).userId;
    userChanged(typeof userId === 'string' ? userId : null);
  });

  app.get('/v1/live', { preHandler: app.requireAuth }, async (req, reply) => {
    const user = userOf(req);
    requireStreamClient(req);
    const mine = byUser.get(user.id);
    if ((mine?.size ?? 0) >= ctx.config.LIVE_STREAMS_PER_USER) throw tooMany(TOO_MANY_STREAMS, 30);
    if (authOpen >= ctx.config.LIVE_STREAMS_MAX) throw new AppError(503, STREAMS_BUSY, 'busy', null, { 'retry-after': '30' });
    const raw = req.headers[API_TOKEN_HEADER];
    const stream: AuthStream = {
      token: (Array.isArray(raw) ? raw[0] : raw) ?? '',
      userId: user.id,
      role: user.role,
      companyId: user.companyId ?? null,
      expiresAt: req.auth?.expiresAt ?? null,
      end: () => {},
      checking: false,
      checkAgain: false,
    };
    const openedAt = Date.now() - reply.elapsedTime;
    stream.end = eventStream(
      open,
      req,
      reply,
      (send, last) => {
        const remove = hub.add({ userId: user.id, role: user.role, send }, last);
        let set = byUser.get(user.id);
        if (!set) byUser.set(user.id, (set = new Set()));
        set.add(stream);
        authOpen++;
        return () => {
          remove();
          authOpen--;
          const cur = byUser.get(user.id);
          cur?.delete(stream);
          if (cur?.size === 0) byUser.delete(user.id);
        };
      },
      () => !stream.expiresAt || stream.expiresAt > ctx.now(),
    );
    // A change announced while this request was on its way may have been missed by the checks: check once now.
    if ((changedAt.get(user.id) ?? 0) >= openedAt) void checkStream(app, ctx, stream);
  });
  return stopAuth;
}

/** GET /v1/track/:uidTid/live: one parcel's public page's stream. */
function publicStreams(app: FastifyInstance, ctx: AppContext, hub: LiveHub, open: Set<() => void>) {
  // One parcel's public page: no token, as the page itself; only that parcel's number and status go out. Counted per
  // client address (per /64 for IPv6). When the process is full, a newcomer takes the place of the oldest stream of
  // the address holding the most, so one address (or a few) fills its own share, never everyone's.
  const publicByAddress = new Map<string, Set<() => void>>();
  let publicOpen = 0;
  const heaviest = (): Set<() => void> | undefined => {
    let top: Set<() => void> | undefined;
    for (const set of publicByAddress.values()) if (!top || set.size > top.size) top = set;
    return top;
  };
  app.get(
    '/v1/track/:uidTid/live',
    { config: { rateLimit: { max: 60, timeWindow: 60_000, keyGenerator: (req: FastifyRequest) => addressKey(req.ip) } } },
    async (req, reply) => {
      requireStreamClient(req);
      const subject = await publicParcelSubject(ctx, (req.params as { uidTid: string }).uidTid);
      const key = addressKey(req.ip);
      const mine = publicByAddress.get(key)?.size ?? 0;
      if (mine >= ctx.config.LIVE_PUBLIC_STREAMS_PER_ADDRESS) throw tooMany(TOO_MANY_PUBLIC_STREAMS, 30);
      if (publicOpen >= ctx.config.LIVE_PUBLIC_STREAMS_MAX) {
        const top = heaviest();
        if (!top || top.size <= mine + 1) throw new AppError(503, TOO_MANY_PUBLIC_STREAMS, 'busy', null, { 'retry-after': '30' });
        // Sets keep insertion order: the first is the oldest.
        top.values().next().value!();
      }
      let set = publicByAddress.get(key);
      if (!set) publicByAddress.set(key, (set = new Set()));
      const mySet = set;
      publicOpen++;
      const end = eventStream(open, req, reply, (send, last) => {
        const remove = hub.addPublic({ ...subject, send }, last);
        return () => {
          remove();
          publicOpen--;
          mySet.delete(end);
          if (mySet.size === 0 && publicByAddress.get(key) === mySet) publicByAddress.delete(key);
        };
      });
      mySet.add(end);
    },
  );
}
