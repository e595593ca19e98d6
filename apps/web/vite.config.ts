import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiTarget = `http://127.0.0.1:${process.env.API_PORT ?? '3300'}`;

export default defineConfig({
  plugins: [react()],
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
    },
  },
});
