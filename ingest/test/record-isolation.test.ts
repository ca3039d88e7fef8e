import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Telemetry } from '@vigia/core';
import { type Database, migrate, openPglite, openPostgres } from '@vigia/db';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriter, type RecordOutcome, type UnstorableRecord } from '../src/batch-writer.js';
import { QuarantineStore } from '../src/quarantine/quarantine-store.js';
import { spooledRecordEntry } from '../src/quarantine/spooled-record.js';
import { TelemetrySpool } from '../src/spool/telemetry-spool.js';
import { telemetryRecord } from './support/telemetry-record.js';

/**
 * Issue 8, finding 2: one record the database cannot store (a NUL in a text column, a date
 * PostgreSQL cannot represent, a vehicle that does not exist) used to fail the shared transaction,
 * and every record batched with it, from any device, was refused with 503. The writer now splits
 * the batch around it: every good record is stored, the bad one alone is refused.
 *
 * The poisons are given to the writer directly, past the HTTP and gateway validation that now
 * stops the NUL: the writer must hold on its own, whatever a future way in lets through.
 */

interface LogLine {
  code?: string;
  sqlstate?: string;
  [key: string]: unknown;
}

const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

function record(deviceId: string, vehicleId: string, i: number, extra: Partial<Telemetry> = {}): Telemetry {
  return telemetryRecord({
    deviceId,
    vehicleId,
    ts: new Date(T0 + i * 10_000),
    lat: -15.79 + i * 0.0005,
    lon: -47.88,
    accuracyM: 5,
    doorOpen: false,
    childrenUnder7: 0,
    boardings: 0,
    alightings: 0,
    tachoSpeedKmh: 30,
    tachoDriverId: 'D-1',
    ...extra,
  });
}

const poisons: { name: string; sqlstate: string; poison: (r: Telemetry) => Telemetry }[] = [
  { name: 'a NUL in tacho.driverId', sqlstate: '22021', poison: (r) => ({ ...r, tachoDriverId: 'x\u0000' }) },
  {
    name: 'the year 0 (valid ISO 8601, no PostgreSQL date)',
    sqlstate: '22008',
    poison: (r) => ({ ...r, ts: new Date('0000-06-15T00:00:00Z') }),
  },
  { name: 'a vehicle that does not exist', sqlstate: '23503', poison: (r) => ({ ...r, vehicleId: 'veh-gone' }) },
];

type Target = 'pglite' | 'postgres';

