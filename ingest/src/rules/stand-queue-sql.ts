/**
 * Stores the stand queues that changed in a batch (`stand_queues`, read by dispatch) and, in the
 * same statement, records each taxi that left a queue as a completed visit in `stand_visits`
 * (the stand waiting times of api/src/analytics/README.md): a taxi in the stored queue and no
 * longer in the new one has left it, hired or driven off.
 *
 * - `entered_at`: its entry in the queue, as the rules' StandBoard keeps it.
 * - `left_at`: its latest stored sample at or before the queue's `as_of` (the pack's event-time
 *   watermark): the sample that took it out of the queue, on its own clock, so a backlog of
 *   other taxis' data does not stretch its wait. No such sample: `as_of`.
 * - `left_hired`: that sample had the meter hired, or (no meter reported) passengers aboard.
 *
 * The visit's key (stand, vehicle, entry) makes a repeated write (a queue stored again after a
 * restart) record it once. The old queue is read in the statement's snapshot, before the upsert.
 */
export const STORE_STAND_QUEUES_SQL = `
  WITH c AS (
    SELECT c.stand_id, c.pack, c.items, c.as_of
    FROM jsonb_to_recordset($1::jsonb) AS c(stand_id text, pack text, items jsonb, as_of timestamptz)
    WHERE EXISTS (SELECT 1 FROM stands s WHERE s.id = c.stand_id)
  ), gone AS (
    SELECT c.stand_id, c.pack, o."vehicleId" AS vehicle_id, o."enteredAt" AS entered_at, c.as_of
    FROM c
    JOIN stand_queues q ON q.stand_id = c.stand_id
    CROSS JOIN LATERAL jsonb_to_recordset(q.items) AS o("vehicleId" text, "enteredAt" timestamptz)
    WHERE NOT EXISTS (
      SELECT 1 FROM jsonb_to_recordset(c.items) AS n("vehicleId" text, "enteredAt" timestamptz)
      WHERE n."vehicleId" = o."vehicleId" AND n."enteredAt" = o."enteredAt")
  ), visits AS (
    INSERT INTO stand_visits (stand_id, vehicle_id, pack, entered_at, left_at, left_hired)
    SELECT g.stand_id, g.vehicle_id, g.pack, g.entered_at, greatest(coalesce(t.ts, g.as_of), g.entered_at),
      coalesce(t.meter_state = 'hired' OR (t.meter_state IS NULL AND t.passengers > 0), false)
    FROM gone g
    LEFT JOIN LATERAL (
      SELECT ts, meter_state, passengers FROM telemetry
      WHERE vehicle_id = g.vehicle_id AND ts <= g.as_of ORDER BY ts DESC LIMIT 1
    ) t ON true
    ON CONFLICT (stand_id, vehicle_id, entered_at) DO NOTHING
  )
  INSERT INTO stand_queues (stand_id, pack, items, as_of)
  SELECT stand_id, pack, items, as_of FROM c
  ON CONFLICT (stand_id) DO UPDATE
    SET pack = excluded.pack, items = excluded.items, as_of = excluded.as_of, updated_at = now()`;
