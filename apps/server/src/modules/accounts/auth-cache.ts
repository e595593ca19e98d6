import type { UserRow } from './accounts.repository.ts';

export interface CachedAuth {
  user: UserRow;
  sessionId: string | null;
  /** When the session ends (null for the API key): a cached session is never used past it. */
  expiresAt: Date | null;
}

interface Entry extends CachedAuth {
  /** Wall-clock ms after which the entry is read from the database again. */
  staleAt: number;
}

/**
 * Token → account for the api process, so a request does not pay a hash and a sessions→users join on every
 * call (decision 086). Keys are SHA-256 hashes of tokens, never the tokens.
 *
 * Correctness does not rest on the short TTL: every change to a user row or a session revocation forgets
 * the user at once in this process and, through the bus, in every other (lib/auth-signal.ts). The TTL only
 * bounds what a lost bus message could leave behind. A lookup that started before a change to its user is never
 * stored after it (the epoch check), so a slow read cannot put a stale row back. Epochs are per user: a change to
 * one account does not stop another account's lookups from being kept (a busy install changes some account
 * every few milliseconds). The per-user marks are bounded; one dropped from the bound, or a clear, turns every
 * older lookup away.
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByUser = new Map<string, Set<string>>();
  /** Counts forgets and clears; a lookup takes its value when it starts. */
  private epochValue = 0;
  /** The epoch of each user's last forget, oldest first. */
  private readonly forgotAt = new Map<string, number>();
  /** Lookups that started before this may have missed a forget no longer in forgotAt (a clear, or one evicted). */
  private floor = 0;

  /** `ttlMs` is read at every store, so a changed setting applies at once (the bench turns it off and on). */
  private readonly ttlMs: () => number;
  private readonly maxEntries: number;
  private readonly maxForgets: number;

  constructor(ttlMs: () => number, maxEntries = 10_000, maxForgets = 10_000) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
    this.maxForgets = maxForgets;
  }

  get enabled(): boolean {
    return this.ttlMs() > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Taken before a database lookup and handed back to `set`. */
  get epoch(): number {
    return this.epochValue;
  }

  get(key: string, now: Date): CachedAuth | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (!this.enabled) {
      this.clear();
      return undefined;
    }
    if (e.staleAt <= Date.now() || (e.expiresAt && e.expiresAt <= now)) {
      this.delete(key, e.user.id);
      return undefined;
    }
    return e;
  }

  set(key: string, value: CachedAuth, epochAtLookup: number): void {
    const ttl = this.ttlMs();
    if (ttl <= 0 || epochAtLookup < this.floor || (this.forgotAt.get(value.user.id) ?? -1) > epochAtLookup) return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest first: Map keeps insertion order.
      const oldest = this.entries.entries().next().value;
      if (oldest) this.delete(oldest[0], oldest[1].user.id);
    }
    // Shared by every request that hits the entry: frozen, so a handler that tried to edit it would throw.
    deepFreeze(value.user);
    this.entries.set(key, { ...value, staleAt: Date.now() + ttl });
    let keys = this.keysByUser.get(value.user.id);
    if (!keys) this.keysByUser.set(value.user.id, (keys = new Set()));
    keys.add(key);
  }

  forgetUser(userId: string): void {
    this.epochValue++;
    this.forgotAt.delete(userId);
    this.forgotAt.set(userId, this.epochValue);
    if (this.forgotAt.size > this.maxForgets) {
      const [oldUser, oldEpoch] = this.forgotAt.entries().next().value!;
      this.forgotAt.delete(oldUser);
      this.floor = Math.max(this.floor, oldEpoch);
    }
    const keys = this.keysByUser.get(userId);
    if (!keys) return;
    for (const k of keys) this.entries.delete(k);
    this.keysByUser.delete(userId);
  }

  clear(): void {
    this.epochValue++;
    this.floor = this.epochValue;
    this.forgotAt.clear();
    this.entries.clear();
    this.keysByUser.clear();
  }

  private delete(key: string, userId: string) {
    this.entries.delete(key);
    const keys = this.keysByUser.get(userId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByUser.delete(userId);
  }
}

function deepFreeze(o: unknown): void {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o) || o instanceof Date) return;
  Object.freeze(o);
  for (const v of Object.values(o)) deepFreeze(v);
}
