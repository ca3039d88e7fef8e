import type { FleetUpdate } from '@vigia/core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetDeltaRow } from '../src/live/fleet-delta.js';
import { movesRecordBytes, movesRecordFields, type ViewportAck } from '../src/live/live-protocol.js';
import { fleetUpdate } from './fleet-support.js';
import { api, registerVehicle, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * The `/live` viewport subscription against a real Socket.IO server and client: fleet updates are
 * published on the system's bus as ingest publishes them, the hub filters each viewport socket's
 * share by its area and scope and delta-encodes it.
 */

interface Delta {
  base: number;
  rows: FleetDeltaRow[];
}

/** Brasília's centre and a view of about 20 × 20 km around it. */
const view = { bbox: [-48.0, -15.9, -47.8, -15.7] as [number, number, number, number], zoom: 12 };
/** Inside the view, inside the margin only, and well outside (Belém). */
const inside = { lat: -15.8, lon: -47.9 };
const inMargin = { lat: -15.8, lon: -47.77 };
const far = { lat: -1.45, lon: -48.49 };

/**
 * Longer than any of these tests: what is outside the view is held for their whole length (the
 * refresh itself is timed in viewport-follower.test.ts, on a clock the test sets).
 */
const outsideRefreshMs = 60_000;

interface Client {
  socket: Socket;
  deltas: Delta[];
  fleets: FleetUpdate[][];
  /** Every vehicle's fields as the client rebuilt them from its deltas (and `fleet` pushes). */
  state: Map<string, Record<string, unknown>>;
  viewport(message: unknown): Promise<ViewportAck>;
}

describe('/live viewport subscription', () => {
  let sys: TestSystem;
  let operatorA: string;
  let operatorB: string;
  let scopedToken: string;
  const sockets: Socket[] = [];
  let clock = Date.now() - 60_000;

  beforeAll(async () => {
    sys = await startTestSystem('pglite', {
      LIVE_PUSH_INTERVAL_MS: '100',
      LIVE_OUTSIDE_REFRESH_MS: String(outsideRefreshMs),
      LIVE_VIEWPORT_MARGIN: '0.25',
    });
    operatorA = (await registerVehicle(sys)).operatorId;
    operatorB = (await registerVehicle(sys)).operatorId;
    const user = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Cooperative A',
      role: 'operator',
      operatorIds: [operatorA],
    });
    expect(user.status).toBe(201);
    scopedToken = user.body.token;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await sys?.stop();
  });

  function update(vehicleId: string, operatorId: string, at: { lat: number; lon: number }, speedKmh = 30): FleetUpdate {
    clock += 1000;
    return fleetUpdate(vehicleId, at, {
      operatorId,
      ts: new Date(clock).toISOString(),
      speedKmh,
      headingDeg: 90,
      passengers: 0,
      doorOpen: false,
    });
  }

  const publish = (...updates: FleetUpdate[]) => sys.bus.publish({ type: 'fleet', updates });

  function connect(token: string): Promise<Client> {
    const socket = io(`${sys.url}/live`, { auth: { token }, transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    const client: Client = {
      socket,
      deltas: [],
      fleets: [],
      state: new Map(),
      viewport: (message) => socket.timeout(5000).emitWithAck('viewport', message) as Promise<ViewportAck>,
    };
    socket.on('fleet-delta', (delta: Delta) => {
      client.deltas.push(delta);
      for (const { id, t, ...fields } of delta.rows) {
        client.state.set(id, { ...client.state.get(id), ...fields, ts: delta.base + t });
      }
    });
    socket.on('fleet', (updates: FleetUpdate[]) => {
      client.fleets.push(updates);
      for (const u of updates) client.state.set(u.vehicleId, { ...u, ts: Date.parse(u.ts) });
    });
    return new Promise((resolve, reject) => {
      socket.on('connect', () => resolve(client));
      socket.on('connect_error', reject);
    });
  }

  const rowsOf = (client: Client, vehicleId: string) =>
    client.deltas.flatMap((delta) => delta.rows.filter((row) => row.id === vehicleId));

  it('sends a viewport socket only the vehicles in its area, then only the fields that changed', async () => {
    const plain = await connect(sys.adminToken);
    const client = await connect(sys.adminToken);
    const ack = await client.viewport(view);
    expect(ack.ok).toBe(true);

    await publish(
      update('v-in', operatorA, inside),
      update('v-margin', operatorA, inMargin),
      update('v-far', operatorA, far),
    );
    await waitFor('the plain socket to see every vehicle', () => plain.fleets.flat().length >= 3);
    await waitFor('the viewport socket to get the vehicle in view', () => client.state.has('v-in'));
    await waitFor('the viewport socket to get the vehicle in the margin', () => client.state.has('v-margin'));
    expect(client.fleets).toEqual([]);
    // The first row of a vehicle carries every field.
    expect(rowsOf(client, 'v-in')[0]).toMatchObject({
      plate: 'P-v-in',
      operatorId: operatorA,
      pack: 'df-taxi',
      ...inside,
    });

    // It moves: the next row carries the position and speed, not the plate or the meter again.
    const moved = { lat: inside.lat + 0.001, lon: inside.lon + 0.001 };
    await publish(update('v-in', operatorA, moved, 42));
    await waitFor('the move to arrive', () => rowsOf(client, 'v-in').length >= 2);
    const second = rowsOf(client, 'v-in')[1];
    expect(second).toEqual({ id: 'v-in', t: expect.any(Number), ...moved, speedKmh: 42 });
    expect(client.state.get('v-in')).toMatchObject({ ...moved, speedKmh: 42, plate: 'P-v-in', meterState: 'free' });

    // The vehicle far away is held for later (the plain socket got it in the same push as the others).
    expect(client.state.has('v-far')).toBe(false);
  });

  it('sends a vehicle leaving the area its last position at once, and what is in view when the view moves', async () => {
    const client = await connect(sys.adminToken);
    expect((await client.viewport(view)).ok).toBe(true);
    await publish(update('v-leaving', operatorA, inside));
    await waitFor('the vehicle in view', () => client.state.has('v-leaving'));
    await publish(update('v-leaving', operatorA, far));
    // At once: the client must not keep drawing it where it was.
    await waitFor('its position outside', () => client.state.get('v-leaving')?.lat === far.lat, outsideRefreshMs / 2);

    // A vehicle that moved in Belém while the client looked at Brasília is sent when it looks at Belém.
    const watcher = await connect(sys.adminToken);
    await publish(update('v-belem', operatorA, { lat: far.lat + 0.01, lon: far.lon }));
    await waitFor('the push with the Belém vehicle', () => watcher.state.has('v-belem'));
    expect(client.state.has('v-belem')).toBe(false);
    const belem = { bbox: [-48.6, -1.6, -48.4, -1.3] as [number, number, number, number], zoom: 12 };
    const ack = await client.viewport(belem);
    expect(ack).toEqual({ ok: true, inView: expect.any(Number) });
    if (ack.ok) expect(ack.inView).toBeGreaterThanOrEqual(2);
    await waitFor('the vehicles in the new view', () => client.state.has('v-belem'));
  });

  it('keeps the scope: a viewport never shows another operator’s vehicles', async () => {
    const scoped = await connect(scopedToken);
    const admin = await connect(sys.adminToken);
    expect((await scoped.viewport(view)).ok).toBe(true);
    expect((await admin.viewport(view)).ok).toBe(true);
    await publish(update('v-b', operatorB, inside), update('v-a', operatorA, inside));
    await waitFor('the admin to see both', () => admin.state.has('v-a') && admin.state.has('v-b'));
    await waitFor('the operator to see its own', () => scoped.state.has('v-a'));
    // Both move to Belém, out of view; then the whole country is in view: still only the operator's own.
    await publish(update('v-b', operatorB, far), update('v-a', operatorA, far));
    await waitFor('the admin to see both leave', () => admin.state.get('v-b')?.lat === far.lat);
    const country = { bbox: [-75, -35, -30, 6], zoom: 4 };
    expect(await scoped.viewport(country)).toMatchObject({ ok: true });
    expect(await admin.viewport(country)).toMatchObject({ ok: true });
    await waitFor('the operator to see its vehicle in Belém', () => scoped.state.get('v-a')?.lat === far.lat);
    const seen = [...scoped.state.values()].map((vehicle) => vehicle.operatorId);
    expect(new Set(seen)).toEqual(new Set([operatorA]));
  });

  it('sends a packed client the vehicles that only moved as a binary attachment of little-endian float64 records', async () => {
    const socket = io(`${sys.url}/live`, {
      auth: { token: sys.adminToken },
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(socket);
    const received: { base: number; rows: FleetDeltaRow[]; moves?: unknown }[] = [];
    socket.on('fleet-delta', (delta: (typeof received)[number]) => received.push(delta));
    await new Promise<void>((resolve, reject) => {
      socket.on('connect', () => resolve());
      socket.on('connect_error', reject);
    });
    const ack = (await socket.timeout(5000).emitWithAck('viewport', { ...view, packed: true })) as ViewportAck;
    expect(ack.ok).toBe(true);

    await publish(update('v-packed', operatorA, inside));
    const first = await waitFor('the first row, with its index', () =>
      received.flatMap((d) => d.rows).find((row) => row.id === 'v-packed'),
    );
    expect(first).toMatchObject({ id: 'v-packed', i: expect.any(Number), plate: 'P-v-packed', ...inside });

    // It only moves (same meter, passengers, door): a record in the attachment, no row.
    const moved = { lat: inside.lat + 0.002, lon: inside.lon - 0.001 };
    const movedAt = clock + 1000;
    await publish(update('v-packed', operatorA, moved, 37));
    const delta = await waitFor('a push with moves', () => received.find((d) => d.moves !== undefined));
    expect(delta.rows.some((row) => row.id === 'v-packed')).toBe(false);
    // Socket.IO carries it as binary, not as JSON numbers: a Buffer in Node's client.
    expect(Buffer.isBuffer(delta.moves)).toBe(true);
    const bytes = delta.moves as Buffer;
    expect(bytes.byteLength).toBe(movesRecordBytes);
    const field = (name: (typeof movesRecordFields)[number]) => bytes.readDoubleLE(movesRecordFields.indexOf(name) * 8);
    expect(field('i')).toBe(first.i);
    expect(delta.base + field('t')).toBe(movedAt);
    expect([field('lat'), field('lon'), field('speedKmh'), field('headingDeg')]).toEqual([
      moved.lat,
      moved.lon,
      37,
      90,
    ]);
  });

  it('refuses a malformed viewport with a code, keeps the socket and what it followed', async () => {
    const client = await connect(sys.adminToken);
    expect((await client.viewport(view)).ok).toBe(true);
    for (const bad of [
      { bbox: [-47.8, -15.9, -48.0, -15.7], zoom: 12 },
      { bbox: [-48, -15.9, -47.8], zoom: 12 },
      { bbox: [-48, -15.9, -47.8, -15.7], zoom: 40 },
      { bbox: [-48, -15.9, -47.8, -15.7], zoom: 12, polygons: [[0, 0]] },
      { bbox: ['a', 'b', 'c', 'd'], zoom: 12 },
      'everything',
    ]) {
      const ack = await client.viewport(bad);
      expect(ack).toMatchObject({ ok: false, code: 'INVALID_VIEWPORT', message: expect.any(String) });
    }
    // No acknowledgement asked: still refused without harm.
    client.socket.emit('viewport', { bbox: null });
    expect(client.socket.connected).toBe(true);
    await publish(update('v-after-refusal', operatorA, inside));
    await waitFor('the socket to keep following its view', () => client.state.has('v-after-refusal'));
    expect(client.fleets).toEqual([]);
  });

  it('takes the newest of a burst of viewports', async () => {
    const client = await connect(sys.adminToken);
    const belem = { bbox: [-48.6, -1.6, -48.4, -1.3], zoom: 12 };
    const burst = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? view : belem));
    burst.push(belem);
    const answers = await Promise.allSettled(burst.map((viewport) => client.viewport(viewport)));
    // The last answers come (the oldest of a burst may be left unanswered); the newest view holds.
    expect(answers.at(-1)).toMatchObject({ status: 'fulfilled', value: { ok: true } });
    const watcher = await connect(sys.adminToken);
    await publish(update('v-burst-df', operatorA, inside), update('v-burst-belem', operatorA, far));
    await waitFor(
      'the watcher to see both',
      () => watcher.state.has('v-burst-df') && watcher.state.has('v-burst-belem'),
    );
    await waitFor('the Belém vehicle', () => client.state.has('v-burst-belem'));
    expect(client.state.has('v-burst-df')).toBe(false);
  });

  it('goes back to the whole feed with a null viewport, sending what it held first', async () => {
    const client = await connect(sys.adminToken);
    expect((await client.viewport(view)).ok).toBe(true);
    const watcher = await connect(sys.adminToken);
    await publish(update('v-held', operatorA, far));
    await waitFor('the push with the held vehicle', () => watcher.state.has('v-held'));
    expect(client.state.has('v-held')).toBe(false);
    expect(await client.viewport(null)).toEqual({ ok: true, inView: 0 });
    await waitFor('what was held', () => client.state.has('v-held'));
    await publish(update('v-whole', operatorA, far));
    await waitFor('a plain fleet push', () => client.fleets.flat().some((u) => u.vehicleId === 'v-whole'));
  });
});
