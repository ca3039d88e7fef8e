import { createSocket } from 'node:dgram';
import { createHttpServer, type Principal } from '@vigia/core';
import { holdTransaction } from '@vigia/db/testing';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEC_8_EXTENDED, encodeAvlData, encodeUdpDatagram } from '../src/gateways/index.js';
import { startQuarantineRetention } from '../src/quarantine/quarantine-retention.js';
import { registerQuarantineRoutes } from '../src/quarantine/quarantine-routes.js';
import { QuarantineStore } from '../src/quarantine/quarantine-store.js';
import { type Pipeline, startPipeline } from './gateways/support/pipeline.js';
import { fixRecord, frameOf, int, sleep, TestDevice } from './gateways/support/test-device.js';

/**
 * Issue 8, finding 9: records a gateway acknowledges but refuses (latitude 91, a year ahead) are
 * kept — raw bytes, reason, decoded fields — durably before the ACK, listed to admins only by
 * `GET /v1/quarantine`, counted in /metrics and purged by retention. Real sockets, real PostgreSQL.
 */

const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const YEAR_AHEAD = Date.now() + 366 * 86_400_000;
const TCP = { protocol: 'teltonika', transport: 'tcp' };

let p: Pipeline;
let store: QuarantineStore;
let api: FastifyInstance;
let apiBase: string;

interface Row {
  protocol: string;
  transport: string | null;
  device_identifier: string;
  device_id: string | null;
  code: string;
  message: string;
  raw: Buffer;
  decoded: { fix: { lat: number; tsMs: number } } | null;
}

const rowsOf = async (identifier: string): Promise<Row[]> =>
  (
    await p.db.query<Row>(
      `SELECT protocol, transport, device_identifier, device_id, code, message, raw, decoded
       FROM quarantined_records WHERE device_identifier = $1 ORDER BY id`,
      [identifier],
    )
  ).rows;

/** A record's bytes as a device puts them in a packet: the AVL data without codec id and counts. */
const recordBytes = (r: Parameters<typeof encodeAvlData>[1][number]) =>
  encodeAvlData(CODEC_8_EXTENDED, [r]).subarray(2, -1);

const principals: Record<string, Principal> = {
  'admin-token': { kind: 'admin' },
  'operator-token': { kind: 'user', userId: 'u-op', role: 'operator', operatorIds: ['op-df'] },
  'regulator-token': { kind: 'user', userId: 'u-reg', role: 'regulator', operatorIds: [] },
};

beforeAll(async () => {
  p = await startPipeline({ maxPastAgeS: 400 * 86_400 });
  store = new QuarantineStore(p.db);
  api = createHttpServer({
    log: pino({ level: 'silent' }),
    resolveToken: async (token) => principals[token],
    checks: [],
  });
  await registerQuarantineRoutes(api, { store });
  apiBase = await api.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await api?.close();
  await p?.close();
});

const list = (query: string, token = 'admin-token') =>
  fetch(`${apiBase}/v1/quarantine?${query}`, { headers: { authorization: `Bearer ${token}` } });

