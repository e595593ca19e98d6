import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createPlanRequest, patchPlanStopRequest, planParams, planStopParams, replanRequest } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { parse, success } from '../../lib/http.ts';
import { exactReply, idempotencyKeyOf, idempotentReply, requestHash, sendExact, storedReply } from '../../lib/idempotency.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as svc from './planning.service.ts';

// The Idempotency-Key scope of making a plan.
const PLAN_ROUTE = 'POST /v1/plans';

export async function planningRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const auth = { preHandler: app.requireAuth };
  const body = (req: FastifyRequest) => req.body ?? {};
  const planned = (view: Awaited<ReturnType<typeof svc.storePlan>>, status: number) =>
    exactReply(status, success(view, planMessage(view), status));

  // Planning assigns shipments: under an Idempotency-Key a retry answers the first reply byte for byte and
  // neither plans nor assigns again. The solve runs before the key's transaction (it takes seconds, off-thread).
  app.post('/v1/plans', auth, async (req, reply) => {
    const { date, ...settings } = parse(createPlanRequest, body(req));
    const user = userOf(req);
    const key = idempotencyKeyOf(req);
    const scope = key ? { userId: user.id, route: PLAN_ROUTE, key, hash: requestHash({ date, ...settings }) } : undefined;
    if (scope) {
      const replay = await storedReply(ctx.db, scope);
      if (replay) return sendExact(reply, replay);
    }
    const solved = await svc.solvePlan(ctx, user, date, settings);
    const work = async (tx: Parameters<Parameters<typeof idempotentReply>[2]>[0]) =>
      planned(await svc.storePlan(ctx, user, date, solved, tx), 201);
    if (!scope) return sendExact(reply, await ctx.db.transaction(work));
    return sendExact(reply, await idempotentReply(ctx.db, scope, work));
  });

  app.get('/v1/plans/:date', auth, async (req) => {
    const { date } = parse(planParams, req.params);
    return success(await svc.getPlan(ctx, userOf(req), date));
  });

  app.post('/v1/plans/:date/replan', auth, async (req) => {
    const { date } = parse(planParams, req.params);
    const settings = parse(replanRequest, body(req));
    const user = userOf(req);
    const solved = await svc.solvePlan(ctx, user, date, settings, true);
    const view = await ctx.db.transaction((tx) => svc.storePlan(ctx, user, date, solved, tx));
    return success(view, planMessage(view));
  });

  app.patch('/v1/plans/:date/stops/:tid', auth, async (req) => {
    const { date, tid } = parse(planStopParams, req.params);
    return success(await svc.patchStop(ctx, userOf(req), date, tid, parse(patchPlanStopRequest, body(req))), 'Saved');
  });
}

/** "12 stops planned for 3 couriers; 1 could not be planned" */
function planMessage(v: Awaited<ReturnType<typeof svc.storePlan>>): string {
  const stops = v.routes.reduce((n, r) => n + r.stops.length, 0);
  const used = v.routes.filter((r) => r.stops.length > 0).length;
  const head = `${stops} ${stops === 1 ? 'stop' : 'stops'} planned for ${used} ${used === 1 ? 'courier' : 'couriers'}`;
  return v.unplanned.length ? `${head}; ${v.unplanned.length} could not be planned` : head;
}
