-- requires: timescaledb
-- On TimescaleDB the hourly per-vehicle aggregate is the continuous aggregate telemetry_hourly
-- (002), recreated here with every column analytics reads (010's vehicle_hourly), and the names
-- 010 created as ingest-kept tables become views over it, so the analytics SQL is the same on
-- every database (api/src/analytics/README.md). The tables are dropped: whatever they held is
-- recomputed from telemetry by the continuous aggregate.

-- (Dropping the aggregate drops its refresh policy too.)
DROP MATERIALIZED VIEW telemetry_hourly;

CREATE MATERIALIZED VIEW telemetry_hourly
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT
  vehicle_id,
  time_bucket(INTERVAL '1 hour', ts) AS bucket,
  count(*) AS samples,
  sum(dist_m::float8) AS distance_m,
  sum(CASE WHEN meter_state = 'hired' THEN dt_s::float8 ELSE 0 END) AS hired_s,
  sum(CASE WHEN meter_state = 'hired' THEN dist_m::float8 ELSE 0 END) AS hired_distance_m,
  max(speed_kmh) AS max_speed_kmh,
  sum(dt_s::float8) AS observed_s,
  sum(CASE WHEN meter_state = 'hired' AND meter_tariff = 2 THEN dt_s::float8 ELSE 0 END) AS bandeira2_hired_s,
  sum(CASE WHEN meter_state = 'hired' AND meter_tariff = 2 THEN dist_m::float8 ELSE 0 END) AS bandeira2_hired_distance_m,
  sum(CASE WHEN ignition OR (ignition IS NULL AND speed_kmh >= 5) THEN dt_s::float8 ELSE 0 END) AS driven_s,
  sum(CASE WHEN speed_kmh >= 5 THEN dt_s::float8 ELSE 0 END) AS moving_s
FROM telemetry
GROUP BY vehicle_id, time_bucket(INTERVAL '1 hour', ts)
WITH NO DATA;

SELECT add_continuous_aggregate_policy('telemetry_hourly',
  start_offset => INTERVAL '3 days',
  end_offset => INTERVAL '1 hour',
  schedule_interval => INTERVAL '30 minutes');

DROP TABLE vehicle_hourly, vehicle_daily, pack_hourly, pack_daily;

CREATE VIEW vehicle_hourly AS
SELECT vehicle_id, bucket, samples, distance_m, hired_s, hired_distance_m, max_speed_kmh, observed_s,
  bandeira2_hired_s, bandeira2_hired_distance_m, driven_s, moving_s
FROM telemetry_hourly;

CREATE VIEW vehicle_daily AS
SELECT h.vehicle_id, (h.bucket AT TIME ZONE z.time_zone)::date AS day, v.pack,
  sum(h.samples)::bigint AS samples, sum(h.distance_m) AS distance_m, sum(h.hired_s) AS hired_s,
  sum(h.hired_distance_m) AS hired_distance_m, max(h.max_speed_kmh) AS max_speed_kmh,
  sum(h.observed_s) AS observed_s, sum(h.bandeira2_hired_s) AS bandeira2_hired_s,
  sum(h.bandeira2_hired_distance_m) AS bandeira2_hired_distance_m, sum(h.driven_s) AS driven_s,
  sum(h.moving_s) AS moving_s
FROM telemetry_hourly h
JOIN vehicles v ON v.id = h.vehicle_id
JOIN pack_time_zones z ON z.pack = v.pack
GROUP BY h.vehicle_id, (h.bucket AT TIME ZONE z.time_zone)::date, v.pack;

CREATE VIEW pack_hourly AS
SELECT v.pack, h.bucket, count(*)::int AS vehicles, sum(h.samples)::bigint AS samples,
  sum(h.observed_s) AS observed_s, sum(h.distance_m) AS distance_m, sum(h.hired_s) AS hired_s,
  sum(h.hired_distance_m) AS hired_distance_m
FROM telemetry_hourly h
JOIN vehicles v ON v.id = h.vehicle_id
GROUP BY v.pack, h.bucket;

CREATE VIEW pack_daily AS
SELECT pack, day, count(*)::int AS vehicles, sum(samples)::bigint AS samples, sum(observed_s) AS observed_s,
  sum(distance_m) AS distance_m, sum(hired_s) AS hired_s, sum(hired_distance_m) AS hired_distance_m
FROM vehicle_daily
GROUP BY pack, day;

-- The continuous aggregate keeps itself: the ingest's call does nothing here.
CREATE OR REPLACE FUNCTION vehicle_hourly_add(
  p_vehicle_id text[], p_ts timestamptz[], p_dist_m real[], p_dt_s real[], p_meter_state text[],
  p_meter_tariff smallint[], p_speed_kmh real[], p_ignition boolean[]
) RETURNS void LANGUAGE sql AS $$ SELECT $$;
