import { type Caller, principalOf, withQuery } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { searchQuerySchema } from './search-query.js';
import { SearchStore } from './search-store.js';

/**
 * Every user role searches (README.md): each finds only what its registry lists show it, so an
 * operator never finds another operator's vehicles, drivers or company. Devices do not search.
 */
const access = { config: { access: ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator'] as Caller[] } };

/** `GET /v1/search?q=&limit=` → `{ items }`: the dashboard's search box (api/src/search/README.md). */
export async function registerSearchRoutes(app: FastifyInstance, deps: { db: Queryable }): Promise<void> {
  const store = new SearchStore(deps.db);
  app.get('/v1/search', withQuery(access, searchQuerySchema), async (req) => ({
    items: await store.search(principalOf(req), searchQuerySchema.parse(req.query)),
  }));
}
