import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { buildOpenApi } from './openapi.ts';

export async function openapiRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  let doc: unknown;
  // Served as a plain document (not the envelope): OpenAPI tools read it as-is.
  app.get('/v1/openapi.json', async () => (doc ??= buildOpenApi(ctx.config.publicUrl)));
}
