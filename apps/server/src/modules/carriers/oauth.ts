// OAuth 2.0 client-credentials token cache shared by the UPS, USPS and FedEx adapters.
// - One token per carrier and client, reused until shortly before it expires: UPS asked a 429 reporter whether
//   they fetched "a new access token per call" (carrier notes §1.2, UPS-API issue #123), and USPS counts token
//   requests against its ~60/hour quota (carrier notes §2.6).
// - Single flight: concurrent callers share one in-flight token request.
// - invalidate(token) after a 401 on a track call, so the next get() fetches a fresh token (carrier notes §3.2).

export type FetchedToken = { accessToken: string; expiresInSec: number };

export class OAuthTokenCache {
  private token: string | null = null;
  private expiresAt = 0;
  private inflight: Promise<string> | null = null;
  private readonly fetchToken: () => Promise<FetchedToken>;
  private readonly now: () => number;

  constructor(fetchToken: () => Promise<FetchedToken>, now: () => number = Date.now) {
    this.fetchToken = fetchToken;
    this.now = now;
  }

  async get(): Promise<string> {
    if (this.token && this.now() < this.expiresAt) return this.token;
    if (this.inflight) return this.inflight;
    const started = this.now();
    const p = this.fetchToken()
      .then(({ accessToken, expiresInSec }) => {
        // Expiry counted from when we asked (not from the carrier's issued_at), so clock skew cannot extend it.
        const ttlMs = Math.max(0, expiresInSec * 1000);
        this.token = accessToken;
        this.expiresAt = started + ttlMs - refreshMargin(ttlMs);
        return accessToken;
      })
      .finally(() => {
        if (this.inflight === p) this.inflight = null;
      });
    this.inflight = p;
    return p;
  }

  /** Forget a token the carrier rejected; a token fetched meanwhile by someone else is kept. */
  invalidate(token: string): void {
    if (this.token === token) {
      this.token = null;
      this.expiresAt = 0;
    }
  }
}

// Refresh a little early: 10% of the lifetime, at most 5 minutes, at least 1 s (UPS ~4 h, USPS ~8 h,
// FedEx ~1 h tokens; carrier notes §0).
function refreshMargin(ttlMs: number): number {
  return Math.min(5 * 60_000, Math.max(1000, ttlMs * 0.1));
}

/** `expires_in` arrives as a string from UPS and a number from USPS/FedEx (carrier notes §6 "numbers as strings"). */
export function readExpiresIn(v: unknown, fallbackSec = 3600): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0) return fallbackSec;
  return Math.min(n, 7 * 24 * 3600);
}
