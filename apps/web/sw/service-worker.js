// The app's service worker. The build (vite.config.ts) fills in BUILD_ID and PRECACHE and writes it to
// /sw.js, so every deploy changes this file's bytes, the browser installs the new worker, and the old
// caches are deleted when it activates.
const BUILD_ID = '__BUILD_ID__';
const PRECACHE = /** @type {string[]} */ (__PRECACHE__);
const PREFIX = 'shiptrail-';
const CACHE = `${PREFIX}${BUILD_ID}`;
const SHELL = '/';

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll([SHELL, ...PRECACHE]);
      // A new deploy takes over at once instead of waiting for every tab to close.
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  // API calls, the dev outbox, health and run-time config always go to the network, never to a cache.
  if (/^\/(v1|dev)(\/|$)|^\/healthz$|^\/web-config\.json$|^\/sw\.js$/.test(url.pathname)) return;

  if (req.mode === 'navigate') {
    // Network first: a deploy shows on the next load; the cached shell is only the offline fallback.
    event.respondWith(
      (async () => {
        try {
          const res = await fetch(req);
          if (res.ok && (res.headers.get('content-type') ?? '').includes('text/html')) {
            const cache = await caches.open(CACHE);
            await cache.put(SHELL, res.clone());
          }
          return res;
        } catch (err) {
          const cached = await caches.match(SHELL);
          if (cached) return cached;
          throw err;
        }
      })(),
    );
    return;
  }

  if (url.pathname.startsWith('/assets/')) {
    // Hashed file names never change content: the cache is always right.
    event.respondWith(
      (async () => {
        const cached = await caches.match(req);
        if (cached) return cached;
        const res = await fetch(req);
        if (res.ok) {
          const cache = await caches.open(CACHE);
          await cache.put(req, res.clone());
        }
        return res;
      })(),
    );
    return;
  }

  // Icons, manifest and other public files: the network, with the cache when offline.
  event.respondWith(fetch(req).catch(async (err) => (await caches.match(req)) ?? Promise.reject(err)));
});
