import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

/**
 * Writes /sw.js from sw/service-worker.js with this build's id and the shell's assets to precache, and puts
 * the id in index.html. The id is a hash of the build's file names (SHELL_BUILD_ID overrides it), so each
 * deploy changes sw.js, which makes browsers install the new worker and drop the old caches.
 */
function serviceWorker(): Plugin {
  let buildId = '';
  return {
    name: 'shiptrail-service-worker',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const names = Object.keys(ctx.bundle ?? {})
          .sort()
          .join('\n');
        buildId = process.env.SHELL_BUILD_ID || createHash('sha256').update(names).update(html).digest('hex').slice(0, 16);
        return [{ tag: 'meta', attrs: { name: 'shiptrail-build', content: buildId }, injectTo: 'head' }];
      },
    },
    generateBundle: {
      // After the HTML plugin has emitted index.html with its final asset names.
      order: 'post',
      handler(_options, bundle) {
        const index = bundle['index.html'];
        const html = index && index.type === 'asset' ? String(index.source) : '';
        const precache = [...new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!))];
        precache.push('/manifest.webmanifest', '/icons/icon-192.png', '/favicon.svg');
        const source = readFileSync(new URL('./sw/service-worker.js', import.meta.url), 'utf8')
          .replace("'__BUILD_ID__'", JSON.stringify(buildId))
          .replace('__PRECACHE__', JSON.stringify(precache));
        this.emitFile({ type: 'asset', fileName: 'sw.js', source });
      },
    },
  };
}

const apiTarget = `http://127.0.0.1:${process.env.API_PORT ?? '3300'}`;

export default defineConfig({
  plugins: [
    react(),
    serviceWorker(),
    // Precompressed siblings (.br, .gz) of every text asset, index.html included; the server picks one by
    // Accept-Encoding, so nothing is compressed per request. Tiny files and ones that would not shrink are
    // skipped and go out as they are.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      include: /\.(html|css|js|mjs|json|svg|webmanifest|txt)$/,
      threshold: 1024,
      logLevel: 'silent',
    }),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    manifest: true,
    rollupOptions: {
      // The contract builds zod schemas at module top level; nothing in it has side effects, so a page that
      // only needs constants (the session header, labels) must not pull every schema and zod with it.
      treeshake: {
        // The exception is zod-messages, which installs the human validation messages (zod-resolver imports it).
        moduleSideEffects: (id: string) => !/packages[\\/]contract[\\/]src/.test(id) || /contract[\\/]src[\\/]zod-messages\.ts$/.test(id),
      },
      output: {
        codeSplitting: {
          groups: [
            // The framework in its own long-cached chunk: it changes only with a dependency update.
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 2 },
            // Everything the entry imports statically (the shell, the landing page and its sign-in forms) in
            // one chunk. Left to automatic splitting, each module the entry shares with a lazy route became its
            // own small chunk (about 50 for the landing page), each paying its own request and response
            // headers and compressing worse than one file. Lazy routes keep their own chunks and load from
            // this one what they share with it. '$initial' follows the tree-shaken graph, so only the parts of
            // a library (Mantine) the entry really uses are in it.
            { name: 'shell', tags: ['$initial'], priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/v1': apiTarget,
      '/dev': apiTarget,
      '/healthz': apiTarget,
      '/web-config.json': apiTarget,
    },
  },
});