describe.each<Target>(['pglite', 'postgres'])('BatchWriter isolates a record the database refuses, on %s', (target) => {
  let db: Database;
  let scratch: ScratchDatabase | undefined;
  let dataDir: string;
  const logs: LogLine[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line) as LogLine);
        done();
      },
    }),
  );

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vigia-isolation-'));
    if (target === 'postgres') {
      scratch = await createScratchDatabase('vigia_iso');
      db = openPostgres(scratch.url, 4);
    } else {
      db = await openPglite(join(dataDir, 'pg'));
    }
    await migrate(db, pino({ level: 'silent' }));
    await db.exec(`
      INSERT INTO operators (id, name, pack) VALUES ('op-df', 'Cooperativa', 'df-taxi');
      INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
        VALUES ('veh-a', 'JKL1A23', 'df-taxi', 'taxi', 4, 'op-df'),
               ('veh-b', 'JKL2B34', 'df-taxi', 'taxi', 4, 'op-df'),
               ('veh-c', 'JKL3C45', 'df-taxi', 'taxi', 4, 'op-df');`);
  });

  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const stored = async (deviceId: string) => {
    const { rows } = await db.query<{ ts: Date }>('SELECT ts FROM telemetry WHERE device_id = $1 ORDER BY ts', [
      deviceId,
    ]);
    return rows.map((r) => new Date(r.ts).getTime());
  };

  it.each(poisons)('stores every other record of the batch when one carries $name', async ({ poison, sqlstate }) => {
    const run = `${target}-${sqlstate}`;
    const committed: Telemetry[] = [];
    const writer = new BatchWriter({
      db,
      log,
      maxRecords: 1000,
      // Long enough that the three devices' writes below share one transaction.
      maxWaitMs: 50,
      maxPending: 10_000,
      concurrency: 1,
      onCommitted: ({ accepted }) => committed.push(...accepted),
    });
    const a = Array.from({ length: 40 }, (_, i) => record(`a-${run}`, 'veh-a', i));
    const b = Array.from({ length: 25 }, (_, i) => record(`b-${run}`, 'veh-b', i));
    b[13] = poison(b[13] as Telemetry);
    const c = Array.from({ length: 30 }, (_, i) => record(`c-${run}`, 'veh-c', i));
    const splitsBefore = logs.filter((l) => l.code === 'TELEMETRY_BATCH_SPLIT').length;

    const [outA, outB, outC] = await Promise.all([writer.write(a), writer.write(b), writer.write(c)]);
    await writer.close();

    // The other devices lose nothing.
    expect(outA).toEqual(a.map(() => 'accepted'));
    expect(outC).toEqual(c.map(() => 'accepted'));
    // The device that sent the poison loses that record only, with a code it can act on.
    const refused: UnstorableRecord = {
      code: 'UNSTORABLE_RECORD',
      message: expect.stringContaining(sqlstate) as unknown as string,
    };
    expect(outB).toEqual(b.map((_, i): RecordOutcome => (i === 13 ? refused : 'accepted')));
    expect(await stored(`a-${run}`)).toEqual(a.map((r) => r.ts.getTime()));
    expect(await stored(`c-${run}`)).toEqual(c.map((r) => r.ts.getTime()));
    expect(await stored(`b-${run}`)).toEqual(b.filter((_, i) => i !== 13).map((r) => r.ts.getTime()));
    // Every stored record reached the rules once, the poison never.
    expect(committed).toHaveLength(a.length + b.length + c.length - 1);
    expect(committed).not.toContain(b[13]);
    // Logged with the database's code, and the split stays logarithmic: 95 records, one poison.
    expect(logs).toContainEqual(expect.objectContaining({ code: 'UNSTORABLE_RECORD', sqlstate, device: `b-${run}` }));
    const splits = logs.filter((l) => l.code === 'TELEMETRY_BATCH_SPLIT').length - splitsBefore;
    expect(splits).toBeGreaterThan(0);
    expect(splits).toBeLessThanOrEqual(Math.ceil(Math.log2(95)));
  });

  it('refuses each of several poisons alone and stores the rest', async () => {
    const writer = new BatchWriter({
      db,
      log,
      maxRecords: 1000,
      maxWaitMs: 0,
      maxPending: 10_000,
      concurrency: 1,
      onCommitted: () => {},
    });
    const batch = Array.from({ length: 16 }, (_, i) => record(`multi-${target}`, 'veh-a', i));
    for (const [k, p] of poisons.entries()) batch[k * 5 + 1] = p.poison(batch[k * 5 + 1] as Telemetry);
    const out = await writer.write(batch);
    await writer.close();
    expect(out.map((o) => (typeof o === 'object' ? o.code : o))).toEqual(
      batch.map((_, i) => ([1, 6, 11].includes(i) ? 'UNSTORABLE_RECORD' : 'accepted')),
    );
    expect(await stored(`multi-${target}`)).toHaveLength(13);
  });

  it('replays a spool holding a poison: the good records are stored and the spool does not stay blocked', async () => {
    const spool = new TelemetrySpool(join(dataDir, `spool-${target}`), 1024 * 1024, log);
    const spooled = Array.from({ length: 6 }, (_, i) => record(`spooled-${target}`, 'veh-c', i));
    spooled[2] = { ...(spooled[2] as Telemetry), tachoDriverId: 'x\u0000' };
    expect(spool.append(spooled)).toBe(true);
    const unstorable: Telemetry[] = [];
    const writer = new BatchWriter({
      db,
      log,
      maxRecords: 1000,
      maxWaitMs: 0,
      maxPending: 10_000,
      concurrency: 1,
      onCommitted: () => {},
      spool,
      replayIntervalMs: 20,
      // As the ingest service wires it: acknowledged records the database refuses are quarantined.
      onUnstorableSpooled: async (refused) => {
        unstorable.push(...refused.map((r) => r.record));
        await new QuarantineStore(db).quarantine(refused.map((r) => spooledRecordEntry(r.record, r.outcome)));
      },
    });
    try {
      const deadline = Date.now() + 10_000;
      while (!spool.isEmpty && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(spool.isEmpty).toBe(true);
      // New records no longer queue behind the spool.
      const [fresh] = await writer.write([record(`spooled-${target}`, 'veh-c', 50)]);
      expect(fresh).toBe('accepted');
    } finally {
      await writer.close();
    }
    expect(await stored(`spooled-${target}`)).toEqual(
      [0, 1, 3, 4, 5, 50].map((i) => record('x', 'veh-c', i).ts.getTime()),
    );
    expect(unstorable.map((r) => r.tachoDriverId)).toEqual(['x\u0000']);
    const { rows: kept } = await db.query<{ code: string; raw: Buffer }>(
      "SELECT code, raw FROM quarantined_records WHERE protocol = 'spool' AND device_identifier = $1",
      [(spooled[2] as Telemetry).deviceId],
    );
    expect(kept.map((k) => k.code)).toEqual(['UNSTORABLE_RECORD']);
    expect(JSON.parse(Buffer.from(kept[0]?.raw ?? []).toString()).tachoDriverId).toBe('x\u0000');
    expect(logs).toContainEqual(expect.objectContaining({ code: 'SPOOLED_RECORD_UNSTORABLE' }));
  });
});
