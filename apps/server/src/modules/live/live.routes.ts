import fp from 'fastify-plugin';
import type { AppContext } from '../../context.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, tooMany } from '../../lib/errors.ts';
import { publicParcelSubject } from '../trackings/trackings.service.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import { LiveHub } from './hub.ts';

/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;
export const NOT_A_STREAM_CLIENT = 'This call sends server-sent events: ask for them with the header Accept: text/event-stream';
/** A client that stops reading is cut off rather than buffered without end. */
const MAX_BUFFERED = 1024 * 1024;
/** Public pages' streams: a visitor with many tabs is fine, a crawler opening thousands is not. */
export const PUBLIC_STREAMS_PER_ADDRESS = 20;
export const PUBLIC_STREAMS_MAX = 5000;
export const TOO_MANY_PUBLIC_STREAMS = 'Too many open live pages from here: close a few tabs, the page also updates by itself every 30 seconds';

declare module 'fastify' {
  interface FastifyInstance {
    liveHub: LiveHub;
  }
}

/**
 * GET /v1/live: the signed-in user's server-sent events. Authorised like every other read, by the
 * `sm-api-token` header (the web app reads it with fetch streaming), and scoped by the hub to what the user
 * may read. `Last-Event-ID` (header, or `lastEventId` in the query) replays what a reconnecting client missed.
 */
// fastify-plugin: the hub is decorated on the app itself, so tests and health checks can read its size.
export const liveRoutes = fp(async (app, { ctx }: { ctx: AppContext }) => {
  const hub = new LiveHub(ctx.bus);
  app.decorate('liveHub', hub);
  const open = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const end of [...open]) end();
    hub.close();
  });

  /** Answer `req` with an event stream fed by `subscribe` until either side ends it. */
  function eventStream(req: FastifyRequest, reply: FastifyReply, subscribe: (send: (f: { id: string; event: unknown }) => void, lastEventId?: string) => () => void): void {
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
    const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
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
  }

  /** A client that does not ask for an event stream (a plain API call) would wait on an answer that never ends. */
  const requireStreamClient = (req: FastifyRequest) => {
    if (!String(req.headers.accept ?? '').includes('text/event-stream')) throw new AppError(406, NOT_A_STREAM_CLIENT, 'not_acceptable');
  };

  app.get('/v1/live', { preHandler: app.requireAuth }, async (req, reply) => {
    const user = userOf(req);
    requireStreamClient(req);
    eventStream(req, reply, (send, last) => hub.add({ userId: user.id, role: user.role, send }, last));
  });

  // One parcel's public page: no token, as the page itself; only that parcel's number and status go out.
  const publicByAddress = new Map<string, number>();
  let publicOpen = 0;
  app.get('/v1/track/:uidTid/live', { config: { rateLimit: { max: 60, timeWindow: 60_000 } } }, async (req, reply) => {
    requireStreamClient(req);
    const subject = await publicParcelSubject(ctx, (req.params as { uidTid: string }).uidTid);
    const ip = req.ip;
    if ((publicByAddress.get(ip) ?? 0) >= PUBLIC_STREAMS_PER_ADDRESS) throw tooMany(TOO_MANY_PUBLIC_STREAMS, 30);
    if (publicOpen >= PUBLIC_STREAMS_MAX) throw new AppError(503, TOO_MANY_PUBLIC_STREAMS, 'busy', null, { 'retry-after': '30' });
    publicByAddress.set(ip, (publicByAddress.get(ip) ?? 0) + 1);
    publicOpen++;
    eventStream(req, reply, (send, last) => {
      const remove = hub.addPublic({ ...subject, send }, last);
      return () => {
        remove();
        publicOpen--;
        const n = (publicByAddress.get(ip) ?? 1) - 1;
        if (n > 0) publicByAddress.set(ip, n);
        else publicByAddress.delete(ip);
      };
    });
  });
});
