import { authenticate, type TokenResolver } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { violationCsvLine, violationsCsvHeader } from './violation-csv.js';
import { reviewSchema, violationQuerySchema } from './violation-query.js';
import { ViolationStore } from './violation-store.js';

const EXPORT_MAX_ROWS = 100_000;

export async function registerViolationRoutes(
  app: FastifyInstance,
  deps: { db: Database; resolveToken: TokenResolver },
): Promise<ViolationStore> {
  const store = new ViolationStore(deps.db);

  app.get('/v1/violations', async (req) => {
    const principal = await authenticate(req, deps.resolveToken);
    return store.list(principal, violationQuerySchema.parse(req.query));
  });

  // The filtered list as CSV, all pages, newest first.
  app.get('/v1/violations/export.csv', async (req, reply) => {
    const principal = await authenticate(req, deps.resolveToken);
    const query = violationQuerySchema.parse({ ...(req.query as object), limit: 1000 });
    let csv = violationsCsvHeader();
    let cursor: string | undefined;
    let count = 0;
    do {
      const page = await store.list(principal, { ...query, cursor });
      for (const v of page.items) csv += violationCsvLine(v);
      count += page.items.length;
      cursor = page.next ?? undefined;
    } while (cursor && count < EXPORT_MAX_ROWS);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="violations.csv"')
      .send(csv);
  });

  app.get('/v1/violations/:id', async (req) => {
    const principal = await authenticate(req, deps.resolveToken);
    return store.detail(principal, (req.params as { id: string }).id);
  });

  app.post('/v1/violations/:id/review', async (req) => {
    const principal = await authenticate(req, deps.resolveToken);
    return store.review(principal, (req.params as { id: string }).id, reviewSchema.parse(req.body));
  });

  return store;
}
