import { createHash } from 'node:crypto';
import { MSG } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { AppError, badRequest } from '../../lib/errors.ts';
import { randomToken } from '../../lib/crypto.ts';
import { insertOAuthState, takeOAuthState } from './accounts.repository.ts';

export interface GoogleProfile {
  sub: string;
  email: string;
  emailVerified: boolean;
  firstName: string;
  lastName: string;
  picture: string;
}

const STATE_TTL_MS = 10 * 60 * 1000;

function requireGoogle(ctx: AppContext) {
  const { GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET } = ctx.config;
  if (!GOOGLE_CLIENT_ID || !GOOGLE_CLIENT_SECRET) throw new AppError(503, MSG.googleNotConfigured, 'google_not_configured');
  return { clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET };
}

/** The return address: our landing page; login=1 tells the page to log in rather than register (product rules §2). */
function returnUri(ctx: AppContext, mode: 'login' | 'signup', requested?: string): string {
  const base = ctx.config.publicUrl;
  if (requested) {
    const u = new URL(requested);
    if (u.origin !== new URL(base).origin) throw badRequest('redirectUri must be on this site');
    return u.toString();
  }
  return mode === 'login' ? `${base}/?login=1` : `${base}/`;
}

/** Authorization-code flow with state and PKCE (S256); the state and verifier stay on the server. */
export async function googleAuthUrl(ctx: AppContext, mode: 'login' | 'signup', requestedRedirect?: string): Promise<string> {
  const { clientId } = requireGoogle(ctx);
  const state = randomToken(24);
  const codeVerifier = randomToken(48);
  const challenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const redirectUri = returnUri(ctx, mode, requestedRedirect);
  await insertOAuthState(ctx.db, { state, codeVerifier, mode, redirectUri });
  const u = new URL(ctx.config.GOOGLE_AUTH_URL);
  u.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    prompt: 'select_account',
  }).toString();
  return u.toString();
}

/** Exchange the code (single-use state, PKCE verifier) and read the Google profile. */
export async function googleExchange(ctx: AppContext, code: string, state: string): Promise<{ profile: GoogleProfile; mode: string }> {
  const { clientId, clientSecret } = requireGoogle(ctx);
  const saved = await takeOAuthState(ctx.db, state);
  if (!saved || ctx.now().getTime() - saved.createdAt.getTime() > STATE_TTL_MS) throw badRequest(MSG.googleFailed);
  try {
    const tokenRes = await fetch(ctx.config.GOOGLE_TOKEN_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: saved.redirectUri,
        client_id: clientId,
        client_secret: clientSecret,
        code_verifier: saved.codeVerifier,
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const token = (await tokenRes.json()) as { access_token?: string };
    if (!tokenRes.ok || !token.access_token) throw new Error(`token endpoint ${tokenRes.status}`);
    const infoRes = await fetch(ctx.config.GOOGLE_USERINFO_URL, {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    const info = (await infoRes.json()) as Record<string, unknown>;
    if (!infoRes.ok || typeof info.sub !== 'string' || typeof info.email !== 'string') throw new Error(`userinfo ${infoRes.status}`);
    return {
      mode: saved.mode,
      profile: {
        sub: info.sub,
        email: info.email.toLowerCase(),
        emailVerified: info.email_verified === true || info.email_verified === 'true',
        firstName: typeof info.given_name === 'string' ? info.given_name : '',
        lastName: typeof info.family_name === 'string' ? info.family_name : '',
        picture: typeof info.picture === 'string' ? info.picture : '',
      },
    };
  } catch (err) {
    ctx.log.warn({ err: String(err) }, 'google sign-in failed');
    throw badRequest(MSG.googleFailed);
  }
}
