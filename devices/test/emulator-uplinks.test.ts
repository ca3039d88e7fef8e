import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TelemetryInput } from '@vigia/core';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeAvlData, scanFrame, scanHandshake } from '../../ingest/src/gateways/index.js';
import { OsmandUplink } from '../src/emulators/osmand/osmand-uplink.js';
import {
  loadEmulatorProfile,
  type OsmandProfile,
  type TeltonikaProfile,
} from '../src/emulators/profiles/emulator-profile.js';
import { TeltonikaUplink } from '../src/emulators/teltonika/teltonika-uplink.js';
import { drain, scriptedTcpServer } from './support.js';

/**
 * The emulated devices against scripted servers on loopback: a lost ACK, a dropped connection and
 * a refused IMEI cannot be provoked on demand from the real gateway, and they are exactly what
 * the emulators must survive without losing a record.
 */

type Behaviour = 'ack' | 'drop' | 'silent' | 'refuse-imei';

interface Received {
  connection: number;
  timestamps: number[];
}

async function scriptedTeltonikaServer(script: (packet: number) => Behaviour) {
  const received: Received[] = [];
  let packets = 0;
  const server = await scriptedTcpServer((socket, connection) => {
    let buf = Buffer.alloc(0);
    let handshaken = false;
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!handshaken) {
        const hs = scanHandshake(buf);
        if (hs.kind !== 'imei') return;
        buf = buf.subarray(hs.consumed);
        handshaken = true;
        if (script(packets + 1) === 'refuse-imei') {
          packets++;
          socket.end(Buffer.from([0]));
          return;
        }
        socket.write(Buffer.from([1]));
      }
      const scan = scanFrame(buf, 1 << 20);
      if (scan.kind !== 'frame') return;
      buf = buf.subarray(scan.consumed);
      const { records } = decodeAvlData(Buffer.from(scan.data));
      received.push({ connection, timestamps: records.map((r) => r.timestampMs) });
      const behaviour = script(++packets);
      if (behaviour === 'ack') {
        const ack = Buffer.alloc(4);
        ack.writeUInt32BE(records.length);
        socket.write(ack);
      } else if (behaviour === 'drop') socket.destroy();
    });
  });
  return { ...server, received };
}

const silent = pino({ level: 'silent' });
const T0 = Date.parse('2026-11-29T20:00:00Z');
const sample = (i: number): TelemetryInput => ({
  deviceId: 'SIM-DF-0001',
  ts: new Date(T0 + i * 2000).toISOString(),
  lat: -15.79,
  lon: -47.88,
  speedKmh: 30,
  headingDeg: 90,
  ignition: true,
  meter: { state: 'hired', tariff: 1, fareCents: 600 + i, tripId: 'DF-0001-T00001' },
});

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('emulated Teltonika tracker', () => {
  const profile = loadEmulatorProfile('teltonika-fmc130-taxi') as TeltonikaProfile;

  it('re-sends the same records on a new connection when the server drops it without an ACK', async () => {
    const server = await scriptedTeltonikaServer((n) => (n === 1 ? 'drop' : 'ack'));
    cleanup.push(server.close);
    const clock = { t: 0 };
    const uplink = new TeltonikaUplink({
      host: '127.0.0.1',
      port: server.port,
      imei: '359990000000011',
      profile,
      log: silent,
      now: () => clock.t,
    });
    cleanup.push(() => uplink.close());
    for (let i = 0; i < 3; i++) uplink.enqueue(sample(i));
    await drain(uplink, clock);
    expect(uplink.pending).toBe(0);
    const sent = [0, 1, 2].map((i) => T0 + i * 2000);
    expect(server.received).toEqual([
      { connection: 1, timestamps: sent },
      { connection: 2, timestamps: sent },
    ]);
    expect(uplink.stats).toMatchObject({ sent: 3, accepted: 3, failedRequests: 1, dropped: 0 });
  });

  it('gives the connection up and re-sends when no ACK comes in time', async () => {
    const server = await scriptedTeltonikaServer((n) => (n === 1 ? 'silent' : 'ack'));
    cleanup.push(server.close);
    const clock = { t: 0 };
    const uplink = new TeltonikaUplink({
      host: '127.0.0.1',
      port: server.port,
      imei: '359990000000011',
      profile,
      log: silent,
      ackTimeoutMs: 200,
      now: () => clock.t,
    });
    cleanup.push(() => uplink.close());
    uplink.enqueue(sample(0));
    await drain(uplink, clock);
    expect(server.received.map((r) => r.connection)).toEqual([1, 2]);
    expect(uplink.pending).toBe(0);
  });

  it('keeps its records and backs off while the server refuses its IMEI', async () => {
    const server = await scriptedTeltonikaServer((n) => (n <= 2 ? 'refuse-imei' : 'ack'));
    cleanup.push(server.close);
    const clock = { t: 0 };
    const uplink = new TeltonikaUplink({
      host: '127.0.0.1',
      port: server.port,
      imei: '359990000000011',
      profile,
      log: silent,
      now: () => clock.t,
    });
    cleanup.push(() => uplink.close());
    uplink.enqueue(sample(0));
    uplink.enqueue(sample(1));
    await uplink.flush();
    // Backing off: a flush now does nothing.
    expect(uplink.flush()).toBeUndefined();
    expect(uplink.pending).toBe(2);
    await drain(uplink, clock);
    expect(uplink.pending).toBe(0);
    expect(uplink.stats.failedRequests).toBe(2);
    expect(server.received).toHaveLength(1);
  });

  it('sends one packet per batch over one connection, in order', async () => {
    const server = await scriptedTeltonikaServer(() => 'ack');
    cleanup.push(server.close);
    const uplink = new TeltonikaUplink({
      host: '127.0.0.1',
      port: server.port,
      imei: '359990000000011',
      profile,
      log: silent,
      maxRecordsPerPacket: 2,
    });
    cleanup.push(() => uplink.close());
    for (let i = 0; i < 5; i++) uplink.enqueue(sample(i));
    await uplink.flush();
    expect(server.received.map((r) => r.timestamps.length)).toEqual([2, 2, 1]);
    expect(new Set(server.received.map((r) => r.connection))).toEqual(new Set([1]));
  });
});

