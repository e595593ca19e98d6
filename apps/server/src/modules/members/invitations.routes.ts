import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  INVITE_MSG,
  acceptInvitationRequest,
  createInvitationRequest,
  declineInvitationRequest,
  invitationIdRequest,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { parse, success } from '../../lib/http.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as svc from './invitations.service.ts';

/** Costly or guessable public calls are limited per IP. */
const perIp = (max: number, minutes = 15) => ({ config: { rateLimit: { max, timeWindow: minutes * 60_000 } } });

/** "Invitation sent by email and SMS ($0.04)", plus why an SMS did not go, plus `after`. */
const sentMessage = (base: string, o: svc.SendOutcome, after = '') => {
  const how = o.sms === true ? `${base} by email and SMS ($0.04)` : `${base} by email`;
  return how + after + (o.note ? `. ${o.note}` : '');
};

export async function invitationRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // Owners only: a courier may not invite (requireOwner answers 403), and only a company has couriers.
  const owner = { preHandler: app.requireOwner };

  app.post('/v1/user/invitations/create', owner, async (req, reply) => {
    const input = parse(createInvitationRequest, req.body);
    const { view, outcome } = await svc.createInvitation(ctx, userOf(req), input);
    reply.code(201);
    return success(view, sentMessage(INVITE_MSG.sent, outcome), 201);
  });
  app.get('/v1/user/invitations/list', owner, async (req) => success(await svc.listInvitations(ctx, userOf(req))));
  app.post('/v1/user/invitations/resend', owner, async (req) => {
    const { id } = parse(invitationIdRequest, req.body);
    const { view, outcome } = await svc.resendInvitation(ctx, userOf(req), id);
    return success(view, sentMessage(INVITE_MSG.resent, outcome, ': the earlier link no longer works'));
  });
  app.post('/v1/user/invitations/revoke', owner, async (req) => {
    const { id } = parse(invitationIdRequest, req.body);
    return success(await svc.revokeInvitation(ctx, userOf(req), id), INVITE_MSG.revoked);
  });

  app.get('/v1/invitations/:token', perIp(60), async (req) =>
    success(await svc.viewInvitation(ctx, (req.params as { token: string }).token)),
  );
  app.post('/v1/invitations/accept', perIp(20), async (req: FastifyRequest) => {
    const input = parse(acceptInvitationRequest, req.body);
    return success(await svc.acceptInvitation(ctx, input, { ip: req.ip, userAgent: req.headers['user-agent'] }), INVITE_MSG.accepted);
  });
  app.post('/v1/invitations/decline', perIp(20), async (req) => {
    const { token } = parse(declineInvitationRequest, req.body);
    await svc.declineInvitation(ctx, token);
    return success(null, INVITE_MSG.declinedNow);
  });
}
