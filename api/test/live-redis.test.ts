import type { FleetUpdate } from '@vigia/core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessPair, startProcessPair } from './process-pair.js';
import type { ChildSystem } from './processes.js';
import { api, registerVehicle, type TestSystem, waitFor } from './support.js';

/**
 * Two API processes behind one Redis: telemetry ingested through process A must reach a
 * dashboard client connected to process B (a separate OS process running the built API service).
 */
describe('live channel across processes through Redis', () => {
  let pair: ProcessPair;
  let a: TestSystem;
  let b: ChildSystem;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    pair = await startProcessPair({ b: { LIVE_PUSH_INTERVAL_MS: '500' } });
    ({ a, b } = pair);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await pair?.stop();
  });

  function connect(
    url: string,
    token: string,
  ): Promise<{ socket: Socket; batches: { at: number; updates: FleetUpdate[] }[] }> {
    const socket = io(`${url}/live`, { auth: { token }, transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    const batches: { at: number; updates: FleetUpdate[] }[] = [];
    socket.on('fleet', (updates: FleetUpdate[]) => batches.push({ at: Date.now(), updates }));
    return new Promise((resolve, reject) => {
      socket.on('connect', () => resolve({ socket, batches }));
      socket.on('connect_error', reject);
    });
  }

  it('pushes updates ingested by process A to a client of process B, batched and newest-only', async () => {
    const dev = await registerVehicle(a, { operatorId: 'op-live-1' });
    const client = await connect(b.url, a.adminToken);
    const t0 = Date.now() - 60_000;
    const sentAt = Date.now();
    for (let i = 0; i < 10; i++) {
      const res = await api(
        a,
        'POST',
        '/v1/telemetry',
        {
          deviceId: dev.identifier,
          ts: new Date(t0 + i * 1000).toISOString(),
          lat: -15.79 + i * 0.0005,
          lon: -47.88,
          speedKmh: 30 + i,
          meter: { state: 'hired', tariff: 2 },
          passengers: 2,
        },
        dev.token,
      );
      expect(res.status).toBe(200);
    }
    const newest = new Date(t0 + 9000).toISOString();
    const seen = await waitFor('process B to push the update', () =>
      client.batches.find((b) => b.updates.some((u) => u.vehicleId === dev.vehicleId && u.ts === newest)),
    );
    const latencyMs = seen.at - sentAt;
    console.log(`live: update visible on the other process ${latencyMs} ms after the first POST`);
    const update = seen.updates.find((u) => u.vehicleId === dev.vehicleId)!;
    expect(update).toMatchObject({
      plate: expect.any(String),
      pack: 'df-taxi',
      meterState: 'hired',
      tariff: 2,
      passengers: 2,
    });
    // 10 samples, sent within a few push intervals: far fewer batches than samples, one entry per vehicle each.
    const mine = client.batches.filter((b) => b.updates.some((u) => u.vehicleId === dev.vehicleId));
    expect(mine.length).toBeLessThan(10);
    for (const batch of client.batches) {
      const ids = batch.updates.map((u) => u.vehicleId);
      expect(new Set(ids).size).toBe(ids.length);
    }
    // Pushes come one per LIVE_PUSH_INTERVAL_MS (500): over the whole run they average at least
    // 400 ms apart. Taken over the span, not pair by pair: a busy test process reads one push late
    // and the next on time, and the pair looks close (353 ms was seen on a loaded machine).
    const pushes = client.batches.length;
    if (pushes > 1) {
      const span = client.batches[pushes - 1]!.at - client.batches[0]!.at;
      expect(span + 500).toBeGreaterThanOrEqual(400 * (pushes - 1));
    }
  });

  it('shows an operator-scoped user only its own operator’s vehicles', async () => {
    const mine = await registerVehicle(a, { operatorId: 'op-live-mine' });
    const theirs = await registerVehicle(a, { operatorId: 'op-live-theirs' });
    const user = await api<{ token: string }>(a, 'POST', '/v1/users', {
      name: 'Cooperative dispatcher',
      role: 'dispatcher',
      operatorIds: ['op-live-mine'],
    });
    expect(user.status).toBe(201);
    const scoped = await connect(b.url, user.body.token);
    const all = await connect(b.url, a.adminToken);
    for (const d of [theirs, mine]) {
      await api(
        a,
        'POST',
        '/v1/telemetry',
        { deviceId: d.identifier, ts: new Date().toISOString(), lat: -15.8, lon: -47.9 },
        d.token,
      );
    }
    await waitFor('the admin to see its own vehicle', () =>
      all.batches.find((b) => b.updates.some((u) => u.vehicleId === mine.vehicleId)),
    );
    await waitFor('the admin to see the other vehicle', () =>
      all.batches.find((b) => b.updates.some((u) => u.vehicleId === theirs.vehicleId)),
    );
    await waitFor('the scoped user to see its vehicle', () =>
      scoped.batches.find((b) => b.updates.some((u) => u.vehicleId === mine.vehicleId)),
    );
    const leaked = scoped.batches.flatMap((b) => b.updates).filter((u) => u.operatorId !== 'op-live-mine');
    expect(leaked).toEqual([]);
    // The same scope holds on the REST side.
    const list = await api<{ items: { operatorId: string }[] }>(
      { url: b.url, adminToken: a.adminToken },
      'GET',
      '/v1/vehicles',
      undefined,
      user.body.token,
    );
    expect(list.body.items.length).toBeGreaterThan(0);
    expect(new Set(list.body.items.map((v) => v.operatorId))).toEqual(new Set(['op-live-mine']));
  });

  it('refuses a socket without a valid token', async () => {
    await expect(connect(b.url, 'nope')).rejects.toThrow(/INVALID_TOKEN/);
  });
});
