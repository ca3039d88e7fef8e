import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Telemetry } from '@vigia/core';
import { type Database, migrate, openPglite, openPostgres } from '@vigia/db';
import { createScratchDatabase, seedPgliteDataDir } from '@vigia/db/testing';
import { haversineM, MAX_SAMPLE_GAP_S, storeTelemetry } from '@vigia/ingest';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telemetryRecord } from './support/telemetry-record.js';

/**
 * The batch statement (db/migrations/014's telemetry_store(), one round trip per batch) on
 * PostgreSQL and PGlite alike, against a reference written in JS the way the ingest derived rows
 * before it moved into SQL: which records are stored and which are duplicates (stored before,
 * or earlier in the same batch), each row's distance and time since its vehicle's previous
 * sample, the live state, and the hourly aggregate.
 */

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

function sample(deviceId: string, vehicleId: string, s: number, over: Partial<Telemetry> = {}): Telemetry {
  return telemetryRecord({
    deviceId,
    vehicleId,
    ts: new Date(T0 + s * 1000),
    receivedAt: new Date(T0 + s * 1000),
    lat: -15.8 + s * 0.0001,
    lon: -47.9 - s * 0.00005,
    speedKmh: 20,
    headingDeg: null,
    accuracyM: 4.5,
    meterFareCents: 700,
    // Text that needs quoting in an array literal, and the word NULL as a value.
    meterTripId: 'trip "a" \\ {x}',
    tachoDriverId: 'NULL',
    ...over,
  });
}

/** The previous JS derivation, kept here as the reference. */
function expectedSteps(
  live: Map<string, { ts: number; lat: number; lon: number }>,
  records: readonly Telemetry[],
): { dist: number; dt: number }[] {
  const order = records.map((_, i) => i);
  order.sort((a, b) => {
    const ra = records[a]!;
    const rb = records[b]!;
    return ra.vehicleId < rb.vehicleId ? -1 : ra.vehicleId > rb.vehicleId ? 1 : ra.ts.getTime() - rb.ts.getTime();
  });
  const out = records.map(() => ({ dist: 0, dt: 0 }));
  for (const i of order) {
    const r = records[i]!;
    const prev = live.get(r.vehicleId);
    if (prev && r.ts.getTime() <= prev.ts) continue;
    if (prev) {
      out[i] = {
        dist: haversineM(prev.lat, prev.lon, r.lat, r.lon),
        dt: Math.min((r.ts.getTime() - prev.ts) / 1000, MAX_SAMPLE_GAP_S),
      };
    }
    live.set(r.vehicleId, { ts: r.ts.getTime(), lat: r.lat, lon: r.lon });
  }
  return out;
}

// Batch 1: two vehicles, v2 with two devices; a record repeated inside the batch; out of order.
const batch1 = [
  sample('d1', 'v1', 20),
  sample('d1', 'v1', 0),
  sample('d1', 'v1', 10),
  sample('d1', 'v1', 10, { lat: -15.7 }),
  sample('d2', 'v2', 5, { meterState: 'free', meterTariff: null, ignition: null, tachoDriverId: null }),
  sample('d3', 'v2', 5, { lat: -15.5 }),
  sample('d3', 'v2', 700),
];
// Batch 2: re-sends (duplicates), a late sample older than v1's live state, samples moving on.
const batch2 = [
  sample('d1', 'v1', 10),
  sample('d1', 'v1', 15),
  sample('d1', 'v1', 30),
  sample('d1', 'v1', 25),
  sample('d3', 'v2', 700),
  sample('d2', 'v2', 710, { meterTariff: 2 }),
];

