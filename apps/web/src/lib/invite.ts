/**
 * The invitation a visitor arrived with (/referrer/{code}, /{promocode}/{userID}), kept in localStorage like the
 * spec's session keeps its "referer" (product rules §3): a friend who clicks START FREE, LOGIN, Pricing or
 * Features leaves the invite route, and the sign-up must still carry the referrer, or the inviter never gets
 * the reward. Kept 30 days; dropped once a session starts (the sign-up used it, or the visitor has an account).
 */
export interface Invite {
  promocode?: string;
  referrer?: string;
}

const KEY = 'shiptrail.invite';
export const INVITE_TTL_MS = 30 * 86_400_000;

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
const browserStore = (): Store | null => {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
};

/** Remembers the invitation of this visit; an empty one changes nothing (a later plain visit keeps it). */
export function rememberInvite(invite: Invite, store: Store | null = browserStore(), now = Date.now()) {
  const promocode = invite.promocode?.trim() || undefined;
  const referrer = invite.referrer?.trim() || undefined;
  if (!store || (!promocode && !referrer)) return;
  try {
    store.setItem(KEY, JSON.stringify({ promocode, referrer, at: now }));
  } catch {
    // Private mode or quota: the invite still holds while the visitor stays on the invite route.
  }
}

/** The remembered invitation, or an empty one when there is none, it is malformed, or it is over 30 days old. */
export function storedInvite(store: Store | null = browserStore(), now = Date.now()): Invite {
  try {
    const raw = store?.getItem(KEY);
    if (!raw) return {};
    const v = JSON.parse(raw) as { promocode?: unknown; referrer?: unknown; at?: unknown };
    if (typeof v.at !== 'number' || now - v.at > INVITE_TTL_MS) return {};
    const str = (x: unknown) => (typeof x === 'string' && x ? x.slice(0, 200) : undefined);
    return { promocode: str(v.promocode), referrer: str(v.referrer) };
  } catch {
    return {};
  }
}

export function forgetInvite(store: Store | null = browserStore()) {
  try {
    store?.removeItem(KEY);
  } catch {
    /* nothing kept */
  }
}

/** The route's invitation wins; otherwise the one remembered from an earlier page of this visit. */
export function currentInvite(fromRoute: Invite, store: Store | null = browserStore(), now = Date.now()): Invite {
  if (fromRoute.promocode || fromRoute.referrer) return { promocode: fromRoute.promocode, referrer: fromRoute.referrer };
  return storedInvite(store, now);
}
