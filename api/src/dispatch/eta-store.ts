import { type MeterState, meterStateSchema, type Pack, packSchema } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import type { LiveTaxi } from './dispatch-ports.js';

/**
 * SQL of best arrival: the live taxis at start, and what the travel-time model learns from the
 * stored telemetry. Every telemetry read goes vehicle by vehicle through the
 * (vehicle_id, ts DESC) index over a bounded time range, so a refresh reads the new rows of the
 * taxis only, on plain PostgreSQL and PGlite as on TimescaleDB.
 */

/** Each taxi's newest sample (vehicle_live) with its registry fields; retired vehicles left out. */
export async function loadLiveTaxis(db: Queryable): Promise<LiveTaxi[]> {
  const { rows } = await db.query<{
    vehicle_id: string;
    plate: string;
    pack: string;
    operator_id: string | null;
    ts: Date;
    lat: number;
    lon: number;
    speed_kmh: number | null;
    meter_state: string | null;
  }>(
    `SELECT v.id AS vehicle_id, v.plate, v.pack, v.operator_id, l.ts, l.lat, l.lon, l.speed_kmh, l.meter_state
       FROM vehicle_live l JOIN vehicles v ON v.id = l.vehicle_id
      WHERE v.service_type = 'taxi' AND v.retired_at IS NULL`,
  );
  return rows.map((r) => ({
    vehicleId: r.vehicle_id,
    plate: r.plate,
    pack: packSchema.parse(r.pack) as Pack,
    operatorId: r.operator_id,
    lat: r.lat,
    lon: r.lon,
    tsMs: r.ts.getTime(),
    speedKmh: r.speed_kmh,
    meterState: r.meter_state === null ? null : (meterStateSchema.parse(r.meter_state) as MeterState),
  }));
}

/** The time of the first taxi sample after `after`, or null: where a first build starts reading. */
export async function firstTaxiSampleAfter(db: Queryable, after: Date): Promise<Date | null> {
  const { rows } = await db.query<{ ts: Date | null }>(
    `SELECT min(f.ts) AS ts
       FROM vehicles v
       CROSS JOIN LATERAL (
         SELECT s.ts FROM telemetry s WHERE s.vehicle_id = v.id AND s.ts > $1 ORDER BY s.ts LIMIT 1
       ) f
      WHERE v.service_type = 'taxi'`,
    [after],
  );
  return rows[0]?.ts ?? null;
}

/** Moving taxi samples folded into one fine grid square and hour of the week (UTC). */
export interface SpeedSquareRow {
  /** round(lat / gridDeg), round(lon / gridDeg). */
  readonly la: number;
  readonly lo: number;
  /** 0 = Monday 00:00–01:00 UTC … 167. */
  readonly how: number;
  /** Sum of the samples' weights (each 1 at `to`, halving every `halfLifeS` before it). */
  readonly w: number;
  /** Sum of weight × speed (km/h). */
  readonly ws: number;
}

export interface SpeedSquareQuery {
  /** Exclusive. */
  readonly from: Date;
  /** Inclusive; the instant the weights are relative to. */
  readonly to: Date;
  readonly gridDeg: number;
  readonly minSpeedKmh: number;
  readonly halfLifeS: number;
}

/**
 * Speeds of moving taxis aggregated in SQL: a handful of rows per grid square and hour whatever
 * the number of samples (the model folds the squares into H3 cells). Samples at or under
 * `minSpeedKmh` are a taxi waiting (at a stand, for a fare), not the street's speed.
 */
