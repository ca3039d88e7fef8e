-- Analytics (issue 11 item 5): the hourly per-vehicle aggregate the regulator's figures rest on,
-- its rollups, and stand visits. See api/src/analytics/README.md.
--
-- On plain PostgreSQL and PGlite these are tables kept by the ingest: storeTelemetry calls
-- vehicle_hourly_add() once per batch with the samples its insert stored (never a duplicate), in
-- the same transaction. On TimescaleDB, 011 replaces them by views over the continuous aggregate
-- telemetry_hourly and vehicle_hourly_add() by a function that does nothing; the analytics SQL
-- reads the same names everywhere.

-- The pack's legal time zone, for the local days of the daily rollups. The same zones as the rule
-- packs' `timeZone` settings (api/test/analytics-aggregate.test.ts checks they agree).
CREATE TABLE pack_time_zones (
  pack       text PRIMARY KEY,
  time_zone  text NOT NULL
);
INSERT INTO pack_time_zones (pack, time_zone) VALUES
  ('sp-fretamento', 'America/Sao_Paulo'),
  ('df-taxi', 'America/Sao_Paulo'),
  ('belem-taxi', 'America/Belem');

-- One row per vehicle and UTC hour. Each sample adds its own dt_s / dist_m (the time and distance
-- since the vehicle's previous sample, computed at ingest) under its own meter state, tariff,
-- ignition and speed. The first seven columns are those of 002's telemetry_hourly.
CREATE TABLE vehicle_hourly (
  vehicle_id                  text NOT NULL,
  bucket                      timestamptz NOT NULL,
  samples                     bigint NOT NULL,
  distance_m                  double precision NOT NULL,
  hired_s                     double precision NOT NULL,
  hired_distance_m            double precision NOT NULL,
  max_speed_kmh               real,
  observed_s                  double precision NOT NULL,
  bandeira2_hired_s           double precision NOT NULL,
  bandeira2_hired_distance_m  double precision NOT NULL,
  driven_s                    double precision NOT NULL,
  moving_s                    double precision NOT NULL,
  PRIMARY KEY (vehicle_id, bucket)
);
-- The rollups are kept from the same batches; a bench or a repair rebuilds them from this table.
CREATE INDEX vehicle_hourly_bucket ON vehicle_hourly USING brin (bucket);

-- Per vehicle and local day of its pack (the pack it had when the day was first counted).
CREATE TABLE vehicle_daily (
  vehicle_id                  text NOT NULL,
  day                         date NOT NULL,
  pack                        text NOT NULL,
  samples                     bigint NOT NULL,
  distance_m                  double precision NOT NULL,
  hired_s                     double precision NOT NULL,
  hired_distance_m            double precision NOT NULL,
  max_speed_kmh               real,
  observed_s                  double precision NOT NULL,
  bandeira2_hired_s           double precision NOT NULL,
  bandeira2_hired_distance_m  double precision NOT NULL,
  driven_s                    double precision NOT NULL,
  moving_s                    double precision NOT NULL,
  PRIMARY KEY (vehicle_id, day)
);
CREATE INDEX vehicle_daily_pack_day ON vehicle_daily (pack, day);

-- Per pack and UTC hour / local day: the fleet's sums, and `vehicles`, how many distinct vehicles
-- had samples in it (a vehicle's first row of the hour / day adds 1).
CREATE TABLE pack_hourly (
  pack              text NOT NULL,
  bucket            timestamptz NOT NULL,
  vehicles          integer NOT NULL,
  samples           bigint NOT NULL,
  observed_s        double precision NOT NULL,
  distance_m        double precision NOT NULL,
  hired_s           double precision NOT NULL,
  hired_distance_m  double precision NOT NULL,
  PRIMARY KEY (pack, bucket)
);
CREATE TABLE pack_daily (
  pack              text NOT NULL,
  day               date NOT NULL,
  vehicles          integer NOT NULL,
  samples           bigint NOT NULL,
  observed_s        double precision NOT NULL,
  distance_m        double precision NOT NULL,
  hired_s           double precision NOT NULL,
  hired_distance_m  double precision NOT NULL,
  PRIMARY KEY (pack, day)
);

-- Adds one batch of stored samples to the aggregate and its rollups: one statement, each
-- (vehicle, hour), (vehicle, day), (pack, hour), (pack, day) touched once, in key order (two
-- writers lock shared rows in the same order). "Driven": ignition on, or, from a device that
-- reports no ignition, moving (>= 5 km/h).
CREATE FUNCTION vehicle_hourly_add(
  p_vehicle_id text[], p_ts timestamptz[], p_dist_m real[], p_dt_s real[], p_meter_state text[],
  p_meter_tariff smallint[], p_speed_kmh real[], p_ignition boolean[]
) RETURNS void LANGUAGE sql AS $$
  WITH s AS (
    SELECT * FROM unnest(p_vehicle_id, p_ts, p_dist_m, p_dt_s, p_meter_state, p_meter_tariff, p_speed_kmh, p_ignition)
      AS s(vehicle_id, ts, dist_m, dt_s, meter_state, meter_tariff, speed_kmh, ignition)
  ), agg AS (
    SELECT vehicle_id,
      date_bin(INTERVAL '1 hour', ts, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
      count(*) AS samples,
      coalesce(sum(dist_m), 0)::float8 AS distance_m,
      coalesce(sum(dt_s) FILTER (WHERE meter_state = 'hired'), 0)::float8 AS hired_s,
      coalesce(sum(dist_m) FILTER (WHERE meter_state = 'hired'), 0)::float8 AS hired_distance_m,
      max(speed_kmh) AS max_speed_kmh,
      coalesce(sum(dt_s), 0)::float8 AS observed_s,
      coalesce(sum(dt_s) FILTER (WHERE meter_state = 'hired' AND meter_tariff = 2), 0)::float8 AS bandeira2_hired_s,
      coalesce(sum(dist_m) FILTER (WHERE meter_state = 'hired' AND meter_tariff = 2), 0)::float8 AS bandeira2_hired_distance_m,
      coalesce(sum(dt_s) FILTER (WHERE ignition OR (ignition IS NULL AND speed_kmh >= 5)), 0)::float8 AS driven_s,
      coalesce(sum(dt_s) FILTER (WHERE speed_kmh >= 5), 0)::float8 AS moving_s
    FROM s GROUP BY 1, 2
  ), vh AS (
    INSERT INTO vehicle_hourly AS t SELECT * FROM agg ORDER BY vehicle_id, bucket
    ON CONFLICT (vehicle_id, bucket) DO UPDATE SET
      samples = t.samples + excluded.samples,
      distance_m = t.distance_m + excluded.distance_m,
      hired_s = t.hired_s + excluded.hired_s,
      hired_distance_m = t.hired_distance_m + excluded.hired_distance_m,
      max_speed_kmh = greatest(t.max_speed_kmh, excluded.max_speed_kmh),
      observed_s = t.observed_s + excluded.observed_s,
      bandeira2_hired_s = t.bandeira2_hired_s + excluded.bandeira2_hired_s,
      bandeira2_hired_distance_m = t.bandeira2_hired_distance_m + excluded.bandeira2_hired_distance_m,
      driven_s = t.driven_s + excluded.driven_s,
      moving_s = t.moving_s + excluded.moving_s
    RETURNING t.vehicle_id, t.bucket, (t.xmax = 0) AS first_in_hour
  ), av AS (
    SELECT agg.*, v.pack, (agg.bucket AT TIME ZONE z.time_zone)::date AS day, vh.first_in_hour
    FROM agg
    JOIN vh USING (vehicle_id, bucket)
    JOIN vehicles v ON v.id = agg.vehicle_id
    JOIN pack_time_zones z ON z.pack = v.pack
  ), vd AS (
    INSERT INTO vehicle_daily AS t
    SELECT vehicle_id, day, min(pack), sum(samples), sum(distance_m), sum(hired_s), sum(hired_distance_m),
      max(max_speed_kmh), sum(observed_s), sum(bandeira2_hired_s), sum(bandeira2_hired_distance_m), sum(driven_s),
      sum(moving_s)
    FROM av GROUP BY vehicle_id, day ORDER BY vehicle_id, day
    ON CONFLICT (vehicle_id, day) DO UPDATE SET
      samples = t.samples + excluded.samples,
      distance_m = t.distance_m + excluded.distance_m,
      hired_s = t.hired_s + excluded.hired_s,
      hired_distance_m = t.hired_distance_m + excluded.hired_distance_m,
      max_speed_kmh = greatest(t.max_speed_kmh, excluded.max_speed_kmh),
      observed_s = t.observed_s + excluded.observed_s,
      bandeira2_hired_s = t.bandeira2_hired_s + excluded.bandeira2_hired_s,
      bandeira2_hired_distance_m = t.bandeira2_hired_distance_m + excluded.bandeira2_hired_distance_m,
      driven_s = t.driven_s + excluded.driven_s,
      moving_s = t.moving_s + excluded.moving_s
    RETURNING t.pack, t.day, (t.xmax = 0) AS first_in_day
  ), ph AS (
    INSERT INTO pack_hourly AS t
    SELECT pack, bucket, count(*) FILTER (WHERE first_in_hour), sum(samples), sum(observed_s), sum(distance_m),
      sum(hired_s), sum(hired_distance_m)
    FROM av GROUP BY pack, bucket ORDER BY pack, bucket
    ON CONFLICT (pack, bucket) DO UPDATE SET
      vehicles = t.vehicles + excluded.vehicles,
      samples = t.samples + excluded.samples,
      observed_s = t.observed_s + excluded.observed_s,
      distance_m = t.distance_m + excluded.distance_m,
      hired_s = t.hired_s + excluded.hired_s,
      hired_distance_m = t.hired_distance_m + excluded.hired_distance_m
  ), new_days AS (
    SELECT pack, day, count(*) FILTER (WHERE first_in_day) AS vehicles FROM vd GROUP BY pack, day
  )
  INSERT INTO pack_daily AS t
  SELECT av.pack, av.day, coalesce(max(n.vehicles), 0), sum(av.samples), sum(av.observed_s), sum(av.distance_m),
    sum(av.hired_s), sum(av.hired_distance_m)
  FROM av LEFT JOIN new_days n ON n.pack = av.pack AND n.day = av.day
  GROUP BY av.pack, av.day ORDER BY av.pack, av.day
  ON CONFLICT (pack, day) DO UPDATE SET
    vehicles = t.vehicles + excluded.vehicles,
    samples = t.samples + excluded.samples,
    observed_s = t.observed_s + excluded.observed_s,
    distance_m = t.distance_m + excluded.distance_m,
    hired_s = t.hired_s + excluded.hired_s,
    hired_distance_m = t.hired_distance_m + excluded.hired_distance_m
$$;

-- A taxi's visit to a stand's legal queue, recorded when it leaves the queue (the rule pipeline,
-- with the queue it stores in stand_queues): waiting time = left_at - entered_at.
CREATE TABLE stand_visits (
  stand_id    text NOT NULL,
  vehicle_id  text NOT NULL,
  pack        text NOT NULL,
  entered_at  timestamptz NOT NULL,
  left_at     timestamptz NOT NULL,
  left_hired  boolean NOT NULL,
  PRIMARY KEY (stand_id, vehicle_id, entered_at)
);
CREATE INDEX stand_visits_vehicle ON stand_visits (vehicle_id, entered_at);

-- The heat map and the per-pack counts read violations of a pack by start.
CREATE INDEX violations_pack_started ON violations (pack, started_at) INCLUDE (rule_id, status, lat, lon);
