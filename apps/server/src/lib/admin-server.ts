// A small HTTP server on an admin port, in every role (the worker has no other port): liveness, readiness and
// Prometheus metrics for the orchestrator and the scraper. Bound to loopback by default; whoever can reach it
// can read the metrics, so a deployment keeps it on a private network.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsText } from './metrics.ts';

export interface AdminServer {
  url: string;
  close(): Promise<void>;
}

export async function startAdminServer(opts: {
  port: number;
  host: string;
  ready: () => Promise<void | Record<string, unknown>>;
  backup?: () => Promise<Buffer>;
}): Promise<AdminServer> {
  const server = http.createServer((req, res) => {
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(405, 'application/json', '{"status":"method not allowed"}');
    if (path === '/healthz' || path === '/livez') return send(200, 'application/json', '{"status":"ok"}');
    if (path === '/readyz') {
      // Extra fields say more (the embedded database's thread and its restarts, decision 115).
      opts.ready().then(
        (more) => send(200, 'application/json', JSON.stringify({ status: 'ready', ...more })),
        (err: { detail?: Record<string, unknown> }) =>
          send(503, 'application/json', JSON.stringify({ status: 'not ready', ...err?.detail })),
      );
      return;
    }
    if (path === '/metrics') {
      metricsText().then(
        (m) => send(200, m.contentType, m.body),
        () => send(500, 'text/plain', 'metrics unavailable\n'),
      );
      return;
    }
    // The embedded database's backup (a gzipped tar of its data directory; db/backup.ts).
    if (path === '/backup' && opts.backup) {
      opts.backup().then(
        (bytes) => {
          res.writeHead(200, {
            'content-type': 'application/gzip',
            'content-disposition': 'attachment; filename="shiptrail-backup.tar.gz"',
            'cache-control': 'no-store',
          });
          res.end(bytes);
        },
        () => send(500, 'application/json', '{"status":"backup failed"}'),
      );
      return;
    }
    send(404, 'application/json', '{"status":"not found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
