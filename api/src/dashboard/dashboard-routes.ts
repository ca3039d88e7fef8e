import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { errorBody } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { PackTimeZones } from './pack-time-zones.js';

/** The built dashboard (dashboard/dist, made by `npm run build`), from api/src or api/dist alike. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));
export const OFFLINE_STYLE_PATH = '/offline-style.json';
/**
 * The driver's phone page (a second entry of the build). It registers its service worker,
 * `/driver-sw.js` (a public file at the root), with scope `/driver`, so the worker controls the
 * driver page only and never the dashboard at `/`.
 */
export const DRIVER_PAGE_PATH = '/driver';

/**
 * The Content-Security-Policy the built dashboard works under: its own scripts and styles only,
 * MapLibre's worker from a blob, images (marker sprites, tiles) from data:/blob:, the live channel
 * over WebSocket, and, when MAP_STYLE_URL points elsewhere, that origin for the style, tiles,
 * glyphs and sprites. Nobody may frame the page (clickjacking of the review buttons).
 */
export function dashboardCsp(mapStyleUrl: string | undefined): Record<string, string[]> {
  const mapOrigin = mapStyleUrl ? [new URL(mapStyleUrl).origin] : [];
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    workerSrc: ["'self'", 'blob:'],
    childSrc: ["'self'", 'blob:'],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', 'blob:', ...mapOrigin],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", 'ws:', 'wss:', ...mapOrigin],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  };
}

export async function registerDashboardRoutes(
  app: FastifyInstance,
  opts: {
    mapStyleUrl: string | undefined;
    offlineAfterS: number;
    log: Logger;
    root?: string;
    /** Each pack's legal time zone (the rules configuration's): the dashboard shows every time on it. */
    packTimeZones: PackTimeZones;
  },
): Promise<void> {
  // What the page needs before it has a token: where its map style is, when a vehicle counts as
  // offline, and which clock each pack's times are shown on.
  app.get('/v1/dashboard-config', { config: { access: 'public' } }, async () => ({
    styleUrl: opts.mapStyleUrl ?? OFFLINE_STYLE_PATH,
    offlineAfterS: opts.offlineAfterS,
    packTimeZones: opts.packTimeZones,
  }));
  const root = opts.root ?? DASHBOARD_DIST;
  if (!existsSync(root)) {
    opts.log.warn({ code: 'DASHBOARD_NOT_BUILT', root }, 'dashboard not built: run `npm run build`');
    for (const path of ['/', DRIVER_PAGE_PATH]) {
      app.get(path, { config: { access: 'public' } }, async (_req, reply) =>
        reply.code(503).send(errorBody('DASHBOARD_NOT_BUILT', 'The dashboard is not built: run `npm run build`')),
      );
    }
    return;
  }
  // The page and its assets are public (the token lives in the page, not in the request).
  await app.register(async (files) => {
    files.addHook('onRoute', (route) => {
      route.config ??= {};
      route.config.access = 'public';
    });
    // Security headers on the page and its assets (this encapsulated context only: the API's JSON needs no CSP).
    await files.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: dashboardCsp(opts.mapStyleUrl) },
      frameguard: { action: 'deny' },
      // TLS ends at the deployment's proxy, which owns HSTS; the embedded mode serves plain HTTP.
      strictTransportSecurity: false,
    });
    await files.register(fastifyStatic, { root, index: ['index.html'], wildcard: false });
    // Under the page's own CSP like the dashboard; `/driver.html` is served too, `/driver` is the address to share.
    files.get(DRIVER_PAGE_PATH, async (_req, reply) => reply.sendFile('driver.html'));
  });
}
