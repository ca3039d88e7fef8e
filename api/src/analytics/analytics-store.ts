import type { Queryable } from '@vigia/db';

/**
 * The SQL of the analytics routes (api/src/analytics/README.md). It reads the hourly per-vehicle
 * aggregate and its rollups under the names migration 010 gives them on every database
 * (`vehicle_hourly`, `vehicle_daily`, `pack_hourly`, `pack_daily`; views on TimescaleDB), the
 * registry, the violations and the stand visits. Local days are those of the rollups (the pack's
 * zone); instants come in already resolved from local dates (analytics-period.ts).
 */

/** Sums of the aggregate (seconds, metres) as the queries return them. */
export interface OccupancySums {
  vehicles: number;
  observedS: number;
  hiredS: number;
  distanceM: number;
  hiredDistanceM: number;
}

export interface OccupancyRow extends OccupancySums {
  /** Local day `YYYY-MM-DD` or local hour `YYYY-MM-DDTHH:00`. */
  period: string;
}

export interface ActivityRow {
  month: string;
  observedS: number;
  drivenS: number;
  movingS: number;
  hiredS: number;
  bandeira2HiredS: number;
  distanceM: number;
  hiredDistanceM: number;
  bandeira2HiredDistanceM: number;
}

export interface StandWaitRow {
  /** null: the totals over every stand. */
  standId: string | null;
  name: string | null;
  visits: number;
  leftHired: number;
  meanWaitS: number | null;
  medianWaitS: number | null;
  p90WaitS: number | null;
}

/** Whose record: one vehicle, or every vehicle that is or was the operator's. */
export type RecordSubject = { vehicleId: string } | { operatorId: string };

/** A taxi authorized on a day (`$day`): in service in the registry, its permit not expired. */
const AUTHORIZED = (v: string, day: string) => `${v}.status = 'active' AND ${v}.retired_at IS NULL
  AND ${v}.service_type = 'taxi' AND (${v}.permit_valid_until IS NULL OR ${v}.permit_valid_until >= ${day})`;

const OCCUPANCY_SUMS = `vehicles::int AS vehicles, observed_s::float8 AS "observedS", hired_s::float8 AS "hiredS",
  distance_m::float8 AS "distanceM", hired_distance_m::float8 AS "hiredDistanceM"`;

const ACTIVITY_SUMS = `coalesce(sum(observed_s), 0)::float8 AS "observedS", coalesce(sum(driven_s), 0)::float8 AS "drivenS",
  coalesce(sum(moving_s), 0)::float8 AS "movingS", coalesce(sum(hired_s), 0)::float8 AS "hiredS",
  coalesce(sum(bandeira2_hired_s), 0)::float8 AS "bandeira2HiredS", coalesce(sum(distance_m), 0)::float8 AS "distanceM",
  coalesce(sum(hired_distance_m), 0)::float8 AS "hiredDistanceM",
  coalesce(sum(bandeira2_hired_distance_m), 0)::float8 AS "bandeira2HiredDistanceM"`;

export class AnalyticsStore {
  constructor(private readonly db: Queryable) {}

