import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  LOGO_LIMITS,
  POD_LIMITS,
  assignShipmentsRequest,
  courierDayRequest,
  createShipmentRequest,
  editShipmentRequest,
  labelsQuery,
  listShipmentsRequest,
  logoUploadRequest,
  proofParams,
  shipmentMarkersRequest,
  unassignShipmentsRequest,
  updateShipmentRequest,
} from '@shiptrail/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { parse, success } from '../../lib/http.ts';
import { notFound } from '../../lib/errors.ts';
import { exactReply, idempotencyKeyOf, idempotentReply, requestHash, sendExact, storedReply } from '../../lib/idempotency.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import { renderLabels } from './labels.ts';
import * as svc from './shipments.service.ts';
import { afterShipmentsChanged, courierDayInPlanOrder, statusMovesThePlan } from '../planning/planning.service.ts';

// The Idempotency-Key scope of the charging route.
const CREATE_ROUTE = 'POST /v1/shipment/create';
const UPDATE_ROUTE = 'POST /v1/shipment/update';

type Auth = { preHandler: FastifyInstance['requireAuth'] };
const body = (req: FastifyRequest) => req.body ?? {};

const created = ({ view, warning }: Awaited<ReturnType<typeof svc.createShipment>>) =>
  exactReply(201, success(warning ? { ...view, warning } : view, warning ? `Shipment created. ${warning}` : 'Shipment created', 201));

export async function shipmentRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const auth: Auth = { preHandler: app.requireAuth };
  writeRoutes(app, ctx, auth);
  listAndAssignRoutes(app, ctx, auth);
  logoRoutes(app, ctx, auth);
  labelRoutes(app, ctx, auth);
}

/** Creating a shipment (it charges) and adding a checkpoint, each under an optional Idempotency-Key. */
function writeRoutes(app: FastifyInstance, ctx: AppContext, auth: Auth) {
  // Creating charges the account: under an Idempotency-Key a retried create answers the first reply byte for
  // byte and neither creates nor charges again (the same rule as adding a tracking).
  // A shipment of a day that has a plan joins it after the answer (decision 125).
  app.post('/v1/shipment/create', auth, async (req, reply) => {
    const input = parse(createShipmentRequest, body(req));
    const user = userOf(req);
    const plan = await svc.planShipment(ctx, user, input);
    const key = idempotencyKeyOf(req);
    let tid = '';
    const make = async (tx?: Parameters<typeof svc.createShipment>[4]) => {
      const made = await svc.createShipment(ctx, user, input, plan, tx);
      tid = made.view.tid;
      return created(made);
    };
    if (!key) sendExact(reply, await make());
    else {
      const scope = { userId: user.id, route: CREATE_ROUTE, key, hash: requestHash(svc.createRequestIdentity(input)) };
      sendExact(reply, await idempotentReply(ctx.db, scope, make));
    }
    if (tid) void afterShipmentsChanged(ctx, user, [tid], 'created');
    return reply;
  });

  // A Delivered checkpoint may carry a photo and a signature: the body may be larger than elsewhere. A phone that
  // was offline sends its queued checkpoints under an Idempotency-Key (decision 120): a resend after a lost reply
  // answers the first reply byte for byte and adds nothing, also after a restart (the key is in the database).
  // A failed attempt, a delivery or an Expired status changes the day's plan after the answer (decision 137), and
  // so does Out For Delivery again on a failed attempt: a re-attempt (decision 143).
  app.post('/v1/shipment/update', { ...auth, bodyLimit: POD_LIMITS.bodyMaxBytes }, async (req, reply) => {
    const input = parse(updateShipmentRequest, body(req));
    const user = userOf(req);
    const added = (view: Awaited<ReturnType<typeof svc.applyUpdate>>) => exactReply(200, success(view, 'Checkpoint added'));
    const planFollows = () => {
      if (statusMovesThePlan(input.status))
        void afterShipmentsChanged(ctx, user, [input.tid], 'status', input.occurredAt ? new Date(input.occurredAt) : undefined);
    };
    const key = idempotencyKeyOf(req);
    if (!key) {
      sendExact(reply, added(await svc.updateShipment(ctx, user, input)));
      planFollows();
      return reply;
    }
    const scope = { userId: user.id, route: UPDATE_ROUTE, key, hash: requestHash(svc.updateRequestIdentity(input)) };
    const replayed = await storedReply(ctx.db, scope);
    if (replayed) return sendExact(reply, replayed);
    const plan = await svc.planUpdate(ctx, user, input);
    const out = await idempotentReply(ctx.db, scope, async (tx) => added(await svc.applyUpdate(ctx, user, input, plan, tx)));
    await svc.notePosition(ctx, user, input);
    sendExact(reply, out);
    planFollows();
    return reply;
  });
}