describe('Teltonika: refused but acknowledged records are kept', () => {
  it('keeps latitude 91, a year-ahead and a 1970 record with their exact bytes and reason; the valid one is stored', async () => {
    await p.registerDevice({ id: 'dev-q1', identifier: '350000000000105', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000105')).toBe(1);
    const lat91 = fixRecord(T0 + 1000, [int(239, 1, 1)], { latitude: 91 });
    const ahead = fixRecord(YEAR_AHEAD);
    // A clock reset to the epoch.
    const epoch = fixRecord(86_400_000);
    expect(await d.send(frameOf([fixRecord(T0), lat91, ahead, epoch]))).toBe(4);
    d.destroy();

    expect(await p.rows('dev-q1')).toHaveLength(1);
    const rows = await rowsOf('350000000000105');
    expect(rows.map((r) => [r.protocol, r.transport, r.device_id, r.code])).toEqual([
      ['teltonika', 'tcp', 'dev-q1', 'INVALID_FIX'],
      ['teltonika', 'tcp', 'dev-q1', 'FUTURE_TIMESTAMP'],
      ['teltonika', 'tcp', 'dev-q1', 'PAST_TIMESTAMP'],
    ]);
    expect(rows[0]?.raw.equals(recordBytes(lat91))).toBe(true);
    expect(rows[1]?.raw.equals(recordBytes(ahead))).toBe(true);
    expect(rows[2]?.raw.equals(recordBytes(epoch))).toBe(true);
    expect(rows[0]?.message).toMatch(/lat/);
    expect(rows[0]?.decoded?.fix.lat).toBe(91);
    expect(rows[1]?.decoded?.fix.tsMs).toBe(YEAR_AHEAD);

    const counted = (reason: string) => p.gateways.metrics.value('quarantined', { ...TCP, reason });
    expect(await Promise.all([counted('invalid_fix'), counted('future_timestamp'), counted('past_timestamp')])).toEqual(
      [1, 1, 1],
    );
    expect(await p.gateways.metrics.toPrometheus()).toContain(
      'vigia_gateway_records_quarantined_total{protocol="teltonika",transport="tcp",reason="invalid_fix"} 1',
    );
  });

  it('keeps a re-sent packet once', async () => {
    await p.registerDevice({ id: 'dev-q6', identifier: '350000000000139', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000139')).toBe(1);
    const frame = frameOf([fixRecord(T0, [], { latitude: 91 }), fixRecord(T0 + 1000, [], { latitude: 92 })]);
    expect(await d.send(frame)).toBe(2);
    expect(await d.send(frame)).toBe(2);
    d.destroy();
    expect((await rowsOf('350000000000139')).map((r) => r.code)).toEqual(['INVALID_FIX', 'INVALID_FIX']);
  });

  it('does not acknowledge until the quarantine row is committed', async () => {
    await p.registerDevice({ id: 'dev-q2', identifier: '350000000000113', protocol: 'teltonika' });
    const d = await TestDevice.connect(p.gateways.teltonikaPort);
    expect(await d.handshake('350000000000113')).toBe(1);
    const lock = await holdTransaction(p.db, (tx) =>
      tx.query('LOCK TABLE quarantined_records IN ACCESS EXCLUSIVE MODE'),
    );
    d.write(frameOf([fixRecord(T0, [], { latitude: 91 })]));
    await sleep(400);
    // The only record is refused: the ACK waits for its quarantine row, held by the lock.
    expect(d.unread.length).toBe(0);
    lock.release();
    await lock.done;
    expect((await d.read(4)).readUInt32BE(0)).toBe(1);
    expect(await rowsOf('350000000000113')).toHaveLength(1);
    d.destroy();
  });

  it('over UDP too', async () => {
    await p.registerDevice({ id: 'dev-q3', identifier: '350000000000121', protocol: 'teltonika' });
    const socket = createSocket('udp4');
    const answer = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    const record = fixRecord(T0, [], { latitude: -91 });
    socket.send(
      encodeUdpDatagram({
        packetId: 1,
        notUsableByte: 1,
        avlPacketId: 9,
        imei: '350000000000121',
        codec: CODEC_8_EXTENDED,
        records: [record],
      }),
      p.gateways.teltonikaUdpPort,
      '127.0.0.1',
    );
    expect((await answer).readUInt8(6)).toBe(1);
    socket.close();
    const [row] = await rowsOf('350000000000121');
    expect(row).toMatchObject({ transport: 'udp', code: 'INVALID_FIX' });
    expect(row?.raw.equals(recordBytes(record))).toBe(true);
  });
});

describe('OsmAnd: only what is acknowledged and not stored', () => {
  it('answers 400 to a request with no valid position and keeps nothing: the phone was told', async () => {
    await p.registerDevice({ id: 'dev-q4', identifier: 'phone-q4', protocol: 'osmand' });
    const res = await fetch(
      `http://127.0.0.1:${p.gateways.osmandPort}/?id=phone-q4&lat=91&lon=-47.9&timestamp=${T0 / 1000}`,
    );
    expect(res.status).toBe(400);
    expect(await rowsOf('phone-q4')).toEqual([]);
  });

  it('keeps the refused position of a batch answered 200 for its valid one', async () => {
    await p.registerDevice({ id: 'dev-q5', identifier: 'phone-q5', protocol: 'osmand' });
    const location = (ts: number, latitude: number) => ({
      timestamp: new Date(ts).toISOString(),
      coords: { latitude, longitude: -47.88 },
    });
    const res = await fetch(`http://127.0.0.1:${p.gateways.osmandPort}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device_id: 'phone-q5', location: [location(T0, -15.79), location(T0 + 1000, 91)] }),
    });
    expect(res.status).toBe(200);
    expect(await p.rows('dev-q5')).toHaveLength(1);
    const [row] = await rowsOf('phone-q5');
    expect(row).toMatchObject({ protocol: 'osmand', transport: 'http', code: 'INVALID_FIX' });
    expect(JSON.parse(row?.raw.toString() ?? '')).toEqual({ device_id: 'phone-q5', location: location(T0 + 1000, 91) });
  });
});

describe('GET /v1/quarantine', () => {
  it('is for admins only', async () => {
    expect((await list('', 'operator-token')).status).toBe(403);
    expect((await list('', 'regulator-token')).status).toBe(403);
    expect((await fetch(`${apiBase}/v1/quarantine`)).status).toBe(401);
  });

  it('lists newest first with filters, raw bytes in base64, and keyset pages that neither skip nor repeat', async () => {
    const all = (await (await list('limit=1000')).json()) as {
      items: { id: string; protocol: string; code: string; rawBase64: string; rawBytes: number }[];
      next: string | null;
    };
    expect(all.items.length).toBeGreaterThanOrEqual(5);
    expect(all.next).toBeNull();
    const ids = all.items.map((i) => Number(i.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const i of all.items) expect(Buffer.from(i.rawBase64, 'base64').length).toBe(i.rawBytes);

    const osmand = (await (await list('protocol=osmand')).json()) as typeof all;
    expect(osmand.items.map((i) => i.protocol)).toEqual(['osmand']);
    const future = (await (await list('code=FUTURE_TIMESTAMP&deviceIdentifier=350000000000105')).json()) as typeof all;
    expect(future.items).toHaveLength(1);
    const later = (await (
      await list(`from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
    ).json()) as typeof all;
    expect(later.items).toEqual([]);

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (await list(`limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json()) as typeof all;
      expect(page.items.length).toBeLessThanOrEqual(2);
      paged.push(...page.items.map((i) => i.id));
      cursor = page.next;
    } while (cursor);
    expect(paged).toEqual(all.items.map((i) => i.id));
  });

  it('answers 400 in the API shape to a forged cursor and a bad limit', async () => {
    const forged = await list('cursor=not-a-cursor');
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('INVALID_CURSOR');
    expect((await list('limit=0')).status).toBe(400);
    expect((await list('from=yesterday')).status).toBe(400);
  });
});

describe('retention', () => {
  it('purges what is older than QUARANTINE_RETENTION_DAYS, keeps the rest, and two purges at once agree', async () => {
    await store.quarantine([
      {
        protocol: 'teltonika',
        deviceIdentifier: 'retention-old',
        code: 'INVALID_FIX',
        message: 'old',
        raw: Buffer.from([1, 2, 3]),
        receivedAt: new Date(Date.now() - 91 * 86_400_000),
      },
      {
        protocol: 'teltonika',
        deviceIdentifier: 'retention-new',
        code: 'INVALID_FIX',
        message: 'new',
        raw: Buffer.from([4, 5, 6]),
        receivedAt: new Date(Date.now() - 89 * 86_400_000),
      },
    ]);
    const log = pino({ level: 'silent' });
    // Two processes starting at once: both purge at start.
    const a = startQuarantineRetention({ store, days: 90, log });
    const b = startQuarantineRetention({ store: new QuarantineStore(p.db), days: 90, log });
    await Promise.all([a.stop(), b.stop()]);
    expect(await rowsOf('retention-old')).toEqual([]);
    expect(await rowsOf('retention-new')).toHaveLength(1);
    expect(await store.purgeOlderThan(90)).toBe(0);
  });

  it('keeps a record whose text holds NUL: the raw bytes keep the original', async () => {
    await store.quarantine([
      {
        protocol: 'osmand',
        deviceIdentifier: 'nul-device',
        code: 'INVALID_TEXT',
        message: 'driver id "x\u0000"',
        raw: Buffer.from('driverUniqueId=x%00'),
        decoded: { attributes: { driverUniqueId: 'x\u0000' }, big: 2n ** 63n },
      },
    ]);
    const [row] = await rowsOf('nul-device');
    expect(row?.raw.toString()).toBe('driverUniqueId=x%00');
    expect(row?.decoded).toEqual({ attributes: { driverUniqueId: 'x\uFFFD' }, big: '9223372036854775808' });
  });
});
