import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { pingProof, PUSH_PATH_PREFIX, receivePush } from './push.ts';

const MAX_PUSH_BYTES = 512 * 1024;

/**
 * Public receivers of carrier push (docs/carriers.md "Push"): no API token, each carrier's own authentication
 * (trackings/push.ts). The body is kept as the exact bytes received, because FedEx signs the raw body.
 */
export async function pushRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_PUSH_BYTES }, (_req, body, done) => done(null, body));

  app.post(`${PUSH_PATH_PREFIX}/:courier/events`, async (req, reply) => {
    const { courier } = req.params as { courier: string };
    const answer = await receivePush(ctx, courier, req.headers, typeof req.body === 'string' ? req.body : '');
    return reply.code(answer.status).send(answer.body);
  });

  // The subscription loop checks that carriers can reach this deployment before it subscribes anything.
  app.get(`${PUSH_PATH_PREFIX}/ping`, async (req) => {
    const nonce = String((req.query as { nonce?: unknown }).nonce ?? '').slice(0, 64);
    return { ok: true, proof: pingProof(ctx, nonce) };
  });
}
