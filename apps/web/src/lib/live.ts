import { useEffect } from 'react';
import { useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import { API_TOKEN_HEADER, sseParser, type LiveEvent as ServerLiveEvent, type LiveReset } from '@shiptrail/contract';
import { getSession, setSession, useSession } from './session';

/** An event of the signed-in user's stream (GET /v1/live), or the stream's own reset: what changed, never the changed object. */
export type LiveEvent = ServerLiveEvent | LiveReset;

/**
 * The cached queries an event makes stale, by key prefix. The dashboard's counts and the balance come with
 * the user info; a reset (the server could not say what was missed) refetches everything on screen.
 */
export function staleKeysFor(e: LiveEvent): QueryKey[] | 'all' {
  switch (e.kind) {
    case 'tracking':
      return [['trackings'], ['user-info'], ...(e.statusChanged ? [['notifications']] : [])];
    case 'shipment':
      // A shipment created, given or taken joins the day's plan on the server (decision 125): the plan page follows.
      return [['shipments'], ['plans'], ['user-info'], ...(e.statusChanged ? [['notifications']] : [])];
    case 'position':
      return [['members']];
    case 'courier':
      // Public pages' copy of a shared position (decision 128): the hub sends it to no signed-in stream.
      return [];
    case 'members':
      // A courier added, renamed or removed: the team, the couriers map, and the shipments that name them.
      return [['members'], ['shipments']];
    case 'balance':
      return [['user-info'], ['payment-info'], ['payment-history'], ['usage']];
    case 'alert':
      return [['user-info']];
    case 'reset':
      return 'all';
  }
}

/**
 * Show a status change at once in every cached list or record of `root` ('trackings' or 'shipments') that
 * holds that number, before the refetch the event also triggers brings the rest (checkpoints, counts). Only
 * `tid` and `status` are read, so this needs nothing of the features' own types.
 */
export function patchStatus(qc: QueryClient, root: 'trackings' | 'shipments', tid: string, status: string): void {
  const fix = (x: unknown) => {
    const r = x as { tid?: unknown; status?: unknown } | null;
    return r && typeof r === 'object' && r.tid === tid && r.status !== status ? { ...r, status } : x;
  };
  qc.setQueriesData({ queryKey: [root] }, (old: unknown) => {
    if (!Array.isArray(old)) return fix(old);
    const next = old.map(fix);
    return next.some((x, i) => x !== old[i]) ? next : old;
  });
}

/**
 * Queries whose refetch costs the server a whole pass: the shipments map's markers, every open shipment page
 * after page. A refresh round sends an event per shipment; these refetch at most once per HEAVY_MERGE_MS
 * instead of once per 150 ms window (a status shows at once: patchStatus writes it into them).
 */
export const HEAVY_MERGE_MS = 3000;
export const isHeavy = (key: QueryKey) => key[0] === 'shipments' && key[1] === 'markers';

/** Backoff between reconnects: 1 s doubling to 30 s, with jitter so a restarted server is not stampeded. */
export function reconnectDelayMs(attempt: number, rand: () => number = Math.random): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5));
  return Math.round(base * (0.75 + rand() * 0.5));
}

/**
 * Follow the stream and keep the query cache in step. The stream is read with fetch rather than EventSource
 * because the session token travels in a header, as on every other call (EventSource cannot send headers,
 * and a token in the address would land in access logs). Invalidations within a short window are merged, so a
 * burst of events (a refresh round) costs one refetch per query. Returns the stop function.
 */
export function followLive(
  qc: QueryClient,
  opts: { path?: string; mergeMs?: number; heavyMergeMs?: number; onEvent?: (e: LiveEvent) => void } = {},
): () => void {
  const path = opts.path ?? '/v1/live';
  const mergeMs = opts.mergeMs ?? 150;
  const heavyMergeMs = opts.heavyMergeMs ?? HEAVY_MERGE_MS;
  let heavyTimer: ReturnType<typeof setTimeout> | undefined;
  const flushHeavy = () => {
    heavyTimer = undefined;
    void qc.invalidateQueries({ predicate: (q) => isHeavy(q.queryKey) });
  };
  let stopped = false;
  let controller: AbortController | null = null;
  let lastEventId: string | undefined;
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let pending: QueryKey[] | 'all' = [];
  let flushTimer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    flushTimer = undefined;
    const keys = pending;
    pending = [];
    if (keys === 'all') void qc.invalidateQueries();
    else {
      const seen = new Set<string>();
      for (const k of keys) {
        const s = JSON.stringify(k);
        if (seen.has(s)) continue;
        seen.add(s);
        // The heavy queries under this key wait for their own, longer window (the status shows at once anyway,
        // patched into them); the rest refetch now.
        void qc.invalidateQueries({ queryKey: k, predicate: (q) => !isHeavy(q.queryKey) });
        if (qc.getQueryCache().findAll({ queryKey: k, predicate: (q) => isHeavy(q.queryKey) }).length)
          heavyTimer ??= setTimeout(flushHeavy, heavyMergeMs);
      }
    }
  };
  const apply = (e: LiveEvent) => {
    opts.onEvent?.(e);
    if ((e.kind === 'tracking' || e.kind === 'shipment') && e.statusChanged)
      patchStatus(qc, e.kind === 'tracking' ? 'trackings' : 'shipments', e.tid, e.status);
    const keys = staleKeysFor(e);
    pending = keys === 'all' || pending === 'all' ? 'all' : [...pending, ...keys];
    flushTimer ??= setTimeout(flush, mergeMs);
  };

  const connect = async () => {
    const session = getSession();
    if (stopped || !session) return;
    controller = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream', [API_TOKEN_HEADER]: session.token };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    try {
      const res = await fetch(path, { headers, signal: controller.signal, cache: 'no-store' });
      if (res.status === 401 || (res.headers.get('content-type') ?? '').includes('application/json')) {
        // The session is gone (the envelope says so even without real status codes): the guard takes over.
        const body = (await res.json().catch(() => null)) as { code?: number } | null;
        if (res.status === 401 || body?.code === 401) {
          setSession(null);
          return;
        }
        throw new Error('not a stream');
      }
      if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
      // Events missed before this connection could not be replayed on a first connect: catch up once.
      if (attempt > 0 && !lastEventId) apply({ kind: 'reset' });
      attempt = 0;
      const feed = sseParser((f) => {
        if (f.id) lastEventId = f.id;
        try {
          apply(JSON.parse(f.data) as LiveEvent);
        } catch {
          // A frame we cannot read is skipped; the next one still counts.
        }
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        feed(value);
      }
    } catch (err) {
      if (stopped || (err as Error).name === 'AbortError') return;
    }
    if (stopped) return;
    retryTimer = setTimeout(() => void connect(), reconnectDelayMs(attempt++));
  };
  void connect();

  return () => {
    stopped = true;
    clearTimeout(retryTimer);
    clearTimeout(flushTimer);
    clearTimeout(heavyTimer);
    controller?.abort();
  };
}

/** Mounted once in the signed-in layout: one stream per tab while a session exists. */
export function useLiveUpdates(): void {
  const qc = useQueryClient();
  const token = useSession()?.token;
  useEffect(() => (token ? followLive(qc) : undefined), [qc, token]);
}
