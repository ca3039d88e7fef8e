import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { LOG_LINES_SUPPRESSED, LogLimiter } from '@vigia/core';
import { type Database, migrate, openPostgres } from '@vigia/db';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchWriter } from '../../src/batch-writer.js';
import { DeviceDirectory, type DeviceEntry } from '../../src/device-directory.js';
import { type RunningProtocolGateways, startProtocolGateways } from '../../src/gateways/index.js';
import { QuarantineStore } from '../../src/quarantine/quarantine-store.js';
import { sleep, TestDevice } from './support/test-device.js';

/**
 * Issue 8, finding 5: 40 000 OsmAnd requests with unique 8 KB ids grew memory by 740 MB and the log
 * by 650 MB. An id that cannot be a device's is refused before any lookup; the caches keyed by
 * what clients send are bounded; refusal lines are limited per code. The attack is replayed here
 * at 5 000 requests, against a real PostgreSQL, with the bounds small enough to be crossed.
 */

const CACHE_BOUND = 100;
const LINES_PER_CODE = 5;
const T0_S = Math.floor(Date.now() / 1000) - 3600;

/** A real directory that counts the lookups reaching it: "refused before lookup" is then observable. */
class CountingDirectory extends DeviceDirectory {
  lookups = 0;
  override async lookup(identifiers: Iterable<string>): Promise<Map<string, DeviceEntry>> {
    this.lookups++;
    return super.lookup(identifiers);
  }
}

interface Line {
  code?: string;
  suppressedCode?: string;
  suppressed?: number;
}

let scratch: ScratchDatabase;
let db: Database;
let writer: BatchWriter;
let devices: CountingDirectory;
let gateways: RunningProtocolGateways;
let base: string;
const lines: Line[] = [];
let logBytes = 0;

const linesOf = (code: string) => lines.filter((l) => l.code === code).length;
/** `count` requests, `concurrency` at a time; the statuses seen. */
async function flood(count: number, request: (i: number) => Promise<Response>, concurrency = 16): Promise<Set<number>> {
  const statuses = new Set<number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const res = await request(next++);
        await res.arrayBuffer();
        statuses.add(res.status);
      }
    }),
  );
  return statuses;
}

beforeAll(async () => {
  scratch = await createScratchDatabase('vigia_bounds');
  db = openPostgres(scratch.url, 6);
  await migrate(db, pino({ level: 'silent' }));
  await db.exec(`
    INSERT INTO operators (id, name, pack) VALUES ('op-df', 'Cooperativa', 'df-taxi');
    INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
      VALUES ('veh-1', 'JKL1A23', 'df-taxi', 'taxi', 4, 'op-df');
    INSERT INTO devices (id, vehicle_id, protocol, identifier, token_hash)
      VALUES ('dev-phone', 'veh-1', 'osmand', 'phone-1', 'hash-phone-1');`);
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logBytes += chunk.length;
        for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Line);
        done();
      },
    }),
  );
  writer = new BatchWriter({
    db,
    log,
    maxRecords: 1000,
    maxWaitMs: 2,
    maxPending: 10_000,
    concurrency: 2,
    onCommitted() {},
  });
  // A real TTL (the production default), so unknown ids are cached and the bound is what limits them.
  devices = new CountingDirectory(db, 10_000, CACHE_BOUND);
  gateways = await startProtocolGateways({
    config: { OSMAND_PORT: 0, TELTONIKA_PORT: 0, INGEST_MAX_FUTURE_SKEW_S: 300, HOST: '127.0.0.1' },
    log,
    devices,
    writer,
    quarantine: new QuarantineStore(db),
    limits: { closeGraceMs: 1_000, logLinesPerCode: LINES_PER_CODE, logIntervalMs: 60_000 },
  });
  base = `http://127.0.0.1:${gateways.osmandPort}`;
});

afterAll(async () => {
  await gateways?.close();
  await writer?.close();
  await db?.close();
  await scratch?.drop();
});

