import { AppError, type Caller, type Principal, principalOf, withQuery } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packTimeZone } from '../notices/notice-time-zone.js';
import { analyticsCsv, type CsvColumn, type CsvLang, csvText } from './analytics-csv.js';
import { type LocalPeriod, localDays, localHours, ratio, resolvePeriod } from './analytics-period.js';
import {
  type ActivityFigures,
  ANALYTICS_MAX_DAYS,
  ANALYTICS_MAX_HOURLY_DAYS,
  type AuthorizationSharesResponse,
  authorizationSharesQuerySchema,
  type FleetSizingResponse,
  fleetSizingQuerySchema,
  INHABITANTS_PER_TAXI,
  LEGAL_PERSON_CAP_SHARE,
  OCCUPANCY_MIN_SAMPLE_SHARE,
  type OccupancyFigures,
  type OccupancyResponse,
  type OperatorAnalyticsResponse,
  occupancyQuerySchema,
  recordParamsSchema,
  recordQuerySchema,
  type StandWaitFigures,
  type VehicleAnalyticsResponse,
  type ViolationHeatResponse,
  violationHeatQuerySchema,
} from './analytics-schemas.js';
import { type ActivityRow, AnalyticsStore, type OccupancySums, type RecordSubject } from './analytics-store.js';
import { heatCells, heatGridStepDeg } from './heat-cells.js';

/** Fleet-wide figures: the regulator's (and the admin's). */
const regulators = { config: { access: ['admin', 'regulator'] as Caller[] } };
/** One operator's or vehicle's record: also the operator itself, for its own (checked in the handler). */
const recordReaders = { config: { access: ['admin', 'regulator', 'operator'] as Caller[] } };

const LEGAL_BASIS = {
  occupancy: ['DF Decreto STx-DF (DODF 29.12.1994) Art. 6 e parágrafo único'],
  fleetSizing: ['Belém, lei do serviço de táxi Art. 5 §6', 'Belém, lei do serviço de táxi Art. 65'],
  shares: {
    'belem-taxi': ['Belém, lei do serviço de táxi Art. 6 parágrafo único (Lei 8.961/2012)'],
    'df-taxi': ['DF Decreto STx-DF (DODF 29.12.1994) Art. 10 parágrafo único'],
  },
};

function wantsCsv(format: 'json' | 'csv' | undefined, req: FastifyRequest): boolean {
  return format === 'csv' || (format === undefined && /\btext\/csv\b/.test(req.headers.accept ?? ''));
}

function sendCsv(reply: FastifyReply, name: string, csv: string): FastifyReply {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .send(csv);
}

/** An operator's token reads only its own operators' records; everyone else this route admits reads all. */
function ownOperators(principal: Principal): string[] | null {
  return principal.kind === 'user' && principal.role === 'operator' ? principal.operatorIds : null;
}

function periodEcho(p: LocalPeriod) {
  return {
    timeZone: p.timeZone,
    from: p.from,
    to: p.to,
    fromInstant: p.fromInstant.toISOString(),
    toInstant: p.toInstant.toISOString(),
  };
}

function occupancyFigures(sums: OccupancySums, fleet: number): OccupancyFigures {
  const sampleShare = ratio(sums.vehicles, fleet);
  return {
    sampledVehicles: sums.vehicles,
    sampleShare,
    sampleSufficient: sampleShare !== null && sampleShare >= OCCUPANCY_MIN_SAMPLE_SHARE,
    observedS: sums.observedS,
    hiredS: sums.hiredS,
    timeShare: ratio(sums.hiredS, sums.observedS),
    distanceM: sums.distanceM,
    hiredDistanceM: sums.hiredDistanceM,
    distanceShare: ratio(sums.hiredDistanceM, sums.distanceM),
  };
}

const NO_SUMS: OccupancySums = { vehicles: 0, observedS: 0, hiredS: 0, distanceM: 0, hiredDistanceM: 0 };

