import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import {
  addTrackingRequest,
  detectRequest,
  listTrackingsQuery,
  performanceQuery,
  updateTrackingRequest,
  type ImportReport,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { parse, rawSuccess, success } from '../../lib/http.ts';
import { exactReply, idempotencyKeyOf, idempotentReply, requestHash, sendExact } from '../../lib/idempotency.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as svc from './trackings.service.ts';
import { performance, performanceCsv } from './performance.ts';

const MAX_CSV_BYTES = 2 * 1024 * 1024;
// The Idempotency-Key scope of each charging route.
const ADD_ROUTE = 'POST /v1/trackings/add';
const IMPORT_ROUTE = 'POST /v1/trackings/import';

const TOO_LARGE = 'The CSV file is too large (2 MB at most)';
const notMultipart = () =>
  badRequest('The upload is not valid multipart/form-data: attach the CSV file in the form field "file"', {
    file: 'A CSV file is required',
  });

/** The CSV of an import: a multipart upload's "file" field, or a text/csv body. */
async function csvText(req: FastifyRequest): Promise<string> {
  if (typeof req.body === 'string') return req.body;
  if (!req.isMultipart()) {
    throw badRequest('Send the CSV as multipart/form-data (field "file") or as a text/csv body', { file: 'A CSV file is required' });
  }
  // A body that is not the multipart it claims to be is the client's error, not ours.
  const file = await req.file().catch((err: { statusCode?: number }) => {
    throw err.statusCode === 413 ? badRequest(TOO_LARGE) : notMultipart();
  });
  if (!file) throw badRequest('Attach the CSV file in the form field "file"', { file: 'A CSV file is required' });
  const buf = await file.toBuffer().catch((err: { statusCode?: number; code?: string }) => {
    throw err.statusCode === 413 || err.code === 'FST_REQ_FILE_TOO_LARGE' ? badRequest(TOO_LARGE) : notMultipart();
  });
  return buf.toString('utf8');
}

const tidParam = (req: FastifyRequest) => (req.params as { tid: string }).tid;
const added = ({ view, warning }: svc.AddedTracking) =>
  exactReply(201, success({ ...view, ...(warning ? { warning } : {}) }, warning ? `Tracking added. ${warning}` : 'Tracking added', 201));
const imported = (report: ImportReport) => exactReply(200, success(report, `${report.created} added, ${report.failed} failed`));

/** Registered inside this plugin only: multipart and text/csv bodies are accepted by the trackings routes, nowhere else. */
export async function trackingRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // Couriers work on their company's shipments only: trackings are the account owner's.
  const auth = { preHandler: app.requireOwner };
  await app.register(multipart, { limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: 10 } });
  app.addContentTypeParser(['text/csv', 'text/plain'], { parseAs: 'string', bodyLimit: MAX_CSV_BYTES }, (_req, body, done) =>
    done(null, body),
  );

  // Under an Idempotency-Key the reply is stored with the work (see idempotentReply) and sent as text, so a
  // replay is the first reply byte for byte; without one the reply goes out the same way.
  app.post('/v1/trackings/add', auth, async (req, reply) => {
    const input = parse(addTrackingRequest, req.body);
    const user = userOf(req);
    const key = idempotencyKeyOf(req);
    if (!key) return sendExact(reply, added(await svc.addTracking(ctx, user, input)));
    const scope = { userId: user.id, route: ADD_ROUTE, key, hash: requestHash(svc.addRequestIdentity(input)) };
    return sendExact(reply, await idempotentReply(ctx.db, scope, async (tx) => added(await svc.addTracking(ctx, user, input, tx))));
  });

  // Per IP as well as per account (in the service): each import can carry thousands of rows.
  app.post('/v1/trackings/import', { ...auth, config: { rateLimit: { max: 30, timeWindow: 15 * 60_000 } } }, async (req, reply) => {
    const text = await csvText(req);
    const user = userOf(req);
    const key = idempotencyKeyOf(req);
    const records = svc.readImportCsv(text);
    const out = await svc.withImportSlot(ctx, user, async () => {
      if (!key) return imported(await svc.importTrackings(ctx, user, records));
      const scope = { userId: user.id, route: IMPORT_ROUTE, key, hash: requestHash({ csv: text }) };
      return idempotentReply(ctx.db, scope, async (tx) => imported(await svc.importTrackings(ctx, user, records, tx)));
    });
    return sendExact(reply, out);
  });

  // The page arrives as JSON text built by the database; it goes into the envelope as it is.
  app.get('/v1/trackings/get', auth, async (req, reply) => {
    const page = await svc.listTrackingsJson(ctx, userOf(req), parse(listTrackingsQuery, req.query));
    return reply.type('application/json; charset=utf-8').send(rawSuccess(page));
  });

  app.get('/v1/trackings/performance', auth, async (req, reply) => {
    const q = parse(performanceQuery, req.query);
    const figures = await performance(ctx, userOf(req), q);
    if (q.format === 'json') return success(figures);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="delivery-performance-${figures.from}-to-${figures.to}.csv"`)
      .send(performanceCsv(figures));
  });
  app.put('/v1/trackings/update', auth, async (req) => {
    const { view, warning } = await svc.updateTracking(ctx, userOf(req), parse(updateTrackingRequest, req.body));
    return success(view, warning ? `Saved. ${warning}` : 'Saved');
  });

  app.get('/v1/trackings/delivered/:tid', auth, async (req) => {
    const { view, already } = await svc.markDelivered(ctx, userOf(req), tidParam(req));
    return success(view, already ? 'This tracking is already delivered' : 'Marked as delivered');
  });

  app.delete('/v1/trackings/delete/:tid', auth, async (req) => {
    await svc.deleteTracking(ctx, userOf(req), tidParam(req));
    return success(null, 'Tracking deleted');
  });

  app.post('/v1/trackings/refresh/:tid', auth, async (req) =>
    success(await svc.refreshNow(ctx, userOf(req), tidParam(req)), 'Refreshing: the carrier is being asked now'),
  );

  // Free and unauthenticated (the add form calls it as you type), so limited per IP.
  app.post('/v1/couriers/detect', { config: { rateLimit: { max: 120, timeWindow: 60_000 } } }, async (req) => {
    const { tid } = parse(detectRequest, req.body);
    const { list, message } = svc.detect(tid);
    return success(list, message);
  });

  app.get('/v1/couriers', async () => success(svc.listCouriers(ctx)));

  app.get('/v1/track/:uidTid', { config: { rateLimit: { max: 300, timeWindow: 60_000 } } }, async (req) =>
    success(await svc.publicTracking(ctx, (req.params as { uidTid: string }).uidTid)),
  );
}
