import type { Queryable } from '@vigia/db';
import type { Bbox } from './history-query.js';
import type { TrackSample } from './track-lines.js';

/**
 * Which vehicles a caller sees, as the live feed narrows it: everyone's (admin, regulators,
 * enforcement), its operators' (operators), its operators' and the vehicles they declared
 * (dispatchers of a Belém radio operator, Art. 42–44).
 */
export type VehicleScope = { all: true } | { all: false; operatorIds: string[]; declared: boolean };

export interface TrackedVehicle {
  id: string;
  plate: string;
  pack: string;
  operatorId: string | null;
}

export interface TrackViolation {
  id: string;
  ruleId: string;
  description: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  lat: number | null;
  lon: number | null;
}

/** One hour of the vehicle's hourly aggregate (where the database keeps one). */
export interface TrackHour {
  start: string;
  samples: number;
  distanceM: number;
  hiredS: number;
  /** Time covered by samples (`vehicle_hourly` only; null from TimescaleDB's older aggregate). */
  observedS: number | null;
  hiredDistanceM: number;
  maxSpeedKmh: number | null;
}

export interface ReplayRow extends TrackSample {
  vehicleId: string;
}

/** The most violations one track carries: far more than a day of one vehicle's events. */
const TRACK_MAX_VIOLATIONS = 500;

/** The SQL condition (on `v`, the vehicles table) of a scope; pushes its parameters. */
function scopeClause(scope: VehicleScope, params: unknown[]): string {
  if (scope.all) return 'true';
  params.push(scope.operatorIds);
  const ops = `$${params.length}::text[]`;
  if (!scope.declared) return `v.operator_id = ANY(${ops})`;
  return `(v.operator_id = ANY(${ops}) OR v.id IN (
      SELECT unnest(o.declared_vehicle_ids) FROM operators o WHERE o.id = ANY(${ops}) AND o.retired_at IS NULL))`;
}

/** The columns of a sample as `TrackSample` (epoch ms as float8: a number, not a parsed Date). */
const SAMPLE_COLUMNS = `date_part('epoch', t.ts) * 1000 AS t, t.lat, t.lon, t.speed_kmh AS "speedKmh",
  t.meter_state AS "meterState", t.meter_tariff::int AS tariff, t.passengers::int AS passengers`;

/** The stored telemetry read back for history: SQL only, no HTTP. */
export class HistoryStore {
  constructor(private readonly db: Queryable) {}

  /** The vehicle if the scope sees it (retired ones included: history keeps them). */
  async vehicle(id: string, scope: VehicleScope): Promise<TrackedVehicle | undefined> {
    const params: unknown[] = [id];
    const { rows } = await this.db.query<TrackedVehicle>(
      `SELECT v.id, v.plate, v.pack, v.operator_id AS "operatorId" FROM vehicles v
        WHERE v.id = $1 AND ${scopeClause(scope, params)}`,
      params,
    );
    return rows[0];
  }

  /**
   * The vehicle's samples in [from, to) in time order. The table is unique per (device, ts), so
   * a sample sent twice is stored once; two devices of one vehicle reporting the same instant
   * give one sample (the first device by id), and a late sample takes its place by `ts`.
   */
  async samples(vehicleId: string, from: Date, to: Date): Promise<TrackSample[]> {
    const { rows } = await this.db.query<TrackSample>(
      `SELECT DISTINCT ON (t.ts) ${SAMPLE_COLUMNS}
         FROM telemetry t
        WHERE t.vehicle_id = $1 AND t.ts >= $2 AND t.ts < $3
        ORDER BY t.ts, t.device_id`,
      [vehicleId, from, to],
    );
    return rows;
  }

  /** The vehicle's violations that overlap [from, to), oldest first, for the timeline. */
  async violations(vehicleId: string, from: Date, to: Date): Promise<TrackViolation[]> {
    const { rows } = await this.db.query<TrackViolation & { startedAt: Date; endedAt: Date | null }>(
      `SELECT id, rule_id AS "ruleId", description, status, started_at AS "startedAt", ended_at AS "endedAt", lat, lon
         FROM violations
        WHERE vehicle_id = $1 AND started_at < $3 AND coalesce(ended_at, started_at) >= $2
        ORDER BY started_at, id
        LIMIT ${TRACK_MAX_VIOLATIONS}`,
      [vehicleId, from, to],
    );
    return rows.map((r) => ({
      ...r,
      startedAt: new Date(r.startedAt).toISOString(),
      endedAt: r.endedAt ? new Date(r.endedAt).toISOString() : null,
    }));
  }

