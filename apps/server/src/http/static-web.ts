import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { AppContext } from '../context.ts';
import { DOCUMENT_ONLY_HEADERS, mapConfig } from './security-headers.ts';

const defaultWebDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

/** Where the built web app is, and whether there is one (an API-only deployment has none). */
export function webDistOf(config: AppContext['config']): { root: string; built: boolean } {
  const root = config.WEB_DIST ? path.resolve(config.WEB_DIST) : defaultWebDist;
  return { root, built: existsSync(path.join(root, 'index.html')) };
}

/** The web app's run-time settings and its files (precompressed, hashed assets cached for a year). */
export async function staticWeb(app: FastifyInstance, ctx: AppContext, web: { root: string; built: boolean }) {
  // What the web app needs to know at run time, read once per page load (never cached, so a config change
  // takes effect without a rebuild): the reCAPTCHA site key and script, or null to load nothing.
  app.get('/web-config.json', async (_req, reply) => {
    reply.header('cache-control', 'no-cache');
    const { RECAPTCHA_SITE_KEY: siteKey, RECAPTCHA_SCRIPT_URL: scriptUrl } = ctx.config;
    return { recaptcha: siteKey ? { siteKey, scriptUrl } : null, map: mapConfig(ctx.config) };
  });

  if (web.built) {
    await app.register(fastifyStatic, {
      root: web.root,
      // Serve the build's .br / .gz siblings by Accept-Encoding (br, then gzip, then the file itself),
      // with Vary: Accept-Encoding.
      preCompressed: true,
      // Files are looked up per request, so a rebuilt web app is served without a restart.
      wildcard: true,
      index: ['index.html'],
      setHeaders: (res, file) => {
        // Vite's hashed assets never change; everything else is revalidated.
        if (file.includes(`${path.sep}assets${path.sep}`)) {
          res.header('cache-control', 'public, max-age=31536000, immutable');
          // Headers that only mean something on a document cost ~0.8 KB on each of the landing's ~40 scripts over
          // HTTP/1.1; the page that loads them carries them. nosniff and CORP stay: they protect scripts too.
          for (const h of DOCUMENT_ONLY_HEADERS) res.raw.removeHeader(h);
        } else res.header('cache-control', 'no-cache');
      },
    });
  }
}