describe('emulated Traccar Client', () => {
  const profile = loadEmulatorProfile('osmand-traccar-client') as OsmandProfile;

  async function stub(status: (call: number) => number) {
    const urls: string[] = [];
    const server: HttpServer = createHttpServer((req, res) => {
      urls.push(req.url ?? '');
      const s = status(urls.length);
      res.writeHead(s, s === 503 ? { 'retry-after': '1' } : {});
      res.end(s === 400 ? 'INVALID_FIX: lat: too big\n' : '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, urls };
  }

  it('posts one position per request with the parameters in the URL, and keeps it through a 503', async () => {
    const server = await stub((n) => (n === 1 ? 503 : 200));
    const clock = { t: 0 };
    const uplink = new OsmandUplink({
      baseUrl: server.url,
      identifier: 'SIM-DF-0001',
      profile,
      log: silent,
      now: () => clock.t,
    });
    uplink.enqueue(sample(0));
    uplink.enqueue(sample(1));
    await drain(uplink, clock);
    expect(uplink.pending).toBe(0);
    expect(server.urls).toHaveLength(3);
    const first = new URL(server.urls[0] as string, 'http://x').searchParams;
    expect(new URL(server.urls[1] as string, 'http://x').searchParams.toString()).toBe(first.toString());
    expect(Object.fromEntries(first)).toMatchObject({
      id: 'SIM-DF-0001',
      timestamp: String(T0 / 1000),
      lat: '-15.79',
      lon: '-47.88',
      bearing: '90',
      meter: 'hired',
      tariff: '1',
      fare: '600',
      trip: 'DF-0001-T00001',
      ignition: 'true',
    });
    expect(Number(first.get('speed')) * 1.852).toBeCloseTo(30, 9);
  });

  it('drops a position the server refuses for good, and carries on with the next', async () => {
    const server = await stub((n) => (n === 1 ? 400 : 200));
    const uplink = new OsmandUplink({ baseUrl: server.url, identifier: 'SIM-DF-0001', profile, log: silent });
    uplink.enqueue(sample(0));
    uplink.enqueue(sample(1));
    await uplink.flush();
    expect(uplink.pending).toBe(0);
    expect(uplink.stats).toMatchObject({ accepted: 1, rejected: 1 });
  });
});
