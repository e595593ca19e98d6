import { useSyncExternalStore } from 'react';

// The web session (product rules §3 "Session"): the session token and the version value, persisted in
// localStorage and cleared on logout.
export interface Session {
  token: string;
  version: string;
}

const KEY = 'shiptrail.session';
const listeners = new Set<() => void>();

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<Session>;
    return typeof v.token === 'string' && v.token ? { token: v.token, version: String(v.version ?? '') } : null;
  } catch {
    return null;
  }
}

let current: Session | null = typeof localStorage === 'undefined' ? null : read();

function emit() {
  for (const l of listeners) l();
}

export function getSession(): Session | null {
  return current;
}

export function setSession(session: Session | null) {
  current = session;
  try {
    if (session) localStorage.setItem(KEY, JSON.stringify(session));
    else localStorage.removeItem(KEY);
  } catch {
    // Private mode or quota: the session still lives in memory for this tab.
  }
  emit();
}

export function setVersion(version: string) {
  if (current && current.version !== version) setSession({ ...current, version });
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key === KEY) {
      current = read();
      listener();
    }
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

export function useSession(): Session | null {
  return useSyncExternalStore(subscribe, getSession, () => null);
}
