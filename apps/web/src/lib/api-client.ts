import { API_TOKEN_HEADER, type Envelope } from '@shiptrail/contract';
import { getSession, setSession } from './session';
import { noteReachable } from './connection';

/** A /v1 reply whose status is not 'success' (or a transport failure). Carries the server's field errors. */
export class ApiError extends Error {
  readonly code: number;
  readonly errors: Record<string, string>;
  readonly envelope: Envelope<unknown> | null;
  constructor(message: string, code: number, envelope: Envelope<unknown> | null) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.envelope = envelope;
    const p = envelope?.payload as { errors?: Record<string, string> } | null | undefined;
    this.errors = p && typeof p === 'object' && p.errors && typeof p.errors === 'object' ? p.errors : {};
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Send the session token (default true). Verify, reset and public tracking go without (product rules §6). */
  auth?: boolean;
  signal?: AbortSignal;
  /** More request headers (an Idempotency-Key). */
  headers?: Record<string, string>;
  /** Message used when the request never reaches the server (product rules §8: 'Error', 'Send error!', ...). */
  transportError?: string;
}

/** Calls a /v1 endpoint and resolves with the envelope when status is 'success'; rejects with ApiError otherwise. */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<Envelope<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  const session = opts.auth === false ? null : getSession();
  if (session) headers[API_TOKEN_HEADER] = session.token;
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body, signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    noteReachable(false);
    throw new ApiError(opts.transportError ?? 'Error', 0, null);
  }
  noteReachable(true);
  let env: Envelope<T> | null;
  try {
    env = (await res.json()) as Envelope<T>;
  } catch {
    env = null;
  }
  if (!env || typeof env !== 'object' || !('status' in env)) {
    throw new ApiError(opts.transportError ?? 'Error', res.status, null);
  }
  if (env.status !== 'success') {
    // A session the server no longer knows: drop it so the guard sends the user to the landing page.
    if ((env.code ?? res.status) === 401 && session) setSession(null);
    throw new ApiError(env.message || opts.transportError || 'Error', env.code ?? res.status, env as Envelope<unknown>);
  }
  return env;
}

/** Same as request but resolves with the payload. */
export async function requestPayload<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  return (await request<T>(path, opts)).payload;
}
