import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TelemetryInput } from '@vigia/core';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceUplink, MAX_BACKLOG } from '../src/streaming/device-uplink.js';

/**
 * The uplink against a scripted ingest endpoint on loopback: overload (503 with Retry-After), an
 * unreachable server and a refused token cannot be provoked on demand from the real system.
 */
/** `hold`: the stub answers only once it resolves (a request still in flight while the device samples on). */
type Reply = { status: number; headers?: Record<string, string>; body?: unknown; hold?: Promise<void> };

interface Received {
  token: string | undefined;
  records: TelemetryInput[];
}

async function ingestStub(
  script: (call: number) => Reply,
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text) as TelemetryInput | TelemetryInput[];
    const records = Array.isArray(body) ? body : [body];
    received.push({ token: req.headers.authorization?.replace(/^Bearer /, ''), records });
    const reply = script(received.length);
    await reply.hold;
    const out =
      reply.body ??
      (reply.status === 200
        ? { accepted: records.length, duplicates: 0, rejected: [] }
        : { error: { code: 'X', message: 'x' } });
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(out));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, server };
}

const silent = pino({ level: 'silent' });
/** A device whose token is never refused. */
const deviceUplink = (ingestUrl: string, now?: () => number) =>
  new DeviceUplink({
    ingestUrl,
    deviceId: 'sim-dev-df-0001',
    identifier: 'SIM-DF-0001',
    token: 'tok-1',
    log: silent,
    renewToken: async () => 'never',
    now,
  });
const record = (i: number): TelemetryInput => ({
  deviceId: 'SIM-DF-0001',
  ts: 1_780_000_000_000 + i * 2000,
  lat: -15.8,
  lon: -47.9,
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('device uplink', () => {
  it('keeps its backlog through a 503, waits the Retry-After, then sends everything in order', async () => {
    const stub = await ingestStub((call) =>
      call === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    server = stub.server;
    let now = 0;
    const uplink = deviceUplink(stub.url, () => now);
    uplink.enqueue(record(0));
    await uplink.flush();
    expect(uplink.pending).toBe(1);
    expect(uplink.stats.failedRequests).toBe(1);

    uplink.enqueue(record(1));
    now = 500; // still within Retry-After: nothing is sent
    expect(uplink.flush()).toBeUndefined();
    now = 1000;
    await uplink.flush();
    expect(uplink.pending).toBe(0);
    expect(stub.received[1]?.records.map((r) => r.ts)).toEqual([record(0).ts, record(1).ts]);
    expect(uplink.stats.accepted).toBe(2);
  });

  it('keeps the samples it never sent when the backlog bound drops the ones in flight', async () => {
    let answer = () => {};
    const hold = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const stub = await ingestStub((call) => (call === 1 ? { status: 200, hold } : { status: 200 }));
    server = stub.server;
    const uplink = deviceUplink(stub.url);
    for (let i = 0; i < 3; i++) uplink.enqueue(record(i));
    const first = uplink.flush();
    while (stub.received.length === 0) await new Promise((r) => setTimeout(r, 5));
    // While records 0-2 are in flight the device samples on: the bound drops them from the backlog.
    for (let i = 3; i < MAX_BACKLOG + 3; i++) uplink.enqueue(record(i));
    expect(uplink.stats.dropped).toBe(3);
    answer();
    await first;
    // Their acknowledgement must not take three samples never sent with it.
    expect(uplink.pending).toBe(MAX_BACKLOG);
    await uplink.flush();
    expect(stub.received[1]?.records[0]?.ts).toBe(record(3).ts);
  });

  it('survives an unreachable server and bounds its backlog', async () => {
    const stub = await ingestStub(() => ({ status: 200 }));
    const url = stub.url;
    await new Promise<void>((resolve) => stub.server.close(() => resolve()));
    let now = 0;
    const uplink = deviceUplink(url, () => now);
    for (let i = 0; i < MAX_BACKLOG + 20; i++) uplink.enqueue(record(i));
    await expect(uplink.flush()).resolves.toBeUndefined();
    expect(uplink.stats.failedRequests).toBe(1);
    expect(uplink.pending).toBe(MAX_BACKLOG);
    expect(uplink.stats.dropped).toBe(20);
    now += 10;
    expect(uplink.flush()).toBeUndefined(); // backing off
  });

  it('gets a new token when the server refuses the old one, and sends with it', async () => {
    const stub = await ingestStub((call) =>
      call === 1 ? { status: 401, body: { error: { code: 'INVALID_TOKEN', message: 'no' } } } : { status: 200 },
    );
    server = stub.server;
    let now = 0;
    let renewed = 0;
    const uplink = new DeviceUplink({
      ingestUrl: stub.url,
      deviceId: 'sim-dev-df-0001',
      identifier: 'SIM-DF-0001',
      token: 'old-token',
      log: silent,
      renewToken: async () => {
        renewed++;
        return 'new-token';
      },
      now: () => now,
    });
    uplink.enqueue(record(0));
    await uplink.flush();
    expect(renewed).toBe(1);
    now = 60_000;
    await uplink.flush();
    expect(stub.received.map((r) => r.token)).toEqual(['old-token', 'new-token']);
    expect(uplink.pending).toBe(0);
  });
});
