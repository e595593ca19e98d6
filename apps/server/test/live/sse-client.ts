import http from 'node:http';
import { sseParser } from '@shiptrail/contract';

/** A frame of the stream with its data read as JSON (the contract's `sseParser` splits the text). */
export interface SseFrame {
  id?: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  frames: SseFrame[];
  /** Raw text received (comments and heartbeats included). */
  text(): string;
  /** Resolves with the first frame (already received or coming) that matches. */
  waitFor(pred: (f: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  close(): void;
  /** Resolves when the server ends the stream (or the connection goes). */
  ended: Promise<void>;
}

/** A real HTTP client reading the event stream as it arrives (app.inject cannot stream). */
export function openStream(
  base: string,
  token: string | null,
  headers: Record<string, string> = {},
  path = '/v1/live',
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${base}${path}`,
      { headers: { 'sm-http-status': 'real', accept: 'text/event-stream', ...(token ? { 'sm-api-token': token } : {}), ...headers } },
      (res) => {
        const frames: SseFrame[] = [];
        const waiters = new Set<() => void>();
        let all = '';
        res.setEncoding('utf8');
        const ended = new Promise<void>((done) => {
          res.once('end', done);
          res.once('close', done);
        });
        const feed = sseParser((f) => frames.push({ id: f.id, data: JSON.parse(f.data) }));
        res.on('data', (chunk: string) => {
          all += chunk;
          feed(chunk);
          for (const w of [...waiters]) w();
        });
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          frames,
          text: () => all,
          waitFor(pred, timeoutMs = 5000) {
            return new Promise((ok, fail) => {
              const check = () => {
                const f = frames.find(pred);
                if (f) {
                  waiters.delete(check);
                  clearTimeout(timer);
                  ok(f);
                }
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`no matching event in ${timeoutMs} ms; got ${JSON.stringify(frames)}`));
              }, timeoutMs);
              waiters.add(check);
              check();
            });
          },
          close: () => req.destroy(),
          ended,
        });
      },
    );
    req.on('error', reject);
  });
}
