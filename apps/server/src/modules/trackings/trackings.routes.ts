import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { addTrackingRequest, detectRequest, listTrackingsQuery, updateTrackingRequest } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { parse, success } from '../../lib/http.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as svc from './trackings.service.ts';

const MAX_CSV_BYTES = 2 * 1024 * 1024;

/** Registered inside this plugin only: multipart and text/csv bodies are accepted by the trackings routes, nowhere else. */
export async function trackingRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // Couriers work on their company's shipments only: trackings are the account owner's.
  const auth = { preHandler: app.requireOwner };
  await app.register(multipart, { limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: 10 } });
  app.addContentTypeParser(['text/csv', 'text/plain'], { parseAs: 'string', bodyLimit: MAX_CSV_BYTES }, (_req, body, done) => done(null, body));

  const tidParam = (req: FastifyRequest) => (req.params as { tid: string }).tid;
  const idempotencyKey = (req: FastifyRequest) => {
    const key = req.headers['idempotency-key'];
    return typeof key === 'string' && key ? key : undefined;
  };
  // The reply text as the service produced it (and, under an Idempotency-Key, stored it): never re-serialised.
  const sendExact = (reply: FastifyReply, out: svc.ExactReply) => reply.code(out.statusCode).type('application/json; charset=utf-8').send(out.text);

  app.post('/v1/trackings/add', auth, async (req, reply) => {
    const input = parse(addTrackingRequest, req.body);
    const out = await svc.addTracking(ctx, userOf(req), input, idempotencyKey(req));
    return sendExact(reply, out);
  });

  // Per IP as well as per account (in the service): each import can carry thousands of rows.
  app.post('/v1/trackings/import', { ...auth, config: { rateLimit: { max: 30, timeWindow: 15 * 60_000 } } }, async (req, reply) => {
    let text: string;
    if (req.isMultipart()) {
      // A body that is not the multipart it claims to be is the client's error, not ours.
      const file = await req.file().catch((err: { statusCode?: number }) => {
        if (err.statusCode === 413) throw badRequest('The CSV file is too large (2 MB at most)');
        throw badRequest('The upload is not valid multipart/form-data: attach the CSV file in the form field "file"', { file: 'A CSV file is required' });
      });
      if (!file) throw badRequest('Attach the CSV file in the form field "file"', { file: 'A CSV file is required' });
      const buf = await file.toBuffer().catch((err: { statusCode?: number; code?: string }) => {
        if (err.statusCode === 413 || err.code === 'FST_REQ_FILE_TOO_LARGE') throw badRequest('The CSV file is too large (2 MB at most)');
        throw badRequest('The upload is not valid multipart/form-data: attach the CSV file in the form field "file"', { file: 'A CSV file is required' });
      });
      text = buf.toString('utf8');
    } else if (typeof req.body === 'string') {
      text = req.body;
    } else {
      throw badRequest('Send the CSV as multipart/form-data (field "file") or as a text/csv body', { file: 'A CSV file is required' });
    }
    return sendExact(reply, await svc.importCsv(ctx, userOf(req), text, idempotencyKey(req)));
  });

  app.get('/v1/trackings/get', auth, async (req) => success(await svc.listTrackings(ctx, userOf(req), parse(listTrackingsQuery, req.query))));

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

  app.post('/v1/trackings/refresh/:tid', auth, async (req) => success(await svc.refreshNow(ctx, userOf(req), tidParam(req)), 'Refreshing: the carrier is being asked now'));

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
