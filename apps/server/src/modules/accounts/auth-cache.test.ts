import { describe, expect, it } from 'vitest';
import { AuthCache, type CachedAuth } from './auth-cache.ts';
import type { UserRow } from './accounts.repository.ts';

const entry = (userId: string, expiresAt: Date | null = null): CachedAuth => ({
  user: { id: userId, settings: { a: { b: 1 } } } as unknown as UserRow,
  sessionId: 's',
  expiresAt,
});

describe('AuthCache', () => {
  it('does not store a lookup that started before a change (the slow read that would bring a stale row back)', () => {
    const c = new AuthCache(() => 10_000);
    const epoch = c.epoch;
    c.forgetUser('u1'); // a change lands while the lookup is in flight
    c.set('k', entry('u1'), epoch);
    expect(c.get('k', new Date())).toBeUndefined();
    c.set('k', entry('u1'), c.epoch);
    expect(c.get('k', new Date())?.user.id).toBe('u1');
  });

  it("a change to one account does not stop another account's lookup from being kept; a clear stops every earlier one", () => {
    const c = new AuthCache(() => 10_000);
    const epoch = c.epoch;
    c.forgetUser('u2'); // another account changes while u1's lookup is in flight
    c.set('k1', entry('u1'), epoch);
    expect(c.get('k1', new Date())?.user.id).toBe('u1');
    c.set('k2', entry('u2'), epoch);
    expect(c.get('k2', new Date())).toBeUndefined();

    const before = c.epoch;
    c.clear(); // the bus reconnected: any forget may have been lost
    c.set('k3', entry('u3'), before);
    expect(c.get('k3', new Date())).toBeUndefined();
  });

  it('bounds its per-user marks: a lookup older than a dropped mark is not kept', () => {
    const c = new AuthCache(() => 10_000, 100, 2);
    const epoch = c.epoch;
    for (const u of ['a', 'b', 'c']) c.forgetUser(u); // 'a' drops out of the marks
    c.set('k', entry('a'), epoch);
    expect(c.get('k', new Date())).toBeUndefined();
    c.set('k', entry('a'), c.epoch);
    expect(c.get('k', new Date())?.user.id).toBe('a');
  });

  it("forgets every token of a user, and only that user's", () => {
    const c = new AuthCache(() => 10_000);
    c.set('k1', entry('u1'), c.epoch);
    c.set('k2', entry('u1'), c.epoch);
    c.set('k3', entry('u2'), c.epoch);
    c.forgetUser('u1');
    expect([c.get('k1', new Date()), c.get('k2', new Date())]).toEqual([undefined, undefined]);
    expect(c.get('k3', new Date())?.user.id).toBe('u2');
  });

  it('drops a session at its end, holds at most maxEntries, and stores nothing when off', () => {
    const c = new AuthCache(() => 10_000, 2);
    c.set('k1', entry('u1', new Date(Date.now() + 1000)), c.epoch);
    expect(c.get('k1', new Date(Date.now() + 2000))).toBeUndefined();
    for (const k of ['a', 'b', 'c']) c.set(k, entry(k), c.epoch);
    expect(c.size).toBe(2);
    expect(c.get('a', new Date())).toBeUndefined();
    const off = new AuthCache(() => 0);
    off.set('k', entry('u'), off.epoch);
    expect(off.size).toBe(0);
  });

  it('freezes what it shares between requests', () => {
    const c = new AuthCache(() => 10_000);
    const e = entry('u1');
    c.set('k', e, c.epoch);
    expect(() => {
      (e.user.settings as { a: { b: number } }).a.b = 2;
    }).toThrow(TypeError);
  });
});