describe('ids are bounded before any lookup', () => {
  it('refuses an 8 KB id with 400 INVALID_DEVICE_ID, in either form, without looking it up or logging it', async () => {
    const huge = 'A'.repeat(8192);
    const before = devices.lookups;
    const bytesBefore = logBytes;
    const query = await fetch(`${base}/?id=${huge}&lat=-15.79&lon=-47.88&timestamp=${T0_S}`);
    expect(query.status).toBe(400);
    expect(await query.text()).toMatch(/^INVALID_DEVICE_ID/);
    const json = await fetch(`${base}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        device_id: huge,
        location: { timestamp: new Date().toISOString(), coords: { latitude: 1, longitude: 1 } },
      }),
    });
    expect(json.status).toBe(400);
    expect(await json.text()).toMatch(/^INVALID_DEVICE_ID/);
    // Not visible ASCII: a space inside, an accented letter.
    for (const id of ['phone 1', 'telefone-ã']) {
      const res = await fetch(`${base}/?id=${encodeURIComponent(id)}&lat=-15.79&lon=-47.88`);
      expect(res.status).toBe(400);
    }
    expect(devices.lookups).toBe(before);
    expect(devices.cacheSizes.unknown).toBe(0);
    // Two lines at most, neither holding the id.
    expect(logBytes - bytesBefore).toBeLessThan(2_000);
    expect(
      await gateways.metrics.value('badInput', { protocol: 'osmand', transport: 'http', reason: 'invalid_device_id' }),
    ).toBe(4);
  });

  it('still serves a registered id', async () => {
    const res = await fetch(`${base}/?id=phone-1&lat=-15.79&lon=-47.88&timestamp=${T0_S}`);
    expect(res.status).toBe(200);
  });
});

describe('5 000 requests with unique ids', () => {
  it('8 KB ids: all 400, no lookup, the log bounded', async () => {
    const before = devices.lookups;
    const bytesBefore = logBytes;
    const statuses = await flood(5_000, (i) => fetch(`${base}/?id=${String(i).padStart(8192, 'x')}&lat=1&lon=1`));
    expect([...statuses]).toEqual([400]);
    expect(devices.lookups).toBe(before);
    // 5 lines of the code in this interval in all (4 were written by the test before), the rest counted.
    expect(linesOf('INVALID_DEVICE_ID')).toBeLessThanOrEqual(LINES_PER_CODE);
    // Before the bound, each of these lines held the 8 KB id: 40 MB for 5 000 requests.
    expect(logBytes - bytesBefore).toBeLessThan(10_000);
    expect(
      await gateways.metrics.value('badInput', { protocol: 'osmand', transport: 'http', reason: 'invalid_device_id' }),
    ).toBe(5_004);
  }, 150_000);

  it('valid but unknown ids: the unknown-device cache stays within its bound, the registered device stays cached', async () => {
    const statuses = await flood(5_000, (i) =>
      fetch(`${base}/?id=unknown-${i}-${randomBytes(16).toString('hex')}&lat=1&lon=1&timestamp=${T0_S}`),
    );
    expect([...statuses]).toEqual([400]);
    expect(devices.cacheSizes.unknown).toBeLessThanOrEqual(CACHE_BOUND);
    expect(devices.cacheSizes.unknown).toBeGreaterThan(0);
    // A flood of made-up ids evicts made-up ids only.
    expect(devices.cacheSizes.known).toBe(1);
    expect(linesOf('UNKNOWN_DEVICE')).toBeLessThanOrEqual(LINES_PER_CODE);
    expect(
      await gateways.metrics.value('badInput', { protocol: 'osmand', transport: 'http', reason: 'unknown_device' }),
    ).toBe(5_000);
  }, 60_000);

  it('unknown device tokens: the token cache stays within its bound', async () => {
    for (let i = 0; i < 1_000; i++) expect(await devices.byTokenHash(randomBytes(32).toString('hex'))).toBeUndefined();
    expect(devices.cacheSizes.unknownTokens).toBeLessThanOrEqual(CACHE_BOUND);
    expect(await devices.byTokenHash('hash-phone-1')).toMatchObject({ deviceId: 'dev-phone' });
    expect(devices.cacheSizes.knownTokens).toBe(1);
  });
});

describe('Teltonika refusals are limited too', () => {
  it('300 connections with unregistered IMEIs: every one refused and counted, 5 lines logged', async () => {
    const before = linesOf('UNKNOWN_DEVICE');
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 30 }, async (_, k) => {
          const d = await TestDevice.connect(gateways.teltonikaPort);
          expect(await d.handshake(String(490_154_203_200_000 + batch * 30 + k))).toBe(0);
          d.destroy();
        }),
      );
    }
    expect(
      await gateways.metrics.value('badInput', { protocol: 'teltonika', transport: 'tcp', reason: 'unknown_device' }),
    ).toBe(300);
    // The OsmAnd flood spent this code's budget for the interval: no further line, all counted.
    expect(linesOf('UNKNOWN_DEVICE') - before).toBeLessThanOrEqual(LINES_PER_CODE);
    expect(devices.cacheSizes.unknown).toBeLessThanOrEqual(CACHE_BOUND);
  }, 30_000);
});

describe('LogLimiter', () => {
  it('writes N lines per code per interval, then one summary with the count held back', async () => {
    const out: Line[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const l of chunk.toString().split('\n')) if (l.trim()) out.push(JSON.parse(l) as Line);
          done();
        },
      }),
    );
    const limiter = new LogLimiter({ maxPerInterval: 3, intervalMs: 150 });
    for (let i = 0; i < 50; i++) limiter.warn(log, { code: 'NOISY' }, 'noisy');
    limiter.warn(log, { code: 'RARE' }, 'rare');
    await sleep(20);
    expect(out.map((l) => l.code)).toEqual(['NOISY', 'NOISY', 'NOISY', 'RARE']);
    // The summary comes when the interval ends, even if the code is not seen again.
    await sleep(400);
    expect(out.filter((l) => l.code === LOG_LINES_SUPPRESSED)).toMatchObject([
      { suppressedCode: 'NOISY', suppressed: 47 },
    ]);
    limiter.warn(log, { code: 'NOISY' }, 'noisy again');
    await sleep(20);
    expect(out.at(-1)).toMatchObject({ code: 'NOISY' });
    limiter.flush();
  });
});
