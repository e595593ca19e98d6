import { describe, expect, it } from 'vitest';
import { INVITE_TTL_MS, currentInvite, forgetInvite, rememberInvite, storedInvite } from './invite';

/** Storage's three calls over a Map (the browser's localStorage is exercised by e2e/words.spec.ts). */
const memory = () => {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
};

describe('the invitation a visitor arrived with', () => {
  it('is kept across pages of the landing and used when the route has none', () => {
    const s = memory();
    rememberInvite({ referrer: 'REF123' }, s, 1000);
    expect(currentInvite({}, s, 2000)).toEqual({ promocode: undefined, referrer: 'REF123' });
    // A plain visit does not wipe it; a new invite link replaces it.
    rememberInvite({}, s, 3000);
    expect(storedInvite(s, 3000).referrer).toBe('REF123');
    rememberInvite({ promocode: 'SPRING', referrer: 'OTHER' }, s, 4000);
    expect(currentInvite({}, s, 5000)).toEqual({ promocode: 'SPRING', referrer: 'OTHER' });
    expect(currentInvite({ referrer: 'ROUTE' }, s, 5000)).toEqual({ promocode: undefined, referrer: 'ROUTE' });
  });
  it('expires after 30 days, ignores junk and is forgotten once a session starts', () => {
    const s = memory();
    rememberInvite({ referrer: 'REF123' }, s, 0);
    expect(storedInvite(s, INVITE_TTL_MS + 1)).toEqual({});
    s.setItem('shiptrail.invite', '{not json');
    expect(storedInvite(s, 0)).toEqual({});
    rememberInvite({ referrer: 'REF123' }, s, 0);
    forgetInvite(s);
    expect(storedInvite(s, 0)).toEqual({});
  });
});
