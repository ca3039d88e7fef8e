import type { Telemetry } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import { haversineM } from './geo.js';

/**
 * Writes a batch of telemetry in one transaction: locks the vehicles' live rows (in id order, so
 * concurrent writers never deadlock), derives each sample's distance and time since the
 * vehicle's previous sample, inserts every row with one `unnest` statement (duplicates of
 * (device_id, ts) are skipped and reported), adds the stored ones to the hourly per-vehicle
 * aggregate, and moves each vehicle's live row forward.
 */

/** A gap longer than this is not counted as time (a device switched off overnight is not "hired" for 8 hours). */
export const MAX_SAMPLE_GAP_S = 300;

export type WriteOutcome = 'accepted' | 'duplicate';

interface LiveRow {
  vehicle_id: string;
  ts: Date;
  lat: number;
  lon: number;
}

export interface StoredBatch {
  outcomes: WriteOutcome[];
  /** The records stored by this batch (not the duplicates), in the order given. */
  accepted: Telemetry[];
  /** Per vehicle, the record that became its live state in this batch. */
  advanced: Telemetry[];
}

const INSERT_TELEMETRY = `
  INSERT INTO telemetry (ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, heading_deg, accuracy_m,
    ignition, door_open, passengers, children_under7, boardings, alightings, meter_state, meter_tariff,
    meter_fare_cents, meter_trip_id, tacho_speed_kmh, tacho_driver_id, dist_m, dt_s)
  SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::timestamptz[], $5::float8[], $6::float8[],
    $7::real[], $8::real[], $9::real[], $10::bool[], $11::bool[], $12::int2[], $13::int2[], $14::int2[], $15::int2[],
    $16::text[], $17::int2[], $18::int4[], $19::text[], $20::real[], $21::text[], $22::real[], $23::real[])
  ON CONFLICT (device_id, ts) DO NOTHING
  RETURNING device_id, ts`;

const UPSERT_LIVE = `
  INSERT INTO vehicle_live (vehicle_id, device_id, ts, lat, lon, speed_kmh, heading_deg, meter_state, meter_tariff,
    passengers, door_open, ignition, updated_at)
  SELECT *, now() FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::float8[], $5::float8[], $6::real[],
    $7::real[], $8::text[], $9::int2[], $10::int2[], $11::bool[], $12::bool[])
  ON CONFLICT (vehicle_id) DO UPDATE SET
    device_id = EXCLUDED.device_id, ts = EXCLUDED.ts, lat = EXCLUDED.lat, lon = EXCLUDED.lon,
    speed_kmh = EXCLUDED.speed_kmh, heading_deg = EXCLUDED.heading_deg, meter_state = EXCLUDED.meter_state,
    meter_tariff = EXCLUDED.meter_tariff, passengers = EXCLUDED.passengers, door_open = EXCLUDED.door_open,
    ignition = EXCLUDED.ignition, updated_at = now()
  WHERE vehicle_live.ts < EXCLUDED.ts`;

const key = (deviceId: string, ts: Date) => `${deviceId}|${ts.getTime()}`;

