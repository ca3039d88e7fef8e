import { AppError, type Caller, principalOf, withQuery } from '@vigia/core';
import type { Database } from '@vigia/db';
import { assertTimeZone } from '@vigia/rules';
import { stringify } from 'csv-stringify/sync';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { packTimeZone } from '../notices/notice-time-zone.js';
import { csvWriteOptions } from '../violations/violation-csv.js';
import { idSchema } from './booking-schemas.js';
import { readScope } from './booking-service.js';
import { type DispatchReportFigures, type DispatchReportHour, DispatchReportStore } from './dispatch-report-store.js';

/** The cooperative's report: the admin, its own dispatchers (their operators), and regulators who supervise dispatch. */
const access = { config: { access: ['admin', 'dispatcher', 'regulator'] as Caller[] } };

const DAY_MS = 86_400_000;

const querySchema = z.object({
  operatorId: idSchema.optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  tz: z
    .string()
    .max(64)
    .regex(/^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+){0,2}$/, 'an IANA time zone, e.g. America/Belem')
    .optional(),
  format: z.enum(['json', 'csv']).optional(),
});

const csvColumns: [string, (h: Partial<DispatchReportHour> & DispatchReportFigures) => unknown][] = [
  ['hour', (h) => h.hour ?? 'total'],
  ['start', (h) => h.start],
  ['bookings', (h) => h.bookings],
  ['offered', (h) => h.offered],
  ['acceptedFirstOffer', (h) => h.acceptedFirstOffer],
  ['firstOfferAcceptedShare', (h) => h.firstOfferAcceptedShare],
  ['accepted', (h) => h.accepted],
  ['acceptP50S', (h) => h.acceptP50S],
  ['acceptP90S', (h) => h.acceptP90S],
  ['pickupP50S', (h) => h.pickupP50S],
  ['expired', (h) => h.expired],
  ['cancelled', (h) => h.cancelled],
];

/**
 * `GET /v1/bookings/report?operatorId=&from=&to=&tz=&format=` — dispatch figures per local hour
 * (issue 10 item 6), for the console and as CSV (`format=csv`, or `Accept: text/csv`).
 *
 * - `operatorId`: one operator (a dispatcher: one of its own, else 403 FORBIDDEN); absent: every
 *   operator the caller reads (a dispatcher's operators; all for admin and regulators).
 * - `from`, `to`: ISO instants, bookings taken in [from, to); default the last 24 h up to now; at
 *   most DISPATCH_REPORT_MAX_DAYS (31: a month of hours) days (400 RANGE_TOO_LARGE), `from`
 *   before `to` (400 INVALID_RANGE).
 * - `tz`: the IANA zone of the hours (400 INVALID_TIME_ZONE); default the pack's zone of the
 *   operator(s) (df-taxi America/Sao_Paulo, belem-taxi America/Belem: the zone the rules judge
 *   by), Brasília time (America/Sao_Paulo) when they are of several packs.
 *
 * JSON answer:
 * ```
 * { "operatorId": "op-1" | null, "from": ISO, "to": ISO, "timeZone": "America/Belem",
 *   "hours": [{ "hour": "2026-11-30T14:00",   // local hour of taking; hours without bookings left out
 *               "start": ISO,                 // the instant that hour starts
 *               "bookings", "offered", "acceptedFirstOffer",
 *               "firstOfferAcceptedShare",    // acceptedFirstOffer / offered, 0..1, null if none offered
 *               "accepted",                   // by an offer or assigned manually
 *               "acceptP50S", "acceptP90S",   // s from taking to acceptance (null: none accepted)
 *               "pickupP50S",                 // s from acceptance to arrived (or on board if arrival unseen)
 *               "expired", "cancelled" }],
 *   "totals": { the same figures over the whole range, without hour and start } }
 * ```
 * CSV: one row per hour with those columns, then a row whose `hour` is `total`.
 */
export async function registerDispatchReportRoutes(
  app: FastifyInstance,
  deps: { db: Database; maxDays: number },
): Promise<void> {
  const store = new DispatchReportStore(deps.db);

  app.get('/v1/bookings/report', withQuery(access, querySchema), async (req, reply) => {
    const scope = readScope(principalOf(req));
    const q = querySchema.parse(req.query);
    if (q.operatorId && !scope.all && !scope.operatorIds.includes(q.operatorId)) {
      throw new AppError('FORBIDDEN', `This token may not read the bookings of operator '${q.operatorId}'`, 403);
    }
    const operatorIds = q.operatorId ? [q.operatorId] : scope.all ? null : scope.operatorIds;

    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - DAY_MS);
    if (from.getTime() >= to.getTime()) throw new AppError('INVALID_RANGE', '`from` must be before `to`', 400);
    if (to.getTime() - from.getTime() > deps.maxDays * DAY_MS) {
      throw new AppError('RANGE_TOO_LARGE', `A report covers at most ${deps.maxDays} days`, 400, {
        maxDays: deps.maxDays,
      });
    }
    let timeZone: string;
    if (q.tz) {
      try {
        assertTimeZone(q.tz);
      } catch {
        throw new AppError('INVALID_TIME_ZONE', `Unknown time zone '${q.tz}'`, 400);
      }
      timeZone = q.tz;
    } else {
      const zones = [...new Set((await store.packsOf(operatorIds)).map(packTimeZone))];
      timeZone = zones.length === 1 && zones[0] ? zones[0] : 'America/Sao_Paulo';
    }

    const { hours, totals } = await store.report({ from, to, timeZone, operatorIds });
    const wantsCsv = q.format === 'csv' || (q.format === undefined && /\btext\/csv\b/.test(req.headers.accept ?? ''));
    if (wantsCsv) {
      // `hour` is on the report's clock: each row names that clock, so the file reads alone.
      const rows = [...hours, totals].map((h) => [...csvColumns.map(([, get]) => get(h) ?? null), timeZone]);
      const csv = stringify([[...csvColumns.map(([name]) => name), 'timeZone'], ...rows], csvWriteOptions);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="bookings-report.csv"')
        .send(csv);
    }
    return {
      operatorId: q.operatorId ?? null,
      from: from.toISOString(),
      to: to.toISOString(),
      timeZone,
      hours,
      totals,
    };
  });
}
