import { ApiError } from './api-client';
import { idbClear, idbGet, idbPut } from './idb';
import { getSession } from './session';

// The last answer of a call the courier's phone needs without signal (their profile, today's stops), kept in
// IndexedDB for the session that fetched it (decision 120). Used only when the server cannot be reached.

interface Copy<T> {
  token: string;
  savedAt: string;
  data: T;
}

/** A reply that never reached the server (no signal, server down): the kept copy may stand in for it. */
export const unreachable = (e: unknown) => e instanceof ApiError && e.code === 0;

export async function keepCopy<T>(name: string, data: T): Promise<void> {
  const token = getSession()?.token;
  if (!token) return;
  await idbPut('kv', { token, savedAt: new Date().toISOString(), data } satisfies Copy<T>, name).catch(() => undefined);
}

/** The kept copy for the current session, with when it was saved; undefined when there is none. */
export async function readCopy<T>(name: string): Promise<{ data: T; savedAt: string } | undefined> {
  const token = getSession()?.token;
  const c = await idbGet<Copy<T>>('kv', name).catch(() => undefined);
  return c && token && c.token === token ? { data: c.data, savedAt: c.savedAt } : undefined;
}

/**
 * Fetch, keeping a copy of what arrived; when the server cannot be reached, the copy (marked with when it was saved)
 * instead, or the error when there is none.
 */
export async function withCopy<T extends object>(name: string, fetchIt: () => Promise<T>): Promise<T & { savedAt?: string }> {
  try {
    const data: T = await fetchIt();
    void keepCopy(name, data);
    return data as T & { savedAt?: string };
  } catch (e) {
    if (!unreachable(e)) throw e;
    const copy = await readCopy<T>(name);
    if (!copy) throw e;
    return { ...copy.data, savedAt: copy.savedAt };
  }
}

/** Signing out forgets the copies (the outbox is kept: it is what the courier did, sent with the next session). */
export const forgetCopies = () => idbClear('kv').catch(() => undefined);