export async function storeTelemetry(tx: Queryable, records: readonly Telemetry[]): Promise<StoredBatch> {
  const vehicleIds = [...new Set(records.map((r) => r.vehicleId))].sort();
  const { rows: liveRows } = await tx.query<LiveRow>(
    `SELECT vehicle_id, ts, lat, lon FROM vehicle_live WHERE vehicle_id = ANY($1::text[])
     ORDER BY vehicle_id FOR UPDATE`,
    [vehicleIds],
  );
  const previous = new Map(liveRows.map((r) => [r.vehicle_id, r]));

  // Derive distance/time in time order per vehicle; a sample older than the vehicle's newest gets 0.
  const order = records.map((_, i) => i);
  order.sort((a, b) => {
    const ra = records[a]!;
    const rb = records[b]!;
    return ra.vehicleId < rb.vehicleId ? -1 : ra.vehicleId > rb.vehicleId ? 1 : ra.ts.getTime() - rb.ts.getTime();
  });
  const distM = new Array<number>(records.length).fill(0);
  const dtS = new Array<number>(records.length).fill(0);
  const last = new Map<string, { ts: Date; lat: number; lon: number }>(previous);
  for (const i of order) {
    const r = records[i]!;
    const prev = last.get(r.vehicleId);
    if (prev && r.ts.getTime() <= prev.ts.getTime()) continue;
    if (prev) {
      distM[i] = haversineM(prev.lat, prev.lon, r.lat, r.lon);
      dtS[i] = Math.min((r.ts.getTime() - prev.ts.getTime()) / 1000, MAX_SAMPLE_GAP_S);
    }
    last.set(r.vehicleId, r);
  }

  const col = <T>(f: (r: Telemetry) => T) => records.map(f);
  const { rows: inserted } = await tx.query<{ device_id: string; ts: Date }>(INSERT_TELEMETRY, [
    col((r) => r.ts.toISOString()),
    col((r) => r.deviceId),
    col((r) => r.vehicleId),
    col((r) => r.receivedAt.toISOString()),
    col((r) => r.lat),
    col((r) => r.lon),
    col((r) => r.speedKmh),
    col((r) => r.headingDeg),
    col((r) => r.accuracyM),
    col((r) => r.ignition),
    col((r) => r.doorOpen),
    col((r) => r.passengers),
    col((r) => r.childrenUnder7),
    col((r) => r.boardings),
    col((r) => r.alightings),
    col((r) => r.meterState),
    col((r) => r.meterTariff),
    col((r) => r.meterFareCents),
    col((r) => r.meterTripId),
    col((r) => r.tachoSpeedKmh),
    col((r) => r.tachoDriverId),
    distM,
    dtS,
  ]);
  const stored = new Set(inserted.map((r) => key(r.device_id, new Date(r.ts))));
  // A record repeated inside one batch is stored once: the first occurrence is the accepted one.
  const outcomes = records.map((r): WriteOutcome => (stored.delete(key(r.deviceId, r.ts)) ? 'accepted' : 'duplicate'));

  await addToHourlyAggregate(tx, records, outcomes, distM, dtS);

  const newest = new Map<string, Telemetry>();
  records.forEach((r, i) => {
    if (outcomes[i] !== 'accepted') return;
    const prevLive = previous.get(r.vehicleId);
    if (prevLive && prevLive.ts.getTime() >= r.ts.getTime()) return;
    const best = newest.get(r.vehicleId);
    if (!best || best.ts.getTime() < r.ts.getTime()) newest.set(r.vehicleId, r);
  });
  const advanced = [...newest.values()];
  if (advanced.length > 0) {
    const lc = <T>(f: (r: Telemetry) => T) => advanced.map(f);
    await tx.query(UPSERT_LIVE, [
      lc((r) => r.vehicleId),
      lc((r) => r.deviceId),
      lc((r) => r.ts.toISOString()),
      lc((r) => r.lat),
      lc((r) => r.lon),
      lc((r) => r.speedKmh),
      lc((r) => r.headingDeg),
      lc((r) => r.meterState),
      lc((r) => r.meterTariff),
      lc((r) => r.passengers),
      lc((r) => r.doorOpen),
      lc((r) => r.ignition),
    ]);
  }
  return { outcomes, accepted: records.filter((_, i) => outcomes[i] === 'accepted'), advanced };
}

/**
 * The hourly per-vehicle aggregate and its rollups (db/migrations/010, api/src/analytics/README.md):
 * one call per batch with the samples the insert stored, so a duplicate refused by the unique
 * index is never counted and a late sample adds to its own hour. On TimescaleDB the function does
 * nothing (the continuous aggregate keeps itself).
 */
async function addToHourlyAggregate(
  tx: Queryable,
  records: readonly Telemetry[],
  outcomes: readonly WriteOutcome[],
  distM: readonly number[],
  dtS: readonly number[],
): Promise<void> {
  const kept = records.map((_, i) => i).filter((i) => outcomes[i] === 'accepted');
  if (kept.length === 0) return;
  const col = <T>(f: (i: number) => T) => kept.map(f);
  await tx.query(
    `SELECT vehicle_hourly_add($1::text[], $2::timestamptz[], $3::real[], $4::real[], $5::text[], $6::int2[], $7::real[],
    $8::bool[])`,
    [
      col((i) => records[i]!.vehicleId),
      col((i) => records[i]!.ts.toISOString()),
      col((i) => distM[i]),
      col((i) => dtS[i]),
      col((i) => records[i]!.meterState),
      col((i) => records[i]!.meterTariff),
      col((i) => records[i]!.speedKmh),
      col((i) => records[i]!.ignition),
    ],
  );
}
