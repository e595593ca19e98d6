import fp from 'fastify-plugin';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../lib/errors.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import { LiveHub, type LiveFrame } from './hub.ts';

/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;
export const NOT_A_STREAM_CLIENT = 'This call sends server-sent events: ask for them with the header Accept: text/event-stream';
/** A client that stops reading is cut off rather than buffered without end. */
const MAX_BUFFERED = 1024 * 1024;

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

  app.get('/v1/live', { preHandler: app.requireAuth }, async (req, reply) => {
    const user = userOf(req);
    // A client that does not ask for an event stream (a plain API call, a test through app.inject) would
    // wait on an answer that never ends: it gets the envelope saying how to call instead.
    if (!String(req.headers.accept ?? '').includes('text/event-stream')) throw new AppError(406, NOT_A_STREAM_CLIENT, 'not_acceptable');
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
    const send = (f: LiveFrame) => write(`id: ${f.id}\ndata: ${JSON.stringify(f.event)}\n\n`);
    const remove = hub.add({ userId: user.id, role: user.role, send }, last);
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
  });
});
