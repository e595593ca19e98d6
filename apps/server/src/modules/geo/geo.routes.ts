import type { FastifyInstance } from 'fastify';
import { geoAutocompleteQuery, geoLookupQuery } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { parse, success } from '../../lib/http.ts';
import * as svc from './geo.service.ts';

export async function geoRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const auth = { preHandler: app.requireAuth };
  app.get('/v1/user/geo/lookup', auth, async (req) => {
    const { zip, country } = parse(geoLookupQuery, req.query);
    return success(await svc.lookupZip(ctx, zip, country));
  });
  app.get('/v1/user/geo/autocomplete', auth, async (req) => {
    const { q, limit } = parse(geoAutocompleteQuery, req.query);
    return success(await svc.autocomplete(ctx, q, limit));
  });
}