async function checkStore(db: Database): Promise<void> {
  await db.exec(`
    INSERT INTO operators (id, name, pack) VALUES ('op', 'Op', 'df-taxi');
    INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id) VALUES
      ('v1', 'JKL1A23', 'df-taxi', 'taxi', 4, 'op'), ('v2', 'JKL1A24', 'df-taxi', 'taxi', 4, 'op');`);
  const live = new Map<string, { ts: number; lat: number; lon: number }>();

  const steps1 = expectedSteps(live, batch1);
  const first = await storeTelemetry(db, batch1);
  expect(first.outcomes).toEqual(['accepted', 'accepted', 'accepted', 'duplicate', 'accepted', 'accepted', 'accepted']);
  expect(first.accepted).toEqual([batch1[0], batch1[1], batch1[2], batch1[4], batch1[5], batch1[6]]);
  expect(first.advanced).toEqual([batch1[0], batch1[6]]);

  const steps2 = expectedSteps(live, batch2);
  const second = await storeTelemetry(db, batch2);
  expect(second.outcomes).toEqual(['duplicate', 'accepted', 'accepted', 'accepted', 'duplicate', 'accepted']);
  expect(second.advanced).toEqual([batch2[2], batch2[5]]);
  expect(await storeTelemetry(db, [])).toEqual({ outcomes: [], accepted: [], advanced: [] });

  // Every stored row with the reference's distance and time; the first occurrence's values kept.
  const stored = [
    ...batch1.map((r, i) => ({ r, step: steps1[i]!, ok: first.outcomes[i] === 'accepted' })),
    ...batch2.map((r, i) => ({ r, step: steps2[i]!, ok: second.outcomes[i] === 'accepted' })),
  ].filter((x) => x.ok);
  const { rows } = await db.query<{
    device_id: string;
    ts: Date;
    lat: number;
    dist_m: number;
    dt_s: number;
    meter_trip_id: string;
    tacho_driver_id: string | null;
    accuracy_m: number;
  }>(
    'SELECT device_id, ts, lat, dist_m, dt_s, meter_trip_id, tacho_driver_id, accuracy_m FROM telemetry ORDER BY device_id, ts',
  );
  expect(rows).toHaveLength(stored.length);
  for (const { r, step } of stored) {
    const row = rows.find((x) => x.device_id === r.deviceId && new Date(x.ts).getTime() === r.ts.getTime());
    expect(row, `${r.deviceId} ${r.ts.toISOString()}`).toBeDefined();
    expect(row?.lat).toBe(r.lat);
    expect(row?.dist_m).toBeCloseTo(step.dist, 1);
    expect(row?.dt_s).toBe(step.dt);
    expect(row?.meter_trip_id).toBe(r.meterTripId);
    expect(row?.tacho_driver_id).toBe(r.tachoDriverId);
    expect(row?.accuracy_m).toBe(4.5);
  }
  // The steps are not all zero: the comparison above means something.
  expect(stored.filter((x) => x.step.dist > 0 && x.step.dt === MAX_SAMPLE_GAP_S)).toHaveLength(1);

  const liveRows = await db.query<{ vehicle_id: string; device_id: string; ts: Date; meter_tariff: number }>(
    'SELECT vehicle_id, device_id, ts, meter_tariff FROM vehicle_live ORDER BY vehicle_id',
  );
  expect(liveRows.rows.map((l) => [l.vehicle_id, l.device_id, new Date(l.ts).getTime(), l.meter_tariff])).toEqual([
    ['v1', 'd1', T0 + 30_000, 1],
    ['v2', 'd2', T0 + 710_000, 2],
  ]);

  // The hourly aggregate counts stored samples only, with their derived time and distance.
  const hourly = await db.query<{ vehicle_id: string; samples: number; observed_s: number; distance_m: number }>(
    'SELECT vehicle_id, samples::int, observed_s::float8, distance_m::float8 FROM vehicle_hourly ORDER BY vehicle_id',
  );
  for (const v of ['v1', 'v2']) {
    const mine = stored.filter((x) => x.r.vehicleId === v);
    const h = hourly.rows.find((x) => x.vehicle_id === v);
    expect(h?.samples).toBe(mine.length);
    expect(h?.observed_s).toBeCloseTo(
      mine.reduce((s, x) => s + x.step.dt, 0),
      3,
    );
    expect(h?.distance_m).toBeCloseTo(
      mine.reduce((s, x) => s + x.step.dist, 0),
      0,
    );
  }
}

describe('storeTelemetry, one statement per batch', () => {
  it('on PGlite: stored, duplicates dropped, distances, live state and hourly aggregate as the reference', async () => {
    // A copy of the migrated template (a fresh PGlite spends a minute in initdb on a loaded machine).
    const dir = await mkdtemp(join(tmpdir(), 'vigia-store-'));
    await seedPgliteDataDir(dir);
    const db = await openPglite(join(dir, 'pgdata'));
    try {
      await migrate(db, pino({ level: 'silent' }));
      await checkStore(db);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  describe('on a real PostgreSQL server', () => {
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
    let db: Database;
    beforeAll(async () => {
      scratch = await createScratchDatabase();
      db = openPostgres(scratch.url, 4);
      await migrate(db, pino({ level: 'silent' }));
    });
    afterAll(async () => {
      await db?.close();
      await scratch?.drop();
    });

    it('the same outcomes and rows', async () => {
      await checkStore(db);
    });

    it('concurrent batches of the same vehicles: each record once, the live state the newest', async () => {
      const batches = [0, 1, 2, 3].map((b) =>
        [0, 1, 2, 3, 4].flatMap((k) => [
          sample('d1', 'v1', 1000 + k * 4 + b),
          sample('d3', 'v2', 1000 + k * 4 + ((b + 1) % 4)),
        ]),
      );
      const results = await Promise.all([...batches, batches[0]!].map((batch) => storeTelemetry(db, batch)));
      const accepted = results.flatMap((r) => r.outcomes).filter((o) => o === 'accepted').length;
      expect(accepted).toBe(40);
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM telemetry WHERE ts >= $1', [
        new Date(T0 + 1_000_000).toISOString(),
      ]);
      expect(rows[0]?.n).toBe(40);
      const live = await db.query<{ ts: Date }>('SELECT ts FROM vehicle_live ORDER BY vehicle_id');
      expect(live.rows.map((l) => new Date(l.ts).getTime())).toEqual([T0 + 1_019_000, T0 + 1_019_000]);
    });
  });
});
