import { Writable } from 'node:stream';
import { type Database, migrate, openPostgres } from '@vigia/db';
import { createScratchDatabase, holdTransaction, type ScratchDatabase } from '@vigia/db/testing';
import { pino } from 'pino';
import { BatchWriter } from '../../../src/batch-writer.js';
import { DeviceDirectory } from '../../../src/device-directory.js';
import {
  type GatewayLimitsInput,
  type RunningProtocolGateways,
  startProtocolGateways,
} from '../../../src/gateways/index.js';
import { QuarantineStore } from '../../../src/quarantine/quarantine-store.js';

/**
 * A real ingest pipeline for gateway tests: a scratch PostgreSQL database migrated with the
 * project's migrations, a real `BatchWriter` and `DeviceDirectory`, and the gateways on random
 * ports of 127.0.0.1. Log lines are kept so tests can check that a refusal says why.
 */

export interface LogLine {
  level: number;
  msg: string;
  code?: string;
  [key: string]: unknown;
}

export interface Pipeline {
  db: Database;
  gateways: RunningProtocolGateways;
  writer: BatchWriter;
  logs: LogLine[];
  registerDevice(d: {
    id: string;
    identifier: string;
    protocol: string;
    profile?: string | null;
    vehicleId?: string;
  }): Promise<void>;
  /** Telemetry rows of a registry device id, oldest first. */
  rows(deviceId: string): Promise<TelemetryRow[]>;
  close(): Promise<void>;
}

export interface TelemetryRow {
  ts: Date;
  lat: number;
  lon: number;
  speed_kmh: number | null;
  heading_deg: number | null;
  accuracy_m: number | null;
  ignition: boolean | null;
  door_open: boolean | null;
  passengers: number | null;
  children_under7: number | null;
  boardings: number | null;
  alightings: number | null;
  meter_state: string | null;
  meter_tariff: number | null;
  meter_fare_cents: number | null;
  meter_trip_id: string | null;
  tacho_speed_kmh: number | null;
  tacho_driver_id: string | null;
  vehicle_id: string;
}

export async function startPipeline(
  opts: { limits?: GatewayLimitsInput; maxPending?: number; maxFutureSkewS?: number; maxPastAgeS?: number } = {},
): Promise<Pipeline> {
  const scratch: ScratchDatabase = await createScratchDatabase('vigia_gw');
  const logs: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const log = pino({ level: 'debug' }, stream);
  const db = openPostgres(scratch.url, 6);
  await migrate(db, pino({ level: 'silent' }));
  await db.exec(`
    INSERT INTO operators (id, name, pack) VALUES ('op-df', 'Cooperativa', 'df-taxi');
    INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
      VALUES ('veh-1', 'JKL1A23', 'df-taxi', 'taxi', 4, 'op-df'),
             ('veh-2', 'JKL2B34', 'df-taxi', 'taxi', 4, 'op-df'),
             ('veh-3', 'JKL3C45', 'df-taxi', 'taxi', 4, 'op-df');`);
  const writer = new BatchWriter({
    db,
    log,
    maxRecords: 1000,
    maxWaitMs: 2,
    maxPending: opts.maxPending ?? 50_000,
    concurrency: 2,
    onCommitted: () => {},
  });
  // No cache: registry changes made by a test are seen at once.
  const devices = new DeviceDirectory(db, 0);
  const gateways = await startProtocolGateways({
    config: {
      OSMAND_PORT: 0,
      TELTONIKA_PORT: 0,
      INGEST_MAX_FUTURE_SKEW_S: opts.maxFutureSkewS ?? 300,
      ...(opts.maxPastAgeS !== undefined ? { INGEST_MAX_PAST_AGE_S: opts.maxPastAgeS } : {}),
      HOST: '127.0.0.1',
    },
    log,
    devices,
    writer,
    quarantine: new QuarantineStore(db),
    limits: { closeGraceMs: 2_000, ...opts.limits },
  });
  let vehicle = 0;
  return {
    db,
    gateways,
    writer,
    logs,
    async registerDevice(d) {
      vehicle++;
      await db.query(
        `INSERT INTO devices (id, vehicle_id, protocol, identifier, profile, token_hash) VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          d.id,
          d.vehicleId ?? `veh-${((vehicle - 1) % 3) + 1}`,
          d.protocol,
          d.identifier,
          d.profile ?? null,
          `hash-${d.id}`,
        ],
      );
    },
    async rows(deviceId) {
      const { rows } = await db.query<TelemetryRow>(
        `SELECT ts, lat, lon, speed_kmh, heading_deg, accuracy_m, ignition, door_open, passengers, children_under7,
                boardings, alightings, meter_state, meter_tariff, meter_fare_cents, meter_trip_id, tacho_speed_kmh,
                tacho_driver_id, vehicle_id
         FROM telemetry WHERE device_id = $1 ORDER BY ts`,
        [deviceId],
      );
      return rows;
    },
    async close() {
      await gateways.close();
      await writer.close();
      await db.close();
      await scratch.drop();
    },
  };
}

/** Holds an exclusive lock on the telemetry table, so every write waits until `release()`. */
export async function lockTelemetry(db: Database): Promise<{ release(): void; done: Promise<void> }> {
  return holdTransaction(db, (tx) => tx.query('LOCK TABLE telemetry IN ACCESS EXCLUSIVE MODE'));
}
