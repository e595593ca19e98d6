// A real HTTP server on loopback standing in for the API in web unit tests. The app calls relative paths,
// which a browser resolves against the page's origin: while started, fetch resolves them against this server.
import http from 'node:http';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LoopbackApi {
  base: string;
  seen: Seen[];
  answer: (s: Seen) => { status: number; body: string };
  close(): Promise<void>;
}

export const envelope = (code: number, status: 'success' | 'fail', message: string, payload: unknown) =>
  JSON.stringify({ code, status, message, payload });

export async function startLoopbackApi(): Promise<LoopbackApi> {
  const realFetch = globalThis.fetch;
  const api: LoopbackApi = { base: '', seen: [], answer: () => ({ status: 200, body: '{}' }), close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      api.seen.push(s);
      const a = api.answer(s);
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api.base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    realFetch(typeof input === 'string' && input.startsWith('/') ? api.base + input : input, init)) as typeof fetch;
  api.close = async () => {
    globalThis.fetch = realFetch;
    await new Promise<void>((r) => server.close(() => r()));
  };
  return api;
}
