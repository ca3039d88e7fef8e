import { randomBytes } from 'node:crypto';
import type { FleetUpdate } from '@vigia/core';
import { TEST_REDIS_URL } from '@vigia/db/testing';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessPair, startProcessPair } from './process-pair.js';
import type { ChildSystem } from './processes.js';
import { api, nextPlate, registerVehicle, type TestSystem, waitFor } from './support.js';
import { TcpProxy } from './tcp-proxy.js';

/**
 * Two processes in services mode, A (in this test process) and B (a built API process), on one
 * PostgreSQL database and one Redis; B reaches Redis through a proxy the test cuts, so B alone
 * loses the bus, as in a partition or a Redis restart seen late. User lookups are cached for ten
 * minutes, so nothing but the bus can make B forget a cached user within the test.
 */
const CACHE_TTL = '600000';
/** Reconnections and reloads on a shared two-core machine: generous, never asserted as durations. */
const PATIENCE_MS = 30_000;

interface LogLine {
  code?: string;
  msg?: string;
  pages?: number;
  vehicles?: number;
  batches?: number;
  failedVehicles?: number;
  messageType?: string;
  collection?: string;
}

describe('registry writes and caches across a Redis outage (services mode)', () => {
  let redis: TcpProxy;
  let pair: ProcessPair;
  let a: TestSystem;
  let b: ChildSystem;
  let procB: { url: string; adminToken: string };

  beforeAll(async () => {
    const { hostname, port } = new URL(TEST_REDIS_URL);
    redis = new TcpProxy(hostname, Number(port));
    await redis.start();
    pair = await startProcessPair({
      // An offer outlives the outage and the resume, however slow the machine.
      // Taxi pages are resynced two vehicles at a time: the offer test's three take two batches.
      shared: { DEVICE_CACHE_TTL_MS: CACHE_TTL, DISPATCH_OFFER_TIMEOUT_S: '300', DRIVER_RESYNC_BATCH: '2' },
      redisUrlForB: `redis://127.0.0.1:${redis.port}`,
    });
    ({ a, b, procB } = pair);
  }, 60_000);
  afterEach(() => redis.restore());
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.close();
    await pair?.stop();
    await redis?.stop();
  });

  /** A new regulator, who may read the registry with the token it is given. */
  async function newRegulator(): Promise<{ id: string; token: string }> {
    const user = await api<{ id: string; token: string }>(a, 'POST', '/v1/users', {
      name: `User ${randomBytes(3).toString('hex')}`,
      role: 'regulator',
      operatorIds: [],
    });
    expect(user.status).toBe(201);
    return user.body;
  }

  const logsOfB = (): LogLine[] =>
    b.logs.flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });

  /** Cuts B from Redis and waits until B itself reports its bus unreachable. */
  async function cutB(): Promise<void> {
    redis.cut();
    await waitFor(
      'B to report its bus unreachable',
      async () => {
        const res = await api<{ checks: { bus?: string } }>(procB, 'GET', '/ready', undefined, null);
        return res.body.checks.bus === 'unreachable';
      },
      PATIENCE_MS,
    );
  }

  /** Lets B reach Redis again and waits until B's bus has resumed (its own log says so). */
  async function restoreB(): Promise<void> {
    const resumedBefore = logsOfB().filter((l) => l.code === 'BUS_RESUMED').length;
    redis.restore();
    await waitFor(
      'B’s bus to resume',
      () => logsOfB().filter((l) => l.code === 'BUS_RESUMED').length > resumedBefore,
      PATIENCE_MS,
    );
  }

  it('a write through B while B’s Redis is away answers its normal success, is stored once, and the lost publish is logged', async () => {
    const operatorId = `op-${randomBytes(3).toString('hex')}`;
    const since = new Date(Date.now() - 86_400_000).toISOString();
    expect(
      (
        await api(a, 'POST', '/v1/operators', {
          id: operatorId,
          name: `Operator ${operatorId}`,
          pack: 'df-taxi',
          validFrom: since,
        })
      ).status,
    ).toBe(201);
    const user = await newRegulator();

    await cutB();
    const plate = nextPlate();
    const created = await api<{ id: string; plate: string }>(procB, 'POST', '/v1/vehicles', {
      plate,
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      manufactureYear: new Date().getFullYear() - 2,
      operatorId,
      permitNumber: `P-${operatorId}`,
      validFrom: since,
    });
    expect(created.status).toBe(201);
    expect(created.body.plate).toBe(plate);
    const retired = await api(procB, 'DELETE', `/v1/users/${user.id}`);
    expect(retired.status).toBe(200);

    const stored = await api<{ items: { id: string }[] }>(a, 'GET', `/v1/vehicles?plate=${plate}`);
    expect(stored.body.items.map((v) => v.id)).toEqual([created.body.id]);
    expect((await api(a, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status).toBe(401);

    const failed = await waitFor(
      'B to log the lost publishes',
      () => {
        const lines = logsOfB().filter((l) => l.code === 'BUS_PUBLISH_FAILED');
        return lines.length >= 2 ? lines : undefined;
      },
      PATIENCE_MS,
    );
    expect(failed.map((l) => [l.messageType, l.collection])).toEqual(
      expect.arrayContaining([
        ['registry-changed', 'vehicles'],
        ['registry-changed', 'users'],
      ]),
    );
    await restoreB();
  });

  it('a user retired through A while B’s Redis is away is refused by B, REST and live, once its bus resumes', async () => {
    const user = await newRegulator();
    // B resolves the token once: from now on B has it in its cache.
    expect((await api(procB, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status).toBe(200);
    const live = io(`${b.url}/live`, {
      auth: { token: user.token },
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(live);
    let disconnected = false;
    live.on('disconnect', () => {
      disconnected = true;
    });
    await new Promise<void>((resolve, reject) => {
      live.on('connect', () => resolve());
      live.on('connect_error', reject);
    });

    await cutB();
    expect((await api(a, 'DELETE', `/v1/users/${user.id}`)).status).toBe(200);
    expect((await api(a, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status).toBe(401);
    // B never heard of it: its cache still admits the user (the message is lost for good).
    expect((await api(procB, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status).toBe(200);

    expect(live.connected).toBe(true);

    redis.restore();
    await waitFor(
      'B to refuse the retired user’s token',
      async () => (await api(procB, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status === 401,
      PATIENCE_MS,
    );
    // Its live feed on B ends too: the sessions are re-checked when the bus resumes.
    await waitFor('B to disconnect the retired user’s socket', () => disconnected, PATIENCE_MS);
  });

  it('a position B missed while cut off reaches B’s live sockets once its bus resumes, and they are told to resync', async () => {
    const dev = await registerVehicle(a, { operatorId: `op-${randomBytes(3).toString('hex')}` });
    const live = io(`${b.url}/live`, { auth: { token: a.adminToken }, transports: ['websocket'], reconnection: false });
    sockets.push(live);
    const pushed: FleetUpdate[] = [];
    live.on('fleet', (updates: FleetUpdate[]) => pushed.push(...updates));
    let resyncs = 0;
    live.on('resync', () => resyncs++);
    await new Promise<void>((resolve, reject) => {
      live.on('connect', () => resolve());
      live.on('connect_error', reject);
    });

    await cutB();
    // The vehicle's last sample: stored and published through A while B hears nothing.
    const ts = new Date(Date.now() - 5_000).toISOString();
    const sent = await api(
      a,
      'POST',
      '/v1/telemetry',
      { deviceId: dev.identifier, ts, lat: -15.8, lon: -47.9 },
      dev.token,
    );
    expect(sent.status).toBe(200);
    await waitFor('A to store the sample', async () => {
      const vehicle = await api<{ live: { ts: string } | null }>(a, 'GET', `/v1/vehicles/${dev.vehicleId}`);
      return vehicle.body.live?.ts === ts;
    });
    expect(pushed.filter((u) => u.vehicleId === dev.vehicleId)).toEqual([]);

    await restoreB();
    const update = await waitFor(
      'B to push the position it missed',
      () => pushed.find((u) => u.vehicleId === dev.vehicleId && u.ts === ts),
      PATIENCE_MS,
    );
    expect(update).toMatchObject({ lat: -15.8, lon: -47.9, plate: expect.any(String), pack: 'df-taxi' });
    expect(logsOfB().some((l) => l.code === 'LIVE_FLEET_RELOADED')).toBe(true);
    // Violations and bookings it missed are not re-sent: the client is told to list them again.
    await waitFor('B to tell its socket that pushes were lost', () => resyncs === 1, PATIENCE_MS);
    expect(live.connected).toBe(true);
  });

  it('an offer made while B is cut off reaches the taxi’s page on B once B’s bus resumes, read in batches', async () => {
    const taxi = await registerVehicle(a, { operatorId: `op-${randomBytes(3).toString('hex')}` });
    // Two other taxis with a page each, and a second page of the offered taxi: four pages of three
    // vehicles, resynced in two batches (DRIVER_RESYNC_BATCH 2), each page with its own snapshot.
    const others = [
      await registerVehicle(a, { operatorId: `op-${randomBytes(3).toString('hex')}` }),
      await registerVehicle(a, { operatorId: `op-${randomBytes(3).toString('hex')}` }),
    ];
    const pickup = { lat: -15.7942, lon: -47.8822, address: 'SCS Quadra 2, Brasília' };
    const reported = await api(
      a,
      'POST',
      '/v1/telemetry',
      {
        deviceId: taxi.identifier,
        ts: new Date().toISOString(),
        lat: pickup.lat + 0.002,
        lon: pickup.lon,
        meter: { state: 'free' },
      },
      taxi.token,
    );
    expect(reported.status).toBe(200);
    type DriverEvent = { event: string; payload: { id?: string; offerIds?: string[]; vehicleId?: string } };
    const openPage = async (token: string): Promise<DriverEvent[]> => {
      const page = io(`${b.url}/driver`, { auth: { token }, transports: ['websocket'], reconnection: false });
      sockets.push(page);
      const received: DriverEvent[] = [];
      page.onAny((event: string, payload: DriverEvent['payload']) => received.push({ event, payload }));
      await waitFor('the page’s first snapshot', () => received.some((e) => e.event === 'synced'), PATIENCE_MS);
      return received;
    };
    const events = await openPage(taxi.token);
    const secondPage = await openPage(taxi.token);
    const otherPages = [await openPage(others[0]!.token), await openPage(others[1]!.token)];
    const resyncsBefore = logsOfB().filter((l) => l.code === 'DRIVER_RESYNCED').length;

    await cutB();
    const booking = await api<{ id: string }>(a, 'POST', '/v1/bookings', {
      operatorId: taxi.operatorId,
      pickup,
      passengers: 1,
    });
    expect(booking.status, JSON.stringify(booking.body)).toBe(201);
    const offer = await waitFor(
      'the offer to the taxi',
      async () => {
        const open = await api<{ items: { id: string; bookingId: string }[] }>(
          a,
          'GET',
          `/v1/offers?vehicleId=${taxi.vehicleId}`,
        );
        return open.body.items.find((o) => o.bookingId === booking.body.id);
      },
      PATIENCE_MS,
    );
    // Made while B heard nothing: its page was not told.
    expect(events.filter((e) => e.event === 'offer')).toEqual([]);

    await restoreB();
    await waitFor(
      'B to send the page the offer it missed',
      () => events.some((e) => e.event === 'offer' && e.payload.id === offer.id),
      PATIENCE_MS,
    );
    await waitFor(
      'a snapshot that lists it',
      () => events.some((e) => e.event === 'synced' && e.payload.offerIds?.includes(offer.id)),
      PATIENCE_MS,
    );
    await waitFor(
      'the second page of the taxi to get it too',
      () => secondPage.some((e) => e.event === 'synced' && e.payload.offerIds?.includes(offer.id)),
      PATIENCE_MS,
    );
    // The other taxis start over with their own, empty, snapshots: no offer of another vehicle.
    for (const [i, received] of otherPages.entries()) {
      await waitFor(
        `taxi ${i + 1}’s page to be resynced`,
        () => received.filter((e) => e.event === 'synced').length === 2,
        PATIENCE_MS,
      );
      const synced = received.filter((e) => e.event === 'synced').map((e) => e.payload);
      expect(synced[1]).toMatchObject({ vehicleId: others[i]!.vehicleId, offerIds: [] });
      expect(received.filter((e) => e.event === 'offer')).toEqual([]);
    }
    const resynced = await waitFor(
      'B to log its pages resynced',
      () => logsOfB().filter((l) => l.code === 'DRIVER_RESYNCED')[resyncsBefore],
      PATIENCE_MS,
    );
    expect(resynced).toMatchObject({ pages: 4, vehicles: 3, batches: 2, failedVehicles: 0 });
  });

  it('a user retired through B while only B’s Redis is away is refused by A once B reconnects: B re-publishes what it owed', async () => {
    const user = await newRegulator();
    // A resolves the token once: from now on A has it in its cache, and A never loses Redis.
    expect((await api(a, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status).toBe(200);

    await cutB();
    const owedBefore = logsOfB().filter((l) => l.code === 'BUS_OWED_PUBLISHED').length;
    expect((await api(procB, 'DELETE', `/v1/users/${user.id}`)).status).toBe(200);
    // A never heard of it: the announcement failed in B.
    expect((await api(a, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status).toBe(200);

    redis.restore();
    await waitFor(
      'A to refuse the user retired through B',
      async () => (await api(a, 'GET', '/v1/vehicles?limit=1', undefined, user.token)).status === 401,
      PATIENCE_MS,
    );
    // B logs it once everything it owed is out, which can be after A has acted on the first message.
    await waitFor(
      'B to log that it published what it owed',
      () => logsOfB().filter((l) => l.code === 'BUS_OWED_PUBLISHED').length > owedBefore,
      PATIENCE_MS,
    );
  });
});
