-- A candidate for `BENCH_STORE_VARIANT_SQL` (npm run bench:store), not a migration: the best of the
-- variants of telemetry_store() tried on 2 December 2026 (ingest/README.md, "The store statement
-- alone"). Same results as 015 (the bench and a run of messy batches — re-sends, repeats inside a
-- batch, late samples, two devices per vehicle — compared every stored value), but only 6-7 % less
-- backend CPU per batch in alternated runs, short of the 10 % that would be worth a migration.
--
-- What it changes:
-- * The three tables updated once per vehicle per batch keep 70 % of each page free, so every
--   update stays HOT (no index entry, no page hunting): 72 % of updates were HOT before, and
--   200 rows took 1.2-1.5 MB of heap after 200 batches. On TimescaleDB vehicle_hourly and
--   vehicle_daily are views (011): a migration would have to test relkind first.
-- * `d` (every column of every record) is read once, by the insert, so it is no longer
--   materialised; the accepted rows take their stored values from the insert's RETURNING and only
--   their idx from the records, so `acc` sorts 10 columns instead of 24.
-- * `adv` keeps only the idx and vehicle of each vehicle's newest accepted record; the live upsert
--   reads the record's values from `s` by idx (the same values: an accepted idx is the one stored).
ALTER TABLE vehicle_live SET (fillfactor = 30);
ALTER TABLE vehicle_hourly SET (fillfactor = 30);
ALTER TABLE vehicle_daily SET (fillfactor = 30);

