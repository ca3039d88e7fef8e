// The driver page's service worker, registered by src/driver/main.ts with scope /driver: keeps the
// app shell (the page, its hashed bundles, the built-in map style, the icons) so the page opens
// without network and can say it is offline. The API (/v1/), the live channel (/socket.io/) and
// map tiles from elsewhere are never cached: offers and positions must be live or absent.
const CACHE = 'vigia-driver-v1';
const PAGE = '/driver';
const SHELL = [
  PAGE,
  '/driver-manifest.webmanifest',
  '/driver-icon.svg',
  '/driver-icon-192.png',
  '/driver-icon-512.png',
  '/offline-style.json',
];

/** The bundles a page links (Vite names them /assets/<name>-<hash>.js|css). */
function assetsOf(html) {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
}

/** Caches the page and what it links; drops bundles of earlier builds. */
async function keepPage(cache, response) {
  const html = await response.clone().text();
  await cache.put(PAGE, response);
  const assets = assetsOf(html);
  await Promise.all(
    assets.map(async (path) => {
      if (!(await cache.match(path))) await cache.add(path);
    }),
  );
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (path.startsWith('/assets/') && !assets.includes(path)) await cache.delete(request);
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(SHELL.filter((path) => path !== PAGE));
      await keepPage(cache, await fetch(PAGE, { cache: 'no-cache' }));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith('vigia-driver-') && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/v1/') || url.pathname.startsWith('/socket.io/')) return;

  if (request.mode === 'navigate' && url.pathname === PAGE) {
    // Network first: a new build is picked up at once; the cached page only when offline.
    event.respondWith(
      (async () => {
        const cache = await caches.open(CACHE);
        try {
          const response = await fetch(request);
          if (response.ok) event.waitUntil(keepPage(cache, response.clone()));
          return response;
        } catch (error) {
          const cached = await cache.match(PAGE);
          if (cached) return cached;
          throw error;
        }
      })(),
    );
    return;
  }

  if (url.pathname.startsWith('/assets/') || SHELL.includes(url.pathname)) {
    // Bundles are immutable (hashed names); the other shell files are refreshed behind the cached copy.
    event.respondWith(
      (async () => {
        const cache = await caches.open(CACHE);
        const cached = await cache.match(request, { ignoreSearch: true });
        const refresh = fetch(request).then(async (response) => {
          if (response.ok) await cache.put(request, response.clone());
          return response;
        });
        if (cached) {
          if (!url.pathname.startsWith('/assets/')) event.waitUntil(refresh.catch(() => undefined));
          return cached;
        }
        return refresh;
      })(),
    );
  }
});