export async function readSpeedSquares(db: Queryable, q: SpeedSquareQuery): Promise<SpeedSquareRow[]> {
  const { rows } = await db.query<{ la: number; lo: number; how: number; w: number; ws: number }>(
    `SELECT round(t.lat / $3)::int AS la, round(t.lon / $3)::int AS lo,
            ((extract(isodow FROM t.ts AT TIME ZONE 'UTC')::int - 1) * 24
              + extract(hour FROM t.ts AT TIME ZONE 'UTC')::int) AS how,
            sum(t.w)::float8 AS w, sum(t.w * t.speed)::float8 AS ws
       FROM vehicles v
       CROSS JOIN LATERAL (
         SELECT s.lat, s.lon, s.ts, s.speed,
                exp(-0.6931471805599453 * extract(epoch FROM ($2::timestamptz - s.ts)) / $5) AS w
           FROM (
             -- A tracker that reports no speed: the distance over the time since its previous
             -- sample, when that was recent enough to be one stretch of street.
             SELECT s.lat, s.lon, s.ts,
                    coalesce(s.speed_kmh, CASE WHEN s.dt_s > 0 AND s.dt_s <= 60 THEN s.dist_m / s.dt_s * 3.6 END) AS speed
               FROM telemetry s
              WHERE s.vehicle_id = v.id AND s.ts > $1 AND s.ts <= $2
           ) s
          WHERE s.speed > $4
       ) t
      WHERE v.service_type = 'taxi'
      GROUP BY 1, 2, 3`,
    [q.from, q.to, q.gridDeg, q.minSpeedKmh, q.halfLifeS],
  );
  return rows.map((r) => ({ la: Number(r.la), lo: Number(r.lo), how: Number(r.how), w: r.w, ws: r.ws }));
}

/** One hired trip (meter `hired`, one meter trip id): its path length and ends. */
export interface TripRow {
  /** Sum of the distances between consecutive hired samples. */
  readonly pathM: number;
  readonly lat0: number;
  readonly lon0: number;
  readonly lat1: number;
  readonly lon1: number;
}

/**
 * Longest trip measured whole: a hired trip that started earlier than this before `from` is cut;
 * one with a sample up to this long after `to` is still under way at `to`.
 */
const TRIP_LOOKBACK = '3 hours';

/**
 * Hired trips of taxis whose last hired sample lies in (from, to]: the caller keeps `to` some
 * minutes behind the present, so a trip with a sample after `to` is still running and is left for
 * a later read, which takes it whole (each trip is read once).
 */
export async function readTrips(db: Queryable, from: Date, to: Date, limit: number): Promise<TripRow[]> {
  const { rows } = await db.query<{
    path_m: number;
    lat0: number;
    lon0: number;
    lat1: number;
    lon1: number;
  }>(
    // dist_m is the distance from the previous sample: the first hired sample's is the approach.
    `SELECT (sum(t.dist_m) - (array_agg(t.dist_m ORDER BY t.ts))[1])::float8 AS path_m,
            (array_agg(t.lat ORDER BY t.ts))[1] AS lat0, (array_agg(t.lon ORDER BY t.ts))[1] AS lon0,
            (array_agg(t.lat ORDER BY t.ts DESC))[1] AS lat1, (array_agg(t.lon ORDER BY t.ts DESC))[1] AS lon1
       FROM vehicles v
       CROSS JOIN LATERAL (
         SELECT s.ts, s.lat, s.lon, s.dist_m, s.meter_trip_id
           FROM telemetry s
          WHERE s.vehicle_id = v.id
            AND s.ts > $1::timestamptz - INTERVAL '${TRIP_LOOKBACK}' AND s.ts <= $2::timestamptz + INTERVAL '${TRIP_LOOKBACK}'
            AND s.meter_state = 'hired' AND s.meter_trip_id IS NOT NULL
       ) t
      WHERE v.service_type = 'taxi'
      GROUP BY v.id, t.meter_trip_id
     HAVING max(t.ts) > $1 AND max(t.ts) <= $2 AND count(*) >= 3
      ORDER BY max(t.ts) DESC
      LIMIT $3`,
    [from, to, limit],
  );
  return rows.map((r) => ({ pathM: r.path_m, lat0: r.lat0, lon0: r.lon0, lat1: r.lat1, lon1: r.lon1 }));
}