/** Editing, the lists (company, courier, today), proofs, assigning and the map's markers. */
function listAndAssignRoutes(app: FastifyInstance, ctx: AppContext, auth: Auth) {
  app.post('/v1/shipment/edit', auth, async (req) =>
    success(await svc.editShipment(ctx, userOf(req), parse(editShipmentRequest, body(req))), 'Saved'),
  );

  app.post('/v1/shipment/getshipments', auth, async (req) =>
    success(await svc.listCompanyShipments(ctx, userOf(req), parse(listShipmentsRequest, body(req)))),
  );

  app.post('/v1/shipment/getassigned', auth, async (req) =>
    success(await svc.listAssigned(ctx, userOf(req), parse(listShipmentsRequest, body(req)))),
  );

  // In the order of today's plan, with its times, when the day was planned (decision 118).
  app.post('/v1/shipment/today', auth, async (req) => {
    const user = userOf(req);
    return success(await courierDayInPlanOrder(ctx, user, await svc.courierDay(ctx, user, parse(courierDayRequest, body(req)))));
  });

  app.get('/v1/shipment/proof/:tid/:checkpointId', auth, async (req) => {
    const { tid, checkpointId } = parse(proofParams, req.params);
    return success(await svc.proofOf(ctx, userOf(req), tid, checkpointId));
  });

  app.post('/v1/shipment/assign', auth, async (req) => {
    const list = await svc.assignShipments(ctx, userOf(req), parse(assignShipmentsRequest, body(req)));
    void afterShipmentsChanged(
      ctx,
      userOf(req),
      list.map((s) => s.tid),
      'assigned',
    );
    return success(list, `${list.length} ${list.length === 1 ? 'shipment' : 'shipments'} assigned to ${list[0]?.courier ?? ''}`);
  });

  app.post('/v1/shipment/unassign', auth, async (req) => {
    const list = await svc.unassignShipments(ctx, userOf(req), parse(unassignShipmentsRequest, body(req)));
    void afterShipmentsChanged(
      ctx,
      userOf(req),
      list.map((s) => s.tid),
      'unassigned',
    );
    return success(list, `${list.length} ${list.length === 1 ? 'shipment' : 'shipments'} unassigned`);
  });

  app.post('/v1/shipment/markers', auth, async (req) =>
    success(await svc.shipmentMarkers(ctx, userOf(req), parse(shipmentMarkersRequest, body(req)))),
  );
}

/** The company's logo: uploaded, removed, and served to its customers. */
function logoRoutes(app: FastifyInstance, ctx: AppContext, auth: Auth) {
  // The logo's body is a data URL of up to LOGO_LIMITS.maxBytes (base64 is 4/3 of the bytes).
  app.post('/v1/user/general/logo', { ...auth, bodyLimit: Math.ceil((LOGO_LIMITS.maxBytes * 4) / 3) + 64 * 1024 }, async (req) =>
    success(await svc.uploadLogo(ctx, userOf(req), parse(logoUploadRequest, body(req)).image), 'Logo saved'),
  );
  app.post('/v1/user/general/logo/remove', auth, async (req) => success(await svc.removeLogo(ctx, userOf(req)), 'Logo removed'));

  // Public: the branded page and customer mails show it. Only bytes we re-encoded are served, as a PNG, and
  // never run as anything else (nosniff is set for every reply; the CSP sandbox covers a direct visit).
  app.get('/v1/brand/logo/:file', async (req, reply) => {
    const { file } = parse(z.object({ file: z.string().max(80) }), req.params);
    const logo = await svc.logoFile(ctx, file);
    if (!logo) throw notFound('No logo here');
    return reply
      .type('image/png')
      .header('cache-control', 'public, max-age=86400')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('last-modified', logo.updatedAt.toUTCString())
      .send(logo.png);
  });
}

/** The printable labels. */
function labelRoutes(app: FastifyInstance, ctx: AppContext, auth: Auth) {
  // A PDF, not an envelope (errors before it are envelopes as usual). Rendering is CPU work: limited per IP.
  app.get('/v1/shipment/labels', { ...auth, config: { rateLimit: { max: 60, timeWindow: 60_000 } } }, async (req, reply) => {
    const { tids } = parse(labelsQuery, req.query);
    const user = userOf(req);
    const list = await svc.shipmentsForLabels(ctx, user, tids);
    const company = await svc.companyOf(ctx, user);
    const pdf = await renderLabels(list, svc.brandOf(company).name);
    const name = list.length === 1 ? `label-${list[0]!.tid}.pdf` : `labels-${list.length}.pdf`;
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${name}"`)
      .header('cache-control', 'no-store')
      .send(Buffer.from(pdf));
  });
}
