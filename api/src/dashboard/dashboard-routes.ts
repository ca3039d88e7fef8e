import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { errorBody } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** The built dashboard (dashboard/dist, made by `npm run build`), from api/src or api/dist alike. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));
export const OFFLINE_STYLE_PATH = '/offline-style.json';

export async function registerDashboardRoutes(
  app: FastifyInstance,
  opts: { mapStyleUrl: string | undefined; offlineAfterS: number; log: Logger; root?: string },
): Promise<void> {
  // What the page needs before it has a token: where its map style is and when a vehicle counts as offline.
  app.get('/v1/dashboard-config', { config: { access: 'public' } }, async () => ({
    styleUrl: opts.mapStyleUrl ?? OFFLINE_STYLE_PATH,
    offlineAfterS: opts.offlineAfterS,
  }));
  const root = opts.root ?? DASHBOARD_DIST;
  if (!existsSync(root)) {
    opts.log.warn({ code: 'DASHBOARD_NOT_BUILT', root }, 'dashboard not built: run `npm run build`');
    app.get('/', { config: { access: 'public' } }, async (_req, reply) =>
      reply.code(503).send(errorBody('DASHBOARD_NOT_BUILT', 'The dashboard is not built: run `npm run build`')),
    );
    return;
  }
  // The page and its assets are public (the token lives in the page, not in the request).
  await app.register(async (files) => {
    files.addHook('onRoute', (route) => {
      route.config ??= {};
      route.config.access = 'public';
    });
    await files.register(fastifyStatic, { root, index: ['index.html'], wildcard: false });
  });
}
