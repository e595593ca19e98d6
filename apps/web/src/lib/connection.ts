import { useSyncExternalStore } from 'react';

// Whether the app can reach the server, as a person would judge it: the browser's navigator.onLine says only that
// some network is up (it stays true behind a captive portal or a radio that has lost the mast), so the last
// request's fate counts too (decision 120). Any reply, whatever its status, means reachable; a request that never
// got one means not, until the next reply or the browser's `online` event.

let reachable = true;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function noteReachable(ok: boolean) {
  if (ok === reachable) return;
  reachable = ok;
  emit();
}

/**
 * Calls `l` each time a reply arrives after requests that got none: the server is reachable again, whether or not the
 * browser said so (Chromium fires no `online` event in a page it loaded without signal). Returns the unsubscribe.
 */
export function onReachableAgain(l: () => void): () => void {
  let was = reachable;
  const check = () => {
    if (reachable && !was) l();
    was = reachable;
  };
  listeners.add(check);
  return () => listeners.delete(check);
}

/** Online as far as the app can tell right now. */
export const isOnline = () => (typeof navigator === 'undefined' || navigator.onLine) && reachable;

function subscribe(l: () => void) {
  listeners.add(l);
  const back = () => {
    // The browser says the network is back: worth trying again at once.
    reachable = true;
    emit();
  };
  window.addEventListener('online', back);
  window.addEventListener('offline', emit);
  return () => {
    listeners.delete(l);
    window.removeEventListener('online', back);
    window.removeEventListener('offline', emit);
  };
}

/** isOnline(), live. */
export const useOnline = () => useSyncExternalStore(subscribe, isOnline, () => true);
