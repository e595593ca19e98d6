import type { FastifyInstance } from 'fastify';
import { desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { devOutbox } from '../../db/schema.ts';
import { escapeHtml } from '../../lib/mail-layout.ts';

/**
 * The development outbox: mail (and SMS) that would have been sent, for a local install without
 * SMTP_URL. Registered only while no SMTP_URL is set; a deployment sets it and this page is gone.
 */
export async function devOutboxRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // The outbox holds password-reset and verification links, so it is shown only to a browser on this
  // machine. The socket's own peer address decides, never X-Forwarded-For (which any client can write);
  // behind a reverse proxy on the same host the page is therefore still reachable: set SMTP_URL there.
  app.addHook('onRequest', async (req, reply) => {
    if (!isLoopback(req.raw.socket.remoteAddress)) {
      return reply.code(403).type('text/plain').send('The dev outbox is shown only to this machine (a loopback client).');
    }
  });

  const list = (limit: number) => ctx.db.select().from(devOutbox).orderBy(desc(devOutbox.id)).limit(limit);

  app.get('/dev/mail/api', async (req) => {
    const limit = Math.min(Number((req.query as { limit?: string }).limit) || 100, 500);
    return (await list(limit)).map((m) => ({ ...m, createdAt: m.createdAt.toISOString() }));
  });

  app.get('/dev/mail/:id', async (req, reply) => {
    const id = Number((req.params as { id: string }).id);
    const [m] = Number.isSafeInteger(id) ? await ctx.db.select().from(devOutbox).where(eq(devOutbox.id, id)) : [];
    if (!m) return reply.code(404).type('text/plain').send('Not found');
    // The mail's own HTML, sandboxed: it cannot run scripts or reach this origin.
    reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:; sandbox");
    return reply.type('text/html; charset=utf-8').send(m.html ?? `<pre>${escapeHtml(m.text)}</pre>`);
  });

  app.get('/dev/mail', async (_req, reply) => {
    const rows = await list(200);
    const items = rows
      .map((m) => {
        const links = (m.text.match(/https?:\/\/\S+/g) ?? []).map((l) => `<a href="${escapeHtml(l)}">${escapeHtml(l)}</a>`).join('<br>');
        const open = m.channel === 'email' ? ` · <a href="/dev/mail/${m.id}">view HTML</a>` : '';
        return `<article><header><b>${m.channel.toUpperCase()}</b> to ${escapeHtml(m.to)} · ${m.createdAt.toISOString()}${open}</header>
<h3>${escapeHtml(m.subject)}</h3><pre>${escapeHtml(m.text)}</pre>${links ? `<p>${links}</p>` : ''}</article>`;
      })
      .join('');
    // Returned: an async handler that sends without returning the reply has Fastify send again (an unhandled
    // "Cannot write headers after they are sent" on every visit).
    return reply.type('text/html; charset=utf-8')
      .send(`<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>Dev outbox · Shiptrail</title>
<style>body{font:14px system-ui,sans-serif;max-width:900px;margin:24px auto;padding:0 16px;color:#1f2937}
.banner{background:#fef3c7;border:1px solid #f59e0b;padding:12px 16px;border-radius:8px}
article{border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin:12px 0}pre{white-space:pre-wrap;background:#f9fafb;padding:8px;border-radius:6px}</style></head>
<body><h1>Dev outbox</h1><p class="banner"><b>For development only.</b> This server has no SMTP_URL (and no SMS gateway), so mail and SMS are kept here instead of being sent. A deployment sets SMTP_URL, and this page no longer exists. The page refreshes itself every 5 seconds.</p>
${items || '<p>No messages yet.</p>'}</body></html>`);
  });
}

/** 127.0.0.0/8, ::1 and the IPv4-mapped form of 127.0.0.0/8. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}