  /**
   * The hours of [from, to) from the hourly per-vehicle aggregate, or undefined where the database
   * keeps none: `vehicle_hourly` (the ingest's table on plain PostgreSQL and PGlite, a view of the
   * continuous aggregate on TimescaleDB: api/src/analytics/README.md), else `telemetry_hourly`
   * (TimescaleDB's continuous aggregate of db/migrations/002 alone). Both have these columns.
   */
  async hours(vehicleId: string, from: Date, to: Date): Promise<TrackHour[] | undefined> {
    const { rows: found } = await this.db.query<{ relation: string | null }>(
      `SELECT coalesce(to_regclass('vehicle_hourly'), to_regclass('telemetry_hourly'))::text AS relation`,
    );
    const relation = found[0]?.relation;
    // One of the two names above, never text from outside.
    if (relation !== 'vehicle_hourly' && relation !== 'telemetry_hourly') return undefined;
    const { rows } = await this.db.query<TrackHour & { start: Date }>(
      `SELECT bucket AS start, samples::int AS samples, distance_m::float8 AS "distanceM", hired_s::float8 AS "hiredS",
              ${relation === 'vehicle_hourly' ? 'observed_s::float8' : 'NULL::float8'} AS "observedS",
              hired_distance_m::float8 AS "hiredDistanceM", max_speed_kmh::float8 AS "maxSpeedKmh"
         FROM ${relation}
        WHERE vehicle_id = $1 AND bucket >= date_trunc('hour', $2::timestamptz) AND bucket < $3
        ORDER BY bucket`,
      [vehicleId, from, to],
    );
    return rows.map((r) => ({ ...r, start: new Date(r.start).toISOString() }));
  }

  /** The vehicles of the scope (and pack) that have a sample inside the bbox during [from, to). */
  async replayVehicles(scope: VehicleScope, pack: string | undefined, bbox: Bbox, from: Date, to: Date) {
    const params: unknown[] = [from, to, bbox[0], bbox[1], bbox[2], bbox[3]];
    const packClause = pack ? `AND v.pack = $${params.push(pack)}` : '';
    const scoped = scopeClause(scope, params);
    // Per vehicle through the (vehicle_id, ts) index: plain PostgreSQL has no index on ts alone.
    const { rows } = await this.db.query<TrackedVehicle>(
      `SELECT v.id, v.plate, v.pack, v.operator_id AS "operatorId" FROM vehicles v
        WHERE ${scoped} ${packClause}
          AND EXISTS (SELECT 1 FROM telemetry t WHERE t.vehicle_id = v.id AND t.ts >= $1 AND t.ts < $2
                         AND t.lon BETWEEN $3 AND $5 AND t.lat BETWEEN $4 AND $6)
        ORDER BY v.id`,
      params,
    );
    return rows;
  }

  /**
   * The positions of these vehicles inside the bbox during [from, to), at most one per vehicle
   * per `stepS` seconds (the first of each step), ordered by vehicle and time.
   */
  async replaySamples(vehicleIds: string[], bbox: Bbox, from: Date, to: Date, stepS: number): Promise<ReplayRow[]> {
    const { rows } = await this.db.query<ReplayRow>(
      `SELECT DISTINCT ON (t.vehicle_id, floor(extract(epoch FROM t.ts) / $8))
              t.vehicle_id AS "vehicleId", ${SAMPLE_COLUMNS}
         FROM telemetry t
        WHERE t.vehicle_id = ANY($1::text[]) AND t.ts >= $2 AND t.ts < $3
          AND t.lon BETWEEN $4 AND $5 AND t.lat BETWEEN $6 AND $7
        ORDER BY t.vehicle_id, floor(extract(epoch FROM t.ts) / $8), t.ts, t.device_id`,
      [vehicleIds, from, to, bbox[0], bbox[2], bbox[1], bbox[3], stepS],
    );
    return rows;
  }
}