CREATE OR REPLACE FUNCTION telemetry_store(
  p_ts timestamptz[], p_device_id text[], p_vehicle_id text[], p_received_at timestamptz[], p_lat float8[],
  p_lon float8[], p_speed_kmh real[], p_heading_deg real[], p_accuracy_m real[], p_ignition boolean[],
  p_door_open boolean[], p_passengers smallint[], p_children_under7 smallint[], p_boardings smallint[],
  p_alightings smallint[], p_meter_state text[], p_meter_tariff smallint[], p_meter_fare_cents integer[],
  p_meter_trip_id text[], p_tacho_speed_kmh real[], p_tacho_driver_id text[]
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  outcome text;
BEGIN
  -- The vehicles' live rows, locked in id order so that concurrent batches never deadlock, and
  -- read after the lock (each statement of a function takes a fresh snapshot).
  PERFORM 1 FROM vehicle_live WHERE vehicle_id = ANY (p_vehicle_id) ORDER BY vehicle_id FOR UPDATE;


  WITH s AS (
    SELECT * FROM unnest(p_ts, p_device_id, p_vehicle_id, p_received_at, p_lat, p_lon, p_speed_kmh, p_heading_deg,
      p_accuracy_m, p_ignition, p_door_open, p_passengers, p_children_under7, p_boardings, p_alightings, p_meter_state,
      p_meter_tariff, p_meter_fare_cents, p_meter_trip_id, p_tacho_speed_kmh, p_tacho_driver_id) WITH ORDINALITY
      AS s(ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, heading_deg, accuracy_m, ignition, door_open,
        passengers, children_under7, boardings, alightings, meter_state, meter_tariff, meter_fare_cents, meter_trip_id,
        tacho_speed_kmh, tacho_driver_id, idx)
  ), live AS (
    SELECT vehicle_id, ts, lat, lon FROM vehicle_live WHERE vehicle_id = ANY (p_vehicle_id)
  ), track AS (
    -- The samples that move their vehicle's track forward (newer than its live state, the first
    -- of their (vehicle, ts)), after the live state itself (idx NULL).
    SELECT DISTINCT ON (s.vehicle_id, s.ts) s.idx, s.vehicle_id, s.ts, s.lat, s.lon
    FROM s LEFT JOIN live l ON l.vehicle_id = s.vehicle_id
    WHERE l.ts IS NULL OR s.ts > l.ts
    ORDER BY s.vehicle_id, s.ts, s.idx
  ), step AS (
    -- ingest/src/geo.ts's haversine, written out: a SQL function called per row here is not
    -- inlined (a window's output as its argument) and cost more than the rest of the statement.
    SELECT idx,
      CASE WHEN prev_ts IS NOT NULL THEN 2 * 6371008.8 * asin(least(1, sqrt(
        sin(radians(lat - prev_lat) / 2) ^ 2
        + cos(radians(prev_lat)) * cos(radians(lat)) * sin(radians(lon - prev_lon) / 2) ^ 2))) END AS dist_m,
      -- least() skips a NULL: the first sample of a new vehicle (no previous) stays NULL, then 0.
      CASE WHEN prev_ts IS NOT NULL THEN least(extract(epoch FROM ts - prev_ts), 300) END AS dt_s
    FROM (
      SELECT idx, ts, lat, lon, lag(ts) OVER w AS prev_ts, lag(lat) OVER w AS prev_lat, lag(lon) OVER w AS prev_lon
      FROM (SELECT * FROM track UNION ALL SELECT NULL, vehicle_id, ts, lat, lon FROM live) t
      WINDOW w AS (PARTITION BY vehicle_id ORDER BY ts)
    ) w
  ), d AS (
    SELECT s.*, coalesce(step.dist_m, 0)::real AS dist_m, coalesce(step.dt_s, 0)::real AS dt_s
    FROM s LEFT JOIN step ON step.idx = s.idx
  ), ins AS (
    INSERT INTO telemetry (ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, heading_deg, accuracy_m,
      ignition, door_open, passengers, children_under7, boardings, alightings, meter_state, meter_tariff,
      meter_fare_cents, meter_trip_id, tacho_speed_kmh, tacho_driver_id, dist_m, dt_s)
    SELECT ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, heading_deg, accuracy_m, ignition, door_open,
      passengers, children_under7, boardings, alightings, meter_state, meter_tariff, meter_fare_cents, meter_trip_id,
      tacho_speed_kmh, tacho_driver_id, dist_m, dt_s
    FROM d ORDER BY idx
    ON CONFLICT (device_id, ts) DO NOTHING
    RETURNING device_id, ts, vehicle_id, dist_m, dt_s, meter_state, meter_tariff, speed_kmh, ignition
  ), acc AS (
    SELECT DISTINCT ON (s.device_id, s.ts) s.idx, ins.*
    FROM ins JOIN s ON s.device_id = ins.device_id AND s.ts = ins.ts
    ORDER BY s.device_id, s.ts, s.idx
  ), adv AS (
    SELECT DISTINCT ON (acc.vehicle_id) acc.idx, acc.vehicle_id
    FROM acc LEFT JOIN live l ON l.vehicle_id = acc.vehicle_id
    WHERE l.ts IS NULL OR acc.ts > l.ts
    ORDER BY acc.vehicle_id, acc.ts DESC, acc.idx
  ), up AS (
    INSERT INTO vehicle_live (vehicle_id, device_id, ts, lat, lon, speed_kmh, heading_deg, meter_state, meter_tariff,
      passengers, door_open, ignition, updated_at)
    SELECT s.vehicle_id, s.device_id, s.ts, s.lat, s.lon, s.speed_kmh, s.heading_deg, s.meter_state, s.meter_tariff,
      s.passengers, s.door_open, s.ignition, now()
    FROM adv JOIN s ON s.idx = adv.idx
    ORDER BY adv.vehicle_id
    ON CONFLICT (vehicle_id) DO UPDATE SET
      device_id = EXCLUDED.device_id, ts = EXCLUDED.ts, lat = EXCLUDED.lat, lon = EXCLUDED.lon,
      speed_kmh = EXCLUDED.speed_kmh, heading_deg = EXCLUDED.heading_deg, meter_state = EXCLUDED.meter_state,
      meter_tariff = EXCLUDED.meter_tariff, passengers = EXCLUDED.passengers, door_open = EXCLUDED.door_open,
      ignition = EXCLUDED.ignition, updated_at = now()
    WHERE vehicle_live.ts < EXCLUDED.ts
    RETURNING 1
  ), hourly AS (
    -- Only the stored samples; over none, NULL arrays, which vehicle_hourly_add() unnests to nothing.
    SELECT vehicle_hourly_add(array_agg(vehicle_id), array_agg(ts), array_agg(dist_m), array_agg(dt_s),
      array_agg(meter_state), array_agg(meter_tariff), array_agg(speed_kmh), array_agg(ignition)) AS done
    FROM acc
  )
  SELECT coalesce(string_agg(CASE WHEN adv.idx IS NOT NULL THEN '2' WHEN acc.idx IS NOT NULL THEN '1' ELSE '0' END, ''
    ORDER BY s.idx), '')
  INTO outcome
  FROM s LEFT JOIN acc ON acc.idx = s.idx LEFT JOIN adv ON adv.idx = s.idx
  -- Referenced so that they run: a CTE no one reads is not executed unless it modifies data.
  WHERE (SELECT count(*) FROM hourly) >= 0 AND (SELECT count(*) FROM up) >= 0;
  RETURN outcome;
END
$$;
