import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_TOKEN_HEADER, MSG } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { unauthorized, forbidden } from '../../lib/errors.ts';
import { findUserByApiKey, findSession, type UserRow } from './accounts.repository.ts';
import { SESSION_PREFIX } from './tokens.ts';

export interface AuthInfo {
  user: UserRow;
  /** The web session behind the request, or null when an API key was used. */
  sessionId: string | null;
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
  }
}

export const authPlugin = fp(async (app, { ctx }: { ctx: AppContext }) => {
  app.decorateRequest('auth', null);

  async function resolve(req: FastifyRequest): Promise<AuthInfo | null> {
    const raw = req.headers[API_TOKEN_HEADER];
    const token = Array.isArray(raw) ? raw[0] : raw;
    if (!token || token.length > 200) return null;
    if (token.startsWith(SESSION_PREFIX)) {
      const found = await findSession(ctx.db, token, ctx.now());
      return found ? { user: found.user, sessionId: found.sessionId } : null;
    }
    const user = await findUserByApiKey(ctx.db, token);
    return user ? { user, sessionId: null } : null;
  }

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
