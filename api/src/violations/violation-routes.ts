import {
  type Bus,
  type Caller,
  type LiveViolation,
  liveViolationSchema,
  principalOf,
  publishOrLog,
  type TokenResolver,
  withQuery,
} from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { measuredColumns, violationsCsvHeader, violationsCsvRows } from './violation-csv.js';
import {
  reviewSchema,
  violationExportQuerySchema,
  violationIdSchema,
  violationQuerySchema,
} from './violation-query.js';
import { type ViolationRow, ViolationStore } from './violation-store.js';

const EXPORT_MAX_ROWS = 100_000;
/** Every user role reads violations within its scope (the store narrows it); only some review. */
const read = { config: { access: ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator'] as Caller[] } };
const review = { config: { access: ['admin', 'regulator', 'enforcement'] as Caller[] } };

export async function registerViolationRoutes(
  app: FastifyInstance,
  deps: { db: Database; bus: Bus; resolveToken: TokenResolver },
): Promise<ViolationStore> {
  const store = new ViolationStore(deps.db);

  app.get('/v1/violations', withQuery(read, violationQuerySchema), async (req) => {
    const principal = principalOf(req);
    return store.list(principal, violationQuerySchema.parse(req.query));
  });

  // The filtered list as CSV, all pages, newest first.
  app.get('/v1/violations/export.csv', withQuery(read, violationExportQuerySchema), async (req, reply) => {
    const principal = principalOf(req);
    const query = violationQuerySchema.parse({ ...(req.query as object), limit: 1000 });
    // Every row is read before the header is written: the measured values' columns are the keys
    // the exported violations carry.
    const rows: ViolationRow[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list(principal, { ...query, cursor });
      rows.push(...page.items);
      cursor = page.next ?? undefined;
    } while (cursor && rows.length < EXPORT_MAX_ROWS);
    const trails = await store.reviewTrails(rows.map((v) => v.id));
    const measured = measuredColumns(rows);
    const csv = violationsCsvHeader(measured) + violationsCsvRows(rows, trails, measured);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="violations.csv"')
      .send(csv);
  });

  app.get('/v1/violations/:id', read, async (req) => {
    const principal = principalOf(req);
    return store.detail(principal, violationIdSchema.parse((req.params as { id: string }).id));
  });

  // A review shows on every dashboard at once, as an update of the violation.
  app.post('/v1/violations/:id/review', review, async (req) => {
    const principal = principalOf(req);
    const id = violationIdSchema.parse((req.params as { id: string }).id);
    const reviewed = await store.review(principal, id, reviewSchema.parse(req.body));
    await publishOrLog(
      deps.bus,
      req.log,
      { type: 'violation', violations: [toLiveViolation(reviewed)] },
      'review not pushed live',
    );
    return reviewed;
  });

  return store;
}

function iso(value: unknown): string | null {
  return value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : null;
}

export function toLiveViolation(row: ViolationRow): LiveViolation {
  return liveViolationSchema.parse({
    ...row,
    startedAt: iso(row.startedAt),
    endedAt: iso(row.endedAt),
    detectedAt: iso(row.detectedAt),
    change: 'updated',
  });
}