  /** The pack's fleet in the registry now: vehicles in service, not retired, taxis. */
  async fleet(pack: string): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM vehicles
       WHERE pack = $1 AND status = 'active' AND retired_at IS NULL AND service_type = 'taxi'`,
      [pack],
    );
    return rows[0]!.n;
  }

  async occupancyByDay(pack: string, from: string, to: string): Promise<OccupancyRow[]> {
    const { rows } = await this.db.query<OccupancyRow>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS period, ${OCCUPANCY_SUMS}
       FROM pack_daily WHERE pack = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
      [pack, from, to],
    );
    return rows;
  }

  async occupancyByHour(pack: string, fromInstant: Date, toInstant: Date, timeZone: string): Promise<OccupancyRow[]> {
    const { rows } = await this.db.query<OccupancyRow>(
      `SELECT to_char(bucket AT TIME ZONE $4, 'YYYY-MM-DD"T"HH24:00') AS period, ${OCCUPANCY_SUMS}
       FROM pack_hourly WHERE pack = $1 AND bucket >= $2 AND bucket < $3 ORDER BY bucket`,
      [pack, fromInstant, toInstant, timeZone],
    );
    return rows;
  }

  /** The range's sums, and its distinct vehicles (one index probe per vehicle of the pack). */
  async occupancyTotals(pack: string, from: string, to: string): Promise<OccupancySums> {
    const { rows } = await this.db.query<OccupancySums>(
      `SELECT (SELECT count(*) FROM vehicles v WHERE v.pack = $1 AND EXISTS (
                 SELECT 1 FROM vehicle_daily d WHERE d.vehicle_id = v.id AND d.day BETWEEN $2::date AND $3::date)
              )::int AS vehicles,
              coalesce(sum(observed_s), 0)::float8 AS "observedS", coalesce(sum(hired_s), 0)::float8 AS "hiredS",
              coalesce(sum(distance_m), 0)::float8 AS "distanceM",
              coalesce(sum(hired_distance_m), 0)::float8 AS "hiredDistanceM"
       FROM pack_daily WHERE pack = $1 AND day BETWEEN $2::date AND $3::date`,
      [pack, from, to],
    );
    return rows[0]!;
  }

  /** Taxis of the pack authorized on local day `day`, and how many of them reported between `from` and `day`. */
  async authorizedAndActive(pack: string, from: string, day: string): Promise<{ authorized: number; active: number }> {
    const { rows } = await this.db.query<{ authorized: number; active: number }>(
      `SELECT count(*)::int AS authorized,
              count(*) FILTER (WHERE EXISTS (
                SELECT 1 FROM vehicle_daily d WHERE d.vehicle_id = v.id AND d.day BETWEEN $2::date AND $3::date))::int AS active
       FROM vehicles v WHERE v.pack = $1 AND ${AUTHORIZED('v', '$3::date')}`,
      [pack, from, day],
    );
    return rows[0]!;
  }

  /** Authorizations of the pack on `day`, per operator (most first), and in total (with those of no operator). */
  async authorizationsByOperator(
    pack: string,
    day: string,
  ): Promise<{
    total: number;
    operators: { operatorId: string; name: string; kind: string; authorizations: number }[];
  }> {
    const { rows } = await this.db.query<{
      operatorId: string | null;
      name: string | null;
      kind: string | null;
      n: number;
    }>(
      `SELECT v.operator_id AS "operatorId", o.name, o.kind, count(*)::int AS n
       FROM vehicles v LEFT JOIN operators o ON o.id = v.operator_id
       WHERE v.pack = $1 AND ${AUTHORIZED('v', '$2::date')}
       GROUP BY v.operator_id, o.name, o.kind ORDER BY n DESC, v.operator_id`,
      [pack, day],
    );
    const total = rows.reduce((sum, r) => sum + r.n, 0);
    const operators = rows
      .filter((r) => r.operatorId !== null)
      .map((r) => ({
        operatorId: r.operatorId!,
        name: r.name ?? r.operatorId!,
        kind: r.kind ?? 'company',
        authorizations: r.n,
      }));
    return { total, operators };
  }

  async operator(id: string): Promise<{ name: string; pack: string; vehicles: number } | null> {
    const { rows } = await this.db.query<{ name: string; pack: string; vehicles: number }>(
      `SELECT o.name, o.pack,
              (SELECT count(*) FROM vehicles v WHERE v.operator_id = o.id AND v.retired_at IS NULL)::int AS vehicles
       FROM operators o WHERE o.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async vehicle(id: string): Promise<{ plate: string; pack: string; operatorId: string | null } | null> {
    const { rows } = await this.db.query<{ plate: string; pack: string; operatorId: string | null }>(
      `SELECT plate, pack, operator_id AS "operatorId" FROM vehicles WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * The vehicles of a record: the one, or every vehicle that is or was the operator's. Read first
   * and passed as an array, so the planner probes the per-vehicle indexes for exactly these
   * (with `IN (subquery)` it misjudges the count and scans a year of rows of every vehicle).
   */
  async vehicleIdsOf(subject: RecordSubject): Promise<string[]> {
    if ('vehicleId' in subject) return [subject.vehicleId];
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM vehicles WHERE operator_id = $1', [
      subject.operatorId,
    ]);
    return rows.map((r) => r.id);
  }

  /** Per local month (of the rollup's local days), the vehicles' activity between two local dates. */
  async activityByMonth(vehicleIds: readonly string[], from: string, to: string): Promise<ActivityRow[]> {
    const { rows } = await this.db.query<ActivityRow>(
      `SELECT to_char(day, 'YYYY-MM') AS month, ${ACTIVITY_SUMS}
       FROM vehicle_daily WHERE vehicle_id = ANY($3::text[]) AND day BETWEEN $1::date AND $2::date
       GROUP BY 1 ORDER BY 1`,
      [from, to, vehicleIds],
    );
    return rows;
  }

  /** Violations (not dismissed) started in [fromInstant, toInstant), by local month and rule. */
  async violationsByMonthAndRule(
    subject: RecordSubject,
    fromInstant: Date,
    toInstant: Date,
    timeZone: string,
  ): Promise<{ month: string; ruleId: string; count: number }[]> {
    const col = 'vehicleId' in subject ? 'vehicle_id' : 'operator_id';
    const value = 'vehicleId' in subject ? subject.vehicleId : subject.operatorId;
    const { rows } = await this.db.query<{ month: string; ruleId: string; count: number }>(
      `SELECT to_char(started_at AT TIME ZONE $4, 'YYYY-MM') AS month, rule_id AS "ruleId", count(*)::int AS count
       FROM violations
       WHERE ${col} = $1 AND started_at >= $2 AND started_at < $3 AND status <> 'dismissed'
       GROUP BY 1, 2 ORDER BY 1, 2`,
      [value, fromInstant, toInstant, timeZone],
    );
    return rows;
  }

  /** The vehicles' completed stand visits entered in [fromInstant, toInstant): per stand, and the totals (standId null) first. */
  async standWaits(vehicleIds: readonly string[], fromInstant: Date, toInstant: Date): Promise<StandWaitRow[]> {
    const { rows } = await this.db.query<StandWaitRow>(
      `WITH w AS (
         SELECT sv.stand_id, sv.left_hired, extract(epoch FROM sv.left_at - sv.entered_at)::float8 AS wait_s
         FROM stand_visits sv WHERE sv.vehicle_id = ANY($3::text[]) AND sv.entered_at >= $1 AND sv.entered_at < $2
       )
       SELECT w.stand_id AS "standId", max(s.name) AS name, count(*)::int AS visits,
              count(*) FILTER (WHERE w.left_hired)::int AS "leftHired",
              avg(w.wait_s)::float8 AS "meanWaitS",
              percentile_cont(0.5) WITHIN GROUP (ORDER BY w.wait_s)::float8 AS "medianWaitS",
              percentile_cont(0.9) WITHIN GROUP (ORDER BY w.wait_s)::float8 AS "p90WaitS"
       FROM w LEFT JOIN stands s ON s.id = w.stand_id
       GROUP BY GROUPING SETS ((), (w.stand_id))
       ORDER BY GROUPING(w.stand_id) DESC, visits DESC, w.stand_id`,
      [fromInstant, toInstant, vehicleIds],
    );
    return rows;
  }

  /**
   * Violations (not dismissed, with a position) of the pack started in the range, for one rule or
   * all, counted per point of a grid of `stepDeg` degrees (the caller picks a step well inside the
   * heat map's cells: a year of a city's violations comes back as tens of thousands of grid points,
   * not hundreds of thousands of rows); and the counts per rule.
   */
  async violationPoints(
    pack: string,
    ruleId: string | null,
    fromInstant: Date,
    toInstant: Date,
    stepDeg: number,
  ): Promise<{ points: { lat: number; lon: number; count: number }[]; rules: { ruleId: string; count: number }[] }> {
    // Two hash aggregates over the same index range, side by side (one GROUPING SETS pass sorts instead).
    const where = `pack = $1 AND started_at >= $2 AND started_at < $3 AND status <> 'dismissed'
      AND lat IS NOT NULL AND lon IS NOT NULL`;
    const [grid, perRule] = await Promise.all([
      this.db.query<{ y: number; x: number; count: number }>(
        `SELECT round(lat / $5::float8)::int AS y, round(lon / $5::float8)::int AS x, count(*)::int AS count
         FROM violations WHERE ${where} AND ($4::text IS NULL OR rule_id = $4) GROUP BY 1, 2`,
        [pack, fromInstant, toInstant, ruleId, stepDeg],
      ),
      this.db.query<{ ruleId: string; count: number }>(
        `SELECT rule_id AS "ruleId", count(*)::int AS count FROM violations WHERE ${where} GROUP BY 1 ORDER BY 2 DESC, 1`,
        [pack, fromInstant, toInstant],
      ),
    ]);
    const points = grid.rows.map((r) => ({ lat: r.y * stepDeg, lon: r.x * stepDeg, count: r.count }));
    return { points, rules: perRule.rows };
  }
}
