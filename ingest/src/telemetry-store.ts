import type { Telemetry } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import { booleanArray, numberArray, textArray } from './pg-array.js';

/**
 * Writes a batch of telemetry with one statement, `telemetry_store()` (db/migrations/014): it
 * locks the vehicles' live rows (in id order, so concurrent writers never deadlock), derives each
 * sample's distance and time since the vehicle's previous sample, inserts every row (duplicates
 * of (device_id, ts) are skipped and reported), adds the stored ones to the hourly per-vehicle
 * aggregate, and moves each vehicle's live row forward. One statement is its own transaction:
 * a batch costs one round trip and one result row, however many records it holds (it was five
 * statements inside BEGIN/COMMIT, with the rows' derivation in JS).
 */

/**
 * A gap longer than this is not counted as time (a device switched off overnight is not "hired"
 * for 8 hours). The SQL of telemetry_store() holds the same number.
 */
export const MAX_SAMPLE_GAP_S = 300;

export type WriteOutcome = 'accepted' | 'duplicate';

export interface StoredBatch {
  outcomes: WriteOutcome[];
  /** The records stored by this batch (not the duplicates), in the order given. */
  accepted: Telemetry[];
  /** Per vehicle, the record that became its live state in this batch. */
  advanced: Telemetry[];
}

const STORE_TELEMETRY = `SELECT telemetry_store($1::timestamptz[], $2::text[], $3::text[], $4::timestamptz[],
  $5::float8[], $6::float8[], $7::real[], $8::real[], $9::real[], $10::bool[], $11::bool[], $12::int2[], $13::int2[],
  $14::int2[], $15::int2[], $16::text[], $17::int2[], $18::int4[], $19::text[], $20::real[], $21::text[]) AS outcome`;

/** The statement's parameters: one array literal per column, built in one pass over the records. */
function columns(records: readonly Telemetry[]): string[] {
  const n = records.length;
  const ts = new Array<string>(n);
  const deviceId = new Array<string>(n);
  const vehicleId = new Array<string>(n);
  const receivedAt = new Array<string>(n);
  const lat = new Array<number>(n);
  const lon = new Array<number>(n);
  const speedKmh = new Array<number | null>(n);
  const headingDeg = new Array<number | null>(n);
  const accuracyM = new Array<number | null>(n);
  const ignition = new Array<boolean | null>(n);
  const doorOpen = new Array<boolean | null>(n);
  const passengers = new Array<number | null>(n);
  const childrenUnder7 = new Array<number | null>(n);
  const boardings = new Array<number | null>(n);
  const alightings = new Array<number | null>(n);
  const meterState = new Array<string | null>(n);
  const meterTariff = new Array<number | null>(n);
  const meterFareCents = new Array<number | null>(n);
  const meterTripId = new Array<string | null>(n);
  const tachoSpeedKmh = new Array<number | null>(n);
  const tachoDriverId = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    // toISOString throws RangeError on an invalid Date: a data error, isolated like the database's.
    ts[i] = r.ts.toISOString();
    deviceId[i] = r.deviceId;
    vehicleId[i] = r.vehicleId;
    receivedAt[i] = r.receivedAt.toISOString();
    lat[i] = r.lat;
    lon[i] = r.lon;
    speedKmh[i] = r.speedKmh;
    headingDeg[i] = r.headingDeg;
    accuracyM[i] = r.accuracyM;
    ignition[i] = r.ignition;
    doorOpen[i] = r.doorOpen;
    passengers[i] = r.passengers;
    childrenUnder7[i] = r.childrenUnder7;
    boardings[i] = r.boardings;
    alightings[i] = r.alightings;
    meterState[i] = r.meterState;
    meterTariff[i] = r.meterTariff;
    meterFareCents[i] = r.meterFareCents;
    meterTripId[i] = r.meterTripId;
    tachoSpeedKmh[i] = r.tachoSpeedKmh;
    tachoDriverId[i] = r.tachoDriverId;
  }
  return [
    textArray(ts),
    textArray(deviceId),
    textArray(vehicleId),
    textArray(receivedAt),
    numberArray(lat),
    numberArray(lon),
    numberArray(speedKmh),
    numberArray(headingDeg),
    numberArray(accuracyM),
    booleanArray(ignition),
    booleanArray(doorOpen),
    numberArray(passengers),
    numberArray(childrenUnder7),
    numberArray(boardings),
    numberArray(alightings),
    textArray(meterState),
    numberArray(meterTariff),
    numberArray(meterFareCents),
    textArray(meterTripId),
    numberArray(tachoSpeedKmh),
    textArray(tachoDriverId),
  ];
}

const DUPLICATE = 48; // '0'
const ADVANCED = 50; // '2'

/**
 * Stores `records`: alone it is one transaction; inside `db.transaction` (tests, repairs) it
 * joins the caller's.
 */
export async function storeTelemetry(db: Queryable, records: readonly Telemetry[]): Promise<StoredBatch> {
  if (records.length === 0) return { outcomes: [], accepted: [], advanced: [] };
  const { rows } = await db.query<{ outcome: string }>(STORE_TELEMETRY, columns(records));
  const codes = rows[0]?.outcome ?? '';
  if (codes.length !== records.length) {
    throw new Error(`telemetry_store answered ${codes.length} outcomes for ${records.length} records`);
  }
  const outcomes = new Array<WriteOutcome>(records.length);
  const accepted: Telemetry[] = [];
  const advanced: Telemetry[] = [];
  for (let i = 0; i < records.length; i++) {
    const code = codes.charCodeAt(i);
    if (code === DUPLICATE) {
      outcomes[i] = 'duplicate';
      continue;
    }
    outcomes[i] = 'accepted';
    accepted.push(records[i]!);
    if (code === ADVANCED) advanced.push(records[i]!);
  }
  return { outcomes, accepted, advanced };
}
