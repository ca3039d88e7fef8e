import type { Telemetry } from '@vigia/core';
import { type Database, migrate, openPostgres, type QueryResult } from '@vigia/db';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriter } from '../src/batch-writer.js';
import { telemetryRecord } from './support/telemetry-record.js';

/**
 * Concurrent batches of the same vehicles waited on each other's locks in `telemetry_store()` and
 * stored half as much as one writer alone (issue 12 item 2). The writer now gives each vehicle to
 * one transaction at a time: these tests watch the statements it sends to a real PostgreSQL.
 */

const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);
const VEHICLES = 16;

function record(v: number, i: number): Telemetry {
  return telemetryRecord({
    deviceId: `lane-d${v}`,
    vehicleId: `lane-v${v}`,
    ts: new Date(T0 + i * 1000),
    lat: -15.79 + i * 1e-5,
    lon: -47.88 + v * 1e-3,
    meterTripId: `t-${v}`,
  });
}

/** The elements of a text array literal as ingest builds it (`{"a","b"}`; ids need no escapes here). */
const textElements = (literal: string) => [...literal.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] as string);

interface SentBatch {
  /** (vehicle, ts) of each record, in the statement's order. */
  records: { vehicleId: string; ts: string }[];
  /** The vehicles of the batches that were in flight when this one was sent. */
  overlapping: Set<string>[];
}

/** The real database, with a record of every telemetry batch sent and what was in flight beside it. */
function watched(db: Database): { db: Database; sent: SentBatch[] } {
  const sent: SentBatch[] = [];
  const inFlight = new Set<Set<string>>();
  const query = async <T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> => {
    if (!sql.includes('telemetry_store(') || !params) return db.query<T>(sql, params);
    const ts = textElements(String(params[0]));
    const vehicleIds = textElements(String(params[2]));
    const vehicles = new Set(vehicleIds);
    sent.push({
      records: vehicleIds.map((vehicleId, i) => ({ vehicleId, ts: ts[i] as string })),
      overlapping: [...inFlight],
    });
    inFlight.add(vehicles);
    try {
      return await db.query<T>(sql, params);
    } finally {
      inFlight.delete(vehicles);
    }
  };
  return {
    db: { ...db, query },
    sent,
  };
}

/** A writer of batches of 500 with four transactions at once, over `watched(db)`. */
function watchedWriter(db: Database, maxWaitMs: number): { writer: BatchWriter; sent: SentBatch[] } {
  const { db: spy, sent } = watched(db);
  const writer = new BatchWriter({
    db: spy,
    log: pino({ level: 'silent' }),
    maxRecords: 500,
    maxWaitMs,
    maxPending: 100_000,
    concurrency: 4,
    onCommitted: () => {},
  });
  return { writer, sent };
}

describe('BatchWriter on PostgreSQL: concurrent transactions never share a vehicle', () => {
  let scratch: ScratchDatabase;
  let db: Database;

  beforeAll(async () => {
    scratch = await createScratchDatabase('vigia_lanes');
    db = openPostgres(scratch.url, 6);
    await migrate(db, pino({ level: 'silent' }));
    await db.query(`INSERT INTO operators (id, name, pack) VALUES ('op-lanes', 'Cooperativa', 'df-taxi')`);
    await db.query(
      `INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
       SELECT 'lane-v' || v, 'LAN' || lpad(v::text, 4, '0'), 'df-taxi', 'taxi', 4, 'op-lanes'
       FROM generate_series(0, $1::int - 1) v`,
      [VEHICLES],
    );
  });

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('sends full batches side by side, each with vehicles no other batch in flight holds, in arrival order per vehicle', async () => {
    const { writer, sent } = watchedWriter(db, 5);
    // Every vehicle in every request, as a gateway's batches of a whole fleet come.
    const requests = Array.from({ length: 8 }, (_, r) =>
      Array.from({ length: 500 }, (_, k) => record(k % VEHICLES, r * 32 + Math.floor(k / VEHICLES))),
    );
    const outcomes = await Promise.all(requests.map((batch) => writer.write(batch)));
    await writer.close();

    expect(outcomes.flat().every((o) => o === 'accepted')).toBe(true);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM telemetry WHERE device_id LIKE 'lane-d%'`,
    );
    expect(rows[0]?.n).toBe(4000);

    // Batches did go side by side (the writer is not merely serial)…
    expect(sent.some((b) => b.overlapping.length > 0)).toBe(true);
    // …and none shared a vehicle with a batch in flight beside it.
    for (const batch of sent) {
      for (const other of batch.overlapping) {
        expect(batch.records.filter((r) => other.has(r.vehicleId))).toEqual([]);
      }
    }
    // Each vehicle's records went to the database in the order they arrived.
    for (let v = 0; v < VEHICLES; v++) {
      const sentOrder = sent.flatMap((b) => b.records.filter((r) => r.vehicleId === `lane-v${v}`).map((r) => r.ts));
      const arrived = requests.flat().filter((r) => r.vehicleId === `lane-v${v}`);
      expect(sentOrder).toEqual(arrived.map((r) => r.ts.toISOString()));
    }
  });

  it('still gathers a light load into one transaction at a time', async () => {
    const { writer, sent } = watchedWriter(db, 20);
    // One record per request from every vehicle, as phones send: far from a full batch.
    const singles = Array.from({ length: VEHICLES }, (_, v) => record(v, 10_000));
    await Promise.all(singles.map((r) => writer.write([r])));
    await writer.close();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.records).toHaveLength(VEHICLES);
  });
});
