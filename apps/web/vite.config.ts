import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

const apiTarget = `http://127.0.0.1:${process.env.API_PORT ?? '3300'}`;

export default defineConfig({
  plugins: [
    react(),
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
        moduleSideEffects: (id: string) => !/packages[\\/]contract[\\/]src/.test(id),
      },
      output: {
        // Keep the framework in long-cached chunks; features stay in their own lazy route chunks.
        manualChunks(id: string) {
          if (!id.includes('node_modules')) return undefined;
          if (/node_modules\/(react|react-dom|scheduler|react-router)\//.test(id)) return 'react';
          return undefined;
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
