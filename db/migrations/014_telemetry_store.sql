-- One statement per telemetry batch (issue 12 item 2). telemetry_store() does in the database
-- what storeTelemetry did in five round trips inside BEGIN/COMMIT (lock the live rows, insert,
-- add to the hourly aggregate, move the live state): called alone it is its own transaction, so
-- a batch costs the ingest one round trip and one result row, whatever its size.
--
-- Per sample, as before: dist_m / dt_s are the distance and time since the vehicle's previous
-- sample (its live state, or the batch's previous sample in time order), 0 for a sample that is
-- not newer than the vehicle's newest, and for every sample after the first of the same
-- (vehicle, ts); dt_s is capped at 300 s (MAX_SAMPLE_GAP_S in ingest/src/telemetry-store.ts: a
-- device switched off overnight is not 8 hours of work). Duplicates of (device_id, ts), stored
-- before or earlier in the batch, are skipped; only stored samples reach the aggregate; a
-- vehicle's live state moves to its newest stored sample when that is newer than the live one.
--
-- The result is one character per sample, in the order given: '0' duplicate, '1' stored,
-- '2' stored and now its vehicle's live state.
CREATE FUNCTION telemetry_store(
  p_ts timestamptz[], p_device_id text[], p_vehicle_id text[], p_received_at timestamptz[], p_lat float8[],
  p_lon float8[], p_speed_kmh real[], p_heading_deg real[], p_accuracy_m real[], p_ignition boolean[],
  p_door_open boolean[], p_passengers smallint[], p_children_under7 smallint[], p_boardings smallint[],
  p_alightings smallint[], p_meter_state text[], p_meter_tariff smallint[], p_meter_fare_cents integer[],
  p_meter_trip_id text[], p_tacho_speed_kmh real[], p_tacho_driver_id text[]
) RETURNS text LANGUAGE sql AS $$
  -- The vehicles' live rows, locked in id order so that concurrent batches never deadlock, and
  -- read after the lock (each statement of a volatile SQL function takes a fresh snapshot).
  -- LANGUAGE sql, not plpgsql: PGlite loads plpgsql on its first use, most of a second on a busy
  -- machine, which the first batch after a start would wait for.
  SELECT 1 FROM vehicle_live WHERE vehicle_id = ANY (p_vehicle_id) ORDER BY vehicle_id FOR UPDATE;

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
    RETURNING device_id, ts
  ), acc AS (
    -- A sample repeated inside the batch is stored once: its first occurrence is the accepted one.
    SELECT DISTINCT ON (d.device_id, d.ts) d.*
    FROM d JOIN ins ON ins.device_id = d.device_id AND ins.ts = d.ts
    ORDER BY d.device_id, d.ts, d.idx
  ), adv AS (
    SELECT DISTINCT ON (acc.vehicle_id) acc.*
    FROM acc LEFT JOIN live l ON l.vehicle_id = acc.vehicle_id
    WHERE l.ts IS NULL OR acc.ts > l.ts
    ORDER BY acc.vehicle_id, acc.ts DESC, acc.idx
  ), up AS (
    INSERT INTO vehicle_live (vehicle_id, device_id, ts, lat, lon, speed_kmh, heading_deg, meter_state, meter_tariff,
      passengers, door_open, ignition, updated_at)
    SELECT vehicle_id, device_id, ts, lat, lon, speed_kmh, heading_deg, meter_state, meter_tariff, passengers,
      door_open, ignition, now()
    FROM adv
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
  FROM s LEFT JOIN acc ON acc.idx = s.idx LEFT JOIN adv ON adv.idx = s.idx
  -- Referenced so that they run: a CTE no one reads is not executed unless it modifies data.
  WHERE (SELECT count(*) FROM hourly) >= 0 AND (SELECT count(*) FROM up) >= 0
$$;
