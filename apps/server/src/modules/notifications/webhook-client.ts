import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './ssrf.ts';

export interface PostResult {
  /** null when no HTTP answer came (refused, timeout, TLS error). */
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The first 4 KB of the answer, for the delivery log. */
  responseBody: string | null;
  /** Retry-After of the answer, in ms, when it had one. */
  retryAfterMs: number | null;
}

const MAX_LOGGED = 4096;
const MAX_READ = 64 * 1024;

// Keep-alive pools: a receiver gets one connection reused across deliveries, not one per event.
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 32 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 32 }),
};

/**
 * Connect to the address the SSRF guard checked, never to what a second DNS query returns: the
 * lookup the socket uses just hands back that address (Node asks with `all: true` when it races
 * address families, hence both forms). TLS still verifies the certificate against the URL's host.
 */
function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

export function parseRetryAfter(v: string | string[] | undefined, now: number): number | null {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return null;
  if (/^\d+$/.test(s.trim())) return Number(s.trim()) * 1000;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

/** POST a webhook body; never throws, the result says what happened (it goes to the delivery log). */
export function postWebhook(target: ResolvedTarget, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostResult> {
  const started = performance.now();
  const isHttps = target.url.protocol === 'https:';
  const mod = isHttps ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const done = (r: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: Math.round(performance.now() - started) });
    };
    const req = mod.request(
      target.url,
      {
        method: 'POST',
        agent: isHttps ? agents.https : agents.http,
        lookup: pinnedLookup(target),
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Shiptrail-Webhooks/1.0',
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_READ) chunks.push(c);
          else res.destroy();
        });
        const finish = () => {
          const text = Buffer.concat(chunks).toString('utf8');
          done({
            status: res.statusCode ?? null,
            error: null,
            responseBody: text ? text.slice(0, MAX_LOGGED) : null,
            retryAfterMs: parseRetryAfter(res.headers['retry-after'], Date.now()),
          });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    req.on('error', (err) => done({ status: null, error: err.message || String(err), responseBody: null, retryAfterMs: null }));
    req.end(body);
  });
}
