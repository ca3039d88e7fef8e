-- requires: timescaledb
-- Telemetry as a hypertable in 1-day chunks, compressed after 7 days (segmented by vehicle, with
-- the device beside it so the (device_id, ts) uniqueness still holds on compressed chunks), and an
-- hourly per-vehicle rollup for reports. Retention is set at start-up from
-- TELEMETRY_RETENTION_DAYS, not here, since it is configuration.

SELECT create_hypertable('telemetry', by_range('ts', INTERVAL '1 day'), migrate_data => true);

ALTER TABLE telemetry SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'vehicle_id, device_id',
  timescaledb.compress_orderby = 'ts DESC'
);
SELECT add_compression_policy('telemetry', INTERVAL '7 days');

CREATE MATERIALIZED VIEW telemetry_hourly
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT
  vehicle_id,
  time_bucket(INTERVAL '1 hour', ts) AS bucket,
  count(*) AS samples,
  sum(dist_m) AS distance_m,
  sum(CASE WHEN meter_state = 'hired' THEN dt_s ELSE 0 END) AS hired_s,
  sum(CASE WHEN meter_state = 'hired' THEN dist_m ELSE 0 END) AS hired_distance_m,
  max(speed_kmh) AS max_speed_kmh
FROM telemetry
GROUP BY vehicle_id, time_bucket(INTERVAL '1 hour', ts)
WITH NO DATA;

SELECT add_continuous_aggregate_policy('telemetry_hourly',
  start_offset => INTERVAL '3 days',
  end_offset => INTERVAL '1 hour',
  schedule_interval => INTERVAL '30 minutes');
