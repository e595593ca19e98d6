import type { FastifyInstance } from 'fastify';
import {
  addMemberRequest,
  deleteMemberRequest,
  positionRequest,
  positionsRequest,
  trailRequest,
  updateMemberRequest,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { parse, success } from '../../lib/http.ts';
import { exactReply, idempotencyKeyOf, idempotentReply, requestHash, sendExact } from '../../lib/idempotency.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as svc from './members.service.ts';
import { reportPosition, reportTrail } from '../shipments/shipments.service.ts';

const POSITIONS_ROUTE = 'POST /v1/user/general/positions';

export async function memberRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const auth = { preHandler: app.requireAuth };
  // Managing members is the owner's: a courier is refused before its input is read (a 403, not a 400 about a
  // field of a call it may not make).
  const owner = { preHandler: app.requireOwner };

  app.post('/v1/user/general/addmember', owner, async (req, reply) => {
    const input = parse(addMemberRequest, req.body);
    const view = await svc.addMember(ctx, userOf(req), input);
    reply.code(201);
    return success(view, `${view.firstName} ${view.lastName} can now sign in as your courier`, 201);
  });
  app.post('/v1/user/general/updatemember', owner, async (req) =>
    success(await svc.updateMember(ctx, userOf(req), parse(updateMemberRequest, req.body)), 'Saved'),
  );
  app.post('/v1/user/general/deletemember', owner, async (req) => {
    await svc.deleteMember(ctx, userOf(req), parse(deleteMemberRequest, req.body));
    return success(null, 'Courier deleted. Their shipments stay with you, unassigned.');
  });
  app.post('/v1/user/general/getmembers', owner, async (req) => success(await svc.listMembers(ctx, userOf(req))));
  app.post('/v1/user/general/position', auth, async (req) => {
    const { lat, lng, takenAt } = parse(positionRequest, req.body);
    await reportPosition(ctx, userOf(req), lat, lng, takenAt ? new Date(takenAt) : undefined);
    return success({ lat, lng }, 'Position saved');
  });
  // The positions a phone kept without signal, in one batch (decision 149). Each is kept once by its time, so a
  // resend adds nothing; under an Idempotency-Key a resend also gets the first reply byte for byte.
  app.post('/v1/user/general/positions', auth, async (req, reply) => {
    const { positions } = parse(positionsRequest, req.body);
    const user = userOf(req);
    const fixes = positions.map((p) => ({ lat: p.lat, lng: p.lng, takenAt: new Date(p.takenAt) }));
    let share = async () => {};
    const work = async (tx: Tx) => {
      const r = await reportTrail(ctx, user, fixes, tx);
      share = r.share;
      return exactReply(200, success({ added: r.added, last: r.last }, r.added === 1 ? '1 position saved' : `${r.added} positions saved`));
    };
    const key = idempotencyKeyOf(req);
    const out = key
      ? await idempotentReply(ctx.db, { userId: user.id, route: POSITIONS_ROUTE, key, hash: requestHash(positions) }, work)
      : await ctx.db.transaction(work);
    sendExact(reply, out);
    // Recipients hear of a fresh newest fix after it is stored; a failure here loses no position.
    await share().catch((err: unknown) => req.log.warn({ err }, 'positions: could not share the newest fix'));
    return reply;
  });
  app.post('/v1/user/general/trail', owner, async (req) => {
    const { uid, since } = parse(trailRequest, req.body);
    return success(await svc.trailOf(ctx, userOf(req), uid, since ? new Date(since) : undefined));
  });
}
