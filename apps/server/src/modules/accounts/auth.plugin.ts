import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_TOKEN_HEADER, MSG } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { unauthorized, forbidden } from '../../lib/errors.ts';
import { findUserByApiKeyHash, findSessionByHash, type UserRow } from './accounts.repository.ts';
import { hashToken, SESSION_PREFIX } from './tokens.ts';
import { AuthCache } from './auth-cache.ts';
import { onUserChanged } from '../../lib/auth-signal.ts';

export interface AuthInfo {
  user: UserRow;
  /** The web session behind the request, or null when an API key was used. */
  sessionId: string | null;
  /** When that session ends (null for the API key). */
  expiresAt?: Date | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthInfo | null;
  }
  interface FastifyInstance {
    /** preHandler: 401 unless `sm-api-token` holds a live session token or the account's API key. */
    requireAuth: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** preHandler: as requireAuth, and the account must be an account owner (not a courier). */
    requireOwner: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Who `token` signs in now, read from the database (not the cache): an open live stream checks itself with it. */
    authenticateFresh: (token: string) => Promise<AuthInfo | null>;
  }
}

export const authPlugin = fp(async (app, { ctx }: { ctx: AppContext }) => {
  app.decorateRequest('auth', null);

  // Checked tokens are kept for AUTH_CACHE_SECONDS; a change to the account forgets them at once, here
  // (lib/auth-signal.ts) and in every other process (the bus). After a bus reconnect, which may have lost
  // messages, the bus sends a message with no user: forget all.
  const cache = new AuthCache(() => ctx.config.AUTH_CACHE_SECONDS * 1000);
  const stopLocal = onUserChanged((userId) => cache.forgetUser(userId));
  const stopAuth = ctx.bus.subscribe('auth', (m) => {
    const userId = (m.data as { userId?: unknown }).userId;
    if (typeof userId === 'string') cache.forgetUser(userId);
    else cache.clear();
  });
  app.addHook('onClose', async () => {
    stopLocal();
    stopAuth();
  });

  async function resolve(req: FastifyRequest): Promise<AuthInfo | null> {
    const raw = req.headers[API_TOKEN_HEADER];
    const token = Array.isArray(raw) ? raw[0] : raw;
    return token ? byToken(token, true) : null;
  }

  async function byToken(token: string, useCache: boolean): Promise<AuthInfo | null> {
    if (!token || token.length > 200) return null;
    const key = hashToken(token);
    const now = ctx.now();
    const hit = useCache ? cache.get(key, now) : undefined;
    if (hit) return { user: hit.user, sessionId: hit.sessionId, expiresAt: hit.expiresAt };
    const epoch = cache.epoch;
    if (token.startsWith(SESSION_PREFIX)) {
      const found = await findSessionByHash(ctx.db, key, now);
      if (!found) return null;
      cache.set(key, found, epoch);
      return { user: found.user, sessionId: found.sessionId, expiresAt: found.expiresAt };
    }
    const user = await findUserByApiKeyHash(ctx.db, key);
    if (!user) return null;
    cache.set(key, { user, sessionId: null, expiresAt: null }, epoch);
    return { user, sessionId: null, expiresAt: null };
  }

  app.decorate('authenticateFresh', (token: string) => byToken(token, false));
  app.decorate('requireAuth', async (req: FastifyRequest) => {
    req.auth = await resolve(req);
    if (!req.auth) throw unauthorized(MSG.unauthorized);
  });
  app.decorate('requireOwner', async (req: FastifyRequest) => {
    req.auth = await resolve(req);
    if (!req.auth) throw unauthorized(MSG.unauthorized);
    if (req.auth.user.role === 'courier') throw forbidden('Couriers cannot use this call');
  });
});

/** The authenticated user of a request that passed requireAuth. */
export function userOf(req: FastifyRequest): UserRow {
  if (!req.auth) throw unauthorized(MSG.unauthorized);
  return req.auth.user;
}
