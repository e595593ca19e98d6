import type { FastifyInstance } from 'fastify';
import { addMemberRequest, deleteMemberRequest, positionRequest, updateMemberRequest } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { parse, success } from '../../lib/http.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as svc from './members.service.ts';
import { reportPosition } from '../shipments/shipments.service.ts';

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
}
