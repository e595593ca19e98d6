// One guarded HTTP call to a carrier. Carrier responses are untrusted (carrier notes): the body is
// read with a byte cap (after transfer decoding, so a gzip bomb is capped too: FedEx may gzip, carrier notes §3.3),
// every call has a timeout, and transport failures become a classified CarrierError instead of a throw.
import type { CarrierErrorKind } from './types.ts';

export class CarrierError extends Error {
  readonly kind: CarrierErrorKind;
  readonly retryAfterMs: number | undefined;
  constructor(kind: CarrierErrorKind, message: string, retryAfterMs?: number) {
    super(message);
    this.name = 'CarrierError';
    this.kind = kind;
    this.retryAfterMs = retryAfterMs;
  }
}

export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 15_000;

export type HttpResponse = { status: number; headers: Headers; text: string };

export type HttpOptions = { timeoutMs: number; maxBodyBytes: number };

export async function httpRequest(
  url: string,
  init: { method: 'GET' | 'POST' | 'DELETE'; headers: Record<string, string>; body?: string },
  opts: HttpOptions,
): Promise<HttpResponse> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method: init.method, headers: init.headers, body: init.body, signal, redirect: 'error' });
  } catch (err) {
    throw transportError(err, url, opts.timeoutMs);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > opts.maxBodyBytes) {
    await res.body?.cancel().catch(() => {});
    throw new CarrierError('malformed', `Carrier response too large (${declared} bytes).`);
  }
  let text: string;
  try {
    text = await readCapped(res, opts.maxBodyBytes);
  } catch (err) {
    if (err instanceof CarrierError) throw err;
    throw transportError(err, url, opts.timeoutMs);
  }
  return { status: res.status, headers: res.headers, text };
}

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new CarrierError('malformed', `Carrier response larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

function transportError(err: unknown, url: string, timeoutMs: number): CarrierError {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const host = safeHost(url);
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return new CarrierError('carrier-down', `${host} did not answer within ${timeoutMs} ms.`);
  }
  const detail = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'network error';
  return new CarrierError('carrier-down', `Could not reach ${host} (${detail}).`);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'carrier';
  }
}

/** Retry-After is seconds or an HTTP date (RFC 9110 §10.2.3). Capped at a day so a hostile value cannot park us. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, Math.round(ms)), 24 * 3600 * 1000);
}

/** JSON.parse that never throws: a body that is not JSON is a classified error. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new CarrierError('malformed', 'Carrier response is not valid JSON.');
  }
}

/** Plain-object guard for untrusted JSON. */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Trim, collapse whitespace, drop HTML tags and entities (USPS <SUP>&#174;</SUP>, carrier notes §6 "Text hygiene"). */
export function cleanText(v: unknown, maxLen = 500): string {
  const s = str(v);
  if (!s) return '';
  return s
    .replace(/<[^>]{0,200}>/g, '')
    .replace(/&amp;/gi, '&')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, '')
    .replace(/\b(reg|trade|copy);/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, maxLen);
}

export function basicAuth(user: string, pass: string): string {
  return 'Basic ' + Buffer.from(`${user}:${pass}`, 'utf8').toString('base64');
}
