import type { FastifyInstance } from 'fastify';
import { notificationLogQuery, resendParams } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { parse, success } from '../../lib/http.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as svc from './notifications.service.ts';

export async function notificationRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const owner = { preHandler: app.requireOwner };

  app.get('/v1/notifications/log', owner, async (req) => {
    const { limit } = parse(notificationLogQuery, req.query);
    return success(await svc.notificationLog(ctx, userOf(req), limit));
  });

  app.post('/v1/notifications/resend/:id', owner, async (req) => {
    const { id } = parse(resendParams, req.params);
    return success(await svc.resendWebhook(ctx, userOf(req), id), 'The webhook will be delivered again');
  });

  app.post('/v1/user/webhook/secret/regenerate', owner, async (req) => {
    return success(
      await svc.regenerateWebhookSecret(ctx, userOf(req)),
      'New webhook secret created; the previous one keeps signing for 24 hours',
    );
  });
}