function activityFigures(rows: readonly ActivityRow[]): ActivityFigures {
  const sum = (f: (r: ActivityRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const hiredS = sum((r) => r.hiredS);
  const bandeira2HiredS = sum((r) => r.bandeira2HiredS);
  return {
    observedS: sum((r) => r.observedS),
    drivenS: sum((r) => r.drivenS),
    movingS: sum((r) => r.movingS),
    hiredS,
    bandeira2HiredS,
    bandeira2Share: ratio(bandeira2HiredS, hiredS),
    distanceM: sum((r) => r.distanceM),
    hiredDistanceM: sum((r) => r.hiredDistanceM),
    bandeira2HiredDistanceM: sum((r) => r.bandeira2HiredDistanceM),
  };
}

const ACTIVITY_COLUMNS = [
  'observedS',
  'drivenS',
  'movingS',
  'hiredS',
  'bandeira2HiredS',
  'bandeira2Share',
  'distanceM',
  'hiredDistanceM',
  'bandeira2HiredDistanceM',
] as const satisfies readonly (keyof ActivityFigures & CsvColumn)[];

const OCCUPANCY_COLUMNS = [
  'sampledVehicles',
  'sampleShare',
  'sampleSufficient',
  'observedS',
  'hiredS',
  'timeShare',
  'distanceM',
  'hiredDistanceM',
  'distanceShare',
] as const satisfies readonly (keyof OccupancyFigures & CsvColumn)[];

/**
 * `/v1/analytics/...` (api/src/analytics/README.md): the regulator's figures. Every query is
 * bounded (a local period of at most 366 days, 31 for hours) before anything is read.
 */
export async function registerAnalyticsRoutes(
  app: FastifyInstance,
  deps: { db: Queryable; belemPopulation: number; belemPopulationSource: string },
): Promise<void> {
  const store = new AnalyticsStore(deps.db);

  app.get('/v1/analytics/occupancy', withQuery(regulators, occupancyQuerySchema), async (req, reply) => {
    const q = occupancyQuerySchema.parse(req.query);
    const timeZone = packTimeZone(q.pack);
    const period = resolvePeriod(q, timeZone, q.by === 'hour' ? ANALYTICS_MAX_HOURLY_DAYS : ANALYTICS_MAX_DAYS);
    const [fleet, rows, totals] = await Promise.all([
      store.fleet(q.pack),
      q.by === 'day'
        ? store.occupancyByDay(q.pack, period.from, period.to)
        : store.occupancyByHour(q.pack, period.fromInstant, period.toInstant, timeZone),
      store.occupancyTotals(q.pack, period.from, period.to),
    ]);
    const byLabel = new Map(rows.map((r) => [r.period, r]));
    const slots = q.by === 'day' ? localDays(period) : localHours(period);
    const body: OccupancyResponse = {
      pack: q.pack,
      by: q.by,
      ...periodEcho(period),
      legalBasis: LEGAL_BASIS.occupancy,
      minSampleShare: OCCUPANCY_MIN_SAMPLE_SHARE,
      fleet,
      periods: slots.map((s) => ({
        period: s.label,
        start: s.start.toISOString(),
        ...occupancyFigures(byLabel.get(s.label) ?? NO_SUMS, fleet),
      })),
      totals: occupancyFigures(totals, fleet),
    };
    if (!wantsCsv(q.format, req)) return body;
    const columns: CsvColumn[] = [q.by, 'fleet', ...OCCUPANCY_COLUMNS];
    const line = (label: string, f: OccupancyFigures) => [label, fleet, ...OCCUPANCY_COLUMNS.map((c) => f[c])];
    const csvRows = [
      ...body.periods.map((p) => line(p.period, p)),
      line(csvText(q.lang, 'total', timeZone), body.totals),
    ];
    return sendCsv(reply, `ocupacao-${q.pack}`, analyticsCsv(q.lang, timeZone, columns, csvRows));
  });

  app.get('/v1/analytics/fleet-sizing', withQuery(regulators, fleetSizingQuerySchema), async (req, reply) => {
    const q = fleetSizingQuerySchema.parse(req.query);
    const pack = 'belem-taxi';
    const timeZone = packTimeZone(pack);
    const period = resolvePeriod(q, timeZone, ANALYTICS_MAX_DAYS);
    const { authorized, active } = await store.authorizedAndActive(pack, period.from, period.to);
    const population = deps.belemPopulation;
    const allowedTaxis = Math.floor(population / INHABITANTS_PER_TAXI);
    const body: FleetSizingResponse = {
      pack,
      ...periodEcho(period),
      legalBasis: LEGAL_BASIS.fleetSizing,
      population,
      populationSource: deps.belemPopulationSource,
      inhabitantsPerTaxi: INHABITANTS_PER_TAXI,
      allowedTaxis,
      authorizedTaxis: authorized,
      activeTaxis: active,
      inhabitantsPerAuthorizedTaxi: ratio(population, authorized, false),
      inhabitantsPerActiveTaxi: ratio(population, active, false),
      surplus: authorized - allowedTaxis,
      overLimit: authorized > allowedTaxis,
    };
    if (!wantsCsv(q.format, req)) return body;
    const columns = [
      'population',
      'populationSource',
      'allowedTaxis',
      'authorizedTaxis',
      'activeTaxis',
      'inhabitantsPerAuthorizedTaxi',
      'inhabitantsPerActiveTaxi',
      'surplus',
      'overLimit',
    ] as const satisfies readonly (keyof FleetSizingResponse & CsvColumn)[];
    const csv = analyticsCsv(
      q.lang,
      timeZone,
      ['period', ...columns],
      [[`${period.from}/${period.to}`, ...columns.map((c) => body[c])]],
    );
    return sendCsv(reply, 'dimensionamento-frota-belem', csv);
  });

  app.get(
    '/v1/analytics/authorization-shares',
    withQuery(regulators, authorizationSharesQuerySchema),
    async (req, reply) => {
      const q = authorizationSharesQuerySchema.parse(req.query);
      const timeZone = packTimeZone(q.pack);
      const asOf = new Date();
      const today = resolvePeriod({}, timeZone, ANALYTICS_MAX_DAYS, asOf).to;
      const { total, operators } = await store.authorizationsByOperator(q.pack, today);
      const items = operators.map((o) => {
        const legalPerson = o.kind === 'company';
        const share = ratio(o.authorizations, total);
        return {
          operatorId: o.operatorId,
          name: o.name,
          kind: o.kind as AuthorizationSharesResponse['operators'][number]['kind'],
          legalPerson,
          authorizations: o.authorizations,
          share,
          overCap: legalPerson && share !== null && share > LEGAL_PERSON_CAP_SHARE,
        };
      });
      const legalAuthorizations = items.filter((o) => o.legalPerson).reduce((s, o) => s + o.authorizations, 0);
      const legalShare = ratio(legalAuthorizations, total);
      const body: AuthorizationSharesResponse = {
        pack: q.pack,
        timeZone,
        asOf: asOf.toISOString(),
        legalBasis: LEGAL_BASIS.shares[q.pack],
        capShare: LEGAL_PERSON_CAP_SHARE,
        totalAuthorizations: total,
        legalPersons: {
          authorizations: legalAuthorizations,
          share: legalShare,
          overCap: legalShare !== null && legalShare > LEGAL_PERSON_CAP_SHARE,
        },
        operators: items,
      };
      if (!wantsCsv(q.format, req)) return body;
      const columns: CsvColumn[] = ['operatorId', 'name', 'kind', 'legalPerson', 'authorizations', 'share', 'overCap'];
      const csvRows = [
        ...items.map((o) => [o.operatorId, o.name, o.kind, o.legalPerson, o.authorizations, o.share, o.overCap]),
        [
          csvText(q.lang, 'legalPersons', timeZone),
          null,
          null,
          true,
          legalAuthorizations,
          legalShare,
          body.legalPersons.overCap,
        ],
        [csvText(q.lang, 'total', timeZone), null, null, null, total, total > 0 ? 1 : null, null],
      ];
      return sendCsv(reply, `autorizacoes-${q.pack}`, analyticsCsv(q.lang, timeZone, columns, csvRows));
    },
  );

  /** The figures of one record (an operator's vehicles together, or one vehicle) over a period. */
  async function record(subject: RecordSubject, timeZone: string, q: { from?: string; to?: string }) {
    const period = resolvePeriod(q, timeZone, ANALYTICS_MAX_DAYS);
    const vehicleIds = await store.vehicleIdsOf(subject);
    const [months, violations, waits] = await Promise.all([
      store.activityByMonth(vehicleIds, period.from, period.to),
      store.violationsByMonthAndRule(subject, period.fromInstant, period.toInstant, timeZone),
      store.standWaits(vehicleIds, period.fromInstant, period.toInstant),
    ]);
    const totalsRow = waits.find((w) => w.standId === null);
    const figures = (w: typeof totalsRow): StandWaitFigures => ({
      visits: w?.visits ?? 0,
      leftHired: w?.leftHired ?? 0,
      meanWaitS: w?.meanWaitS ?? null,
      medianWaitS: w?.medianWaitS ?? null,
      p90WaitS: w?.p90WaitS ?? null,
    });
    return {
      ...periodEcho(period),
      months: months.map((m) => ({ month: m.month, ...activityFigures([m]) })),
      totals: activityFigures(months),
      violations,
      standWaits: {
        totals: figures(totalsRow),
        byStand: waits
          .filter((w) => w.standId !== null)
          .map((w) => ({ standId: w.standId!, name: w.name ?? w.standId!, ...figures(w) })),
      },
    };
  }

  /** The record CSV: one row per month of activity (with its violations), then the totals. */
  function recordCsv(lang: CsvLang, body: Awaited<ReturnType<typeof record>>): string {
    const monthsWith = [
      ...new Set([...body.months.map((m) => m.month), ...body.violations.map((v) => v.month)]),
    ].sort();
    const line = (label: string, f: ActivityFigures | undefined, vs: typeof body.violations) => [
      label,
      ...ACTIVITY_COLUMNS.map((c) => f?.[c] ?? null),
      vs.reduce((s, v) => s + v.count, 0),
      vs.map((v) => `${v.ruleId}: ${v.count}`).join('; '),
    ];
    const rows = monthsWith.map((month) =>
      line(
        month,
        body.months.find((m) => m.month === month),
        body.violations.filter((v) => v.month === month),
      ),
    );
    rows.push(line(csvText(lang, 'total', body.timeZone), body.totals, body.violations));
    return analyticsCsv(lang, body.timeZone, ['month', ...ACTIVITY_COLUMNS, 'violations', 'violationsByRule'], rows);
  }

  app.get('/v1/analytics/operators/:id', withQuery(recordReaders, recordQuerySchema), async (req, reply) => {
    const { id } = recordParamsSchema.parse(req.params);
    const q = recordQuerySchema.parse(req.query);
    const own = ownOperators(principalOf(req));
    if (own && !own.includes(id)) {
      throw new AppError('FORBIDDEN', `This token may not read the record of operator '${id}'`, 403);
    }
    const operator = await store.operator(id);
    if (!operator) throw new AppError('NOT_FOUND', `No operators record '${id}'`, 404);
    const body: OperatorAnalyticsResponse = {
      operatorId: id,
      name: operator.name,
      pack: operator.pack,
      vehicles: operator.vehicles,
      ...(await record({ operatorId: id }, packTimeZone(operator.pack), q)),
    };
    if (!wantsCsv(q.format, req)) return body;
    return sendCsv(reply, `operador-${id}`, recordCsv(q.lang, body));
  });

  app.get('/v1/analytics/vehicles/:id', withQuery(recordReaders, recordQuerySchema), async (req, reply) => {
    const { id } = recordParamsSchema.parse(req.params);
    const q = recordQuerySchema.parse(req.query);
    const own = ownOperators(principalOf(req));
    const vehicle = await store.vehicle(id);
    // An operator is refused another's vehicle and an unknown one alike: ids cannot be probed.
    if (own && !(vehicle?.operatorId && own.includes(vehicle.operatorId))) {
      throw new AppError('FORBIDDEN', `This token may not read the record of vehicle '${id}'`, 403);
    }
    if (!vehicle) throw new AppError('NOT_FOUND', `No vehicles record '${id}'`, 404);
    const body: VehicleAnalyticsResponse = {
      vehicleId: id,
      plate: vehicle.plate,
      operatorId: vehicle.operatorId,
      pack: vehicle.pack,
      ...(await record({ vehicleId: id }, packTimeZone(vehicle.pack), q)),
    };
    if (!wantsCsv(q.format, req)) return body;
    return sendCsv(reply, `veiculo-${id}`, recordCsv(q.lang, body));
  });

  app.get('/v1/analytics/violation-heat', withQuery(regulators, violationHeatQuerySchema), async (req, reply) => {
    const q = violationHeatQuerySchema.parse(req.query);
    const timeZone = packTimeZone(q.pack);
    const period = resolvePeriod(q, timeZone, ANALYTICS_MAX_DAYS);
    const { points, rules } = await store.violationPoints(
      q.pack,
      q.ruleId ?? null,
      period.fromInstant,
      period.toInstant,
      heatGridStepDeg(q.resolution),
    );
    const cells = heatCells(points, q.resolution);
    const body: ViolationHeatResponse = {
      pack: q.pack,
      ruleId: q.ruleId ?? null,
      resolution: q.resolution,
      ...periodEcho(period),
      total: cells.reduce((s, c) => s + c.count, 0),
      cells,
      rules,
    };
    if (!wantsCsv(q.format, req)) return body;
    const csv = analyticsCsv(
      q.lang,
      timeZone,
      ['h3', 'lat', 'lon', 'count'],
      cells.map((c) => [c.h3, c.lat, c.lon, c.count]),
    );
    return sendCsv(reply, `infracoes-mapa-${q.pack}`, csv);
  });
}
