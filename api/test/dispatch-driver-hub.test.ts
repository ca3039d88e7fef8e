import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem, waitFor as waitForValue } from './support.js';

/**
 * Socket.IO `/driver` against a real system (PGlite): a device's socket hears its own vehicle's
 * offers only, an offer's close on expiry, the accepted booking as telemetry moves it on; users
 * other than the admin are refused, and a retired device is disconnected.
 */

const PICKUP = { lat: -15.7942, lon: -47.8822, address: 'SCS Quadra 2, Brasília' };
const north = (metres: number) => PICKUP.lat + metres / 111_195;

interface Received {
  event: string;
  payload: Record<string, unknown>;
}

interface DriverClient {
  socket: Socket;
  events: Received[];
  disconnectReason: () => string | undefined;
  close(): void;
}

/** support's waitFor, with the longer wait an offer round trip needs on a loaded machine. */
const waitFor = <T>(what: string, probe: () => T | undefined, timeoutMs = 15_000) =>
  waitForValue(what, probe, timeoutMs);

async function connect(url: string, auth: Record<string, string>): Promise<DriverClient> {
  const socket = io(`${url}/driver`, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
  const events: Received[] = [];
  let reason: string | undefined;
  socket.onAny((event: string, payload: Record<string, unknown>) => events.push({ event, payload }));
  socket.on('disconnect', (r) => {
    reason = r;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (err: Error & { data?: { code?: string } }) =>
      reject(Object.assign(new Error(err.data?.code ?? err.message), { code: err.data?.code })),
    );
  });
  return { socket, events, disconnectReason: () => reason, close: () => socket.close() };
}

async function refusal(url: string, auth: Record<string, string>): Promise<string> {
  try {
    const client = await connect(url, auth);
    client.close();
    return 'connected';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

/** A free taxi reporting from `metresNorth` of the pickup, now. */
async function report(
  sys: TestSystem,
  taxi: { identifier: string; token: string },
  metresNorth: number,
  meter = 'free',
) {
  const res = await api(
    sys,
    'POST',
    '/v1/telemetry',
    {
      deviceId: taxi.identifier,
      ts: new Date().toISOString(),
      lat: north(metresNorth),
      lon: PICKUP.lon,
      meter: { state: meter },
    },
    taxi.token,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const find =
  (client: DriverClient, event: string, match: (p: Record<string, unknown>) => boolean = () => true) =>
  () =>
    client.events.find((e) => e.event === event && match(e.payload))?.payload;

describe('Socket.IO /driver', () => {
  let sys: TestSystem;

  beforeAll(async () => {
    sys = await startTestSystem('pglite', {
      DISPATCH_OFFER_TIMEOUT_S: '2',
      DISPATCH_POLL_INTERVAL_MS: '200',
      DEVICE_CACHE_TTL_MS: '60000',
    });
  }, 60_000);

  afterAll(async () => {
    await sys?.stop();
  });

  it('offers go to their vehicle only, close on expiry, and the accepted booking follows telemetry', async () => {
    const near = await registerVehicle(sys);
    const far = await registerVehicle(sys, { operatorId: near.operatorId });
    await report(sys, near, 300);
    await report(sys, far, 2_000);

    const nearClient = await connect(sys.url, { token: near.token });
    const farClient = await connect(sys.url, { token: far.token });
    try {
      // The first event says who the page speaks for: the tracker sends as this identifier.
      expect(await waitFor('hello', find(nearClient, 'hello'))).toEqual({
        vehicleId: near.vehicleId,
        deviceId: near.deviceId,
        identifier: near.identifier,
      });
      // Then the snapshot (nothing open yet), closed by `synced` with the plate the page shows.
      const nearVehicle = await api<{ plate: string }>(sys, 'GET', `/v1/vehicles/${near.vehicleId}`);
      expect(await waitFor('synced', find(nearClient, 'synced'))).toEqual({
        vehicleId: near.vehicleId,
        plate: nearVehicle.body.plate,
        offerIds: [],
        bookingId: null,
      });

      const created = await api<{ id: string }>(sys, 'POST', '/v1/bookings', {
        operatorId: near.operatorId,
        pickup: PICKUP,
        passengers: 2,
        notes: 'Portão azul',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const bookingId = created.body.id;

      // Best arrival first: the nearer taxi, shaped as an item of GET /v1/offers.
      const firstOffer = await waitFor('offer to the near taxi', find(nearClient, 'offer'));
      expect(firstOffer).toMatchObject({
        bookingId,
        vehicleId: near.vehicleId,
        operatorId: near.operatorId,
        pickup: PICKUP,
        passengers: 2,
        notes: 'Portão azul',
      });
      expect(typeof firstOffer.distanceM).toBe('number');
      expect(Math.abs((firstOffer.distanceM as number) - 300)).toBeLessThan(30);
      const listed = await api<{ items: unknown[] }>(sys, 'GET', '/v1/offers', undefined, near.token);
      expect(listed.body.items).toEqual([firstOffer]);
      expect(farClient.events.some((e) => e.event === 'offer')).toBe(false);

      // Nobody answers: it expires, the near taxi hears so, and the booking passes to the far one.
      expect(await waitFor('offer-closed', find(nearClient, 'offer-closed'))).toEqual({
        id: firstOffer.id,
        response: 'expired',
      });
      const secondOffer = await waitFor('offer to the far taxi', find(farClient, 'offer'));
      expect(secondOffer).toMatchObject({ bookingId, vehicleId: far.vehicleId });
      expect(nearClient.events.filter((e) => e.event === 'offer')).toHaveLength(1);

      const accepted = await api(sys, 'POST', `/v1/offers/${secondOffer.id}/accept`, {}, far.token);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(await waitFor('offer-closed accepted', find(farClient, 'offer-closed'))).toEqual({
        id: secondOffer.id,
        response: 'accepted',
      });
      const acceptedBooking = await waitFor(
        'booking accepted',
        find(farClient, 'booking', (b) => b.status === 'accepted'),
      );
      expect(acceptedBooking).toMatchObject({ id: bookingId, vehicleId: far.vehicleId, pickup: PICKUP });
      // Its view of the booking holds its own offer only, not who else was asked.
      expect((acceptedBooking.offers as { vehicleId: string }[]).map((o) => o.vehicleId)).toEqual([far.vehicleId]);

      // The taxi reaches the pickup, then the meter goes hired: arrived, then on board.
      await report(sys, far, 10);
      await waitFor(
        'booking arrived',
        find(farClient, 'booking', (b) => b.status === 'arrived'),
      );
      await report(sys, far, 20, 'hired');
      await waitFor(
        'booking on board',
        find(farClient, 'booking', (b) => b.status === 'on-board'),
      );
      expect(nearClient.events.some((e) => e.event === 'booking')).toBe(false);

      // A page that connects now starts from the truth: no open offer, the booking it serves.
      const late = await connect(sys.url, { token: far.token });
      try {
        const synced = await waitFor('synced on connect', find(late, 'synced'));
        expect(synced).toMatchObject({ offerIds: [], bookingId });
        expect(late.events.map((e) => e.event)).toEqual(['hello', 'booking', 'synced']);
        expect(late.events[1]?.payload).toMatchObject({ id: bookingId, status: 'on-board' });
      } finally {
        late.close();
      }
    } finally {
      nearClient.close();
      farClient.close();
    }
  }, 60_000);

  it('admits device tokens and the admin naming a vehicle; refuses users and everyone else', async () => {
    const taxi = await registerVehicle(sys);
    const dispatcher = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Radio Central',
      role: 'dispatcher',
      operatorIds: [taxi.operatorId],
    });
    expect(dispatcher.status).toBe(201);
    expect(await refusal(sys.url, { token: dispatcher.body.token })).toBe('FORBIDDEN');
    expect(await refusal(sys.url, { token: 'not-a-token' })).toBe('INVALID_TOKEN');
    expect(await refusal(sys.url, {})).toBe('INVALID_TOKEN');
    expect(await refusal(sys.url, { token: sys.adminToken })).toBe('VEHICLE_ID_REQUIRED');
    expect(await refusal(sys.url, { token: sys.adminToken, vehicleId: taxi.vehicleId })).toBe('connected');
    expect(await refusal(sys.url, { token: taxi.token })).toBe('connected');
  });

  it('a device moved to another vehicle starts over with that vehicle (hello, snapshot)', async () => {
    const from = await registerVehicle(sys);
    const to = await registerVehicle(sys, { operatorId: from.operatorId });
    const client = await connect(sys.url, { token: from.token });
    try {
      await waitFor('first synced', find(client, 'synced'));
      const moved = await api(sys, 'PATCH', `/v1/devices/${from.deviceId}`, { vehicleId: to.vehicleId });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      const hello = await waitFor(
        'hello for the new vehicle',
        find(client, 'hello', (h) => h.vehicleId === to.vehicleId),
      );
      expect(hello).toMatchObject({ deviceId: from.deviceId, identifier: from.identifier });
      await waitFor(
        'synced for the new vehicle',
        find(client, 'synced', (h) => h.vehicleId === to.vehicleId),
      );
      expect(client.socket.connected).toBe(true);
    } finally {
      client.close();
    }
  });

  it('a retired device is disconnected at once; the vehicle’s other device stays', async () => {
    const taxi = await registerVehicle(sys);
    const second = await api<{ id: string; token: string }>(sys, 'POST', '/v1/devices', {
      vehicleId: taxi.vehicleId,
      identifier: `PHONE-${taxi.identifier}`,
    });
    expect(second.status).toBe(201);
    const doomed = await connect(sys.url, { token: taxi.token });
    const kept = await connect(sys.url, { token: second.body.token });
    try {
      await waitFor('hello', find(doomed, 'hello'));
      expect((await api(sys, 'DELETE', `/v1/devices/${taxi.deviceId}`)).status).toBe(200);
      // DEVICE_CACHE_TTL_MS is a minute here: within this wait only the bus's device-changed can do it.
      expect(await waitFor('disconnect', doomed.disconnectReason, 5_000)).toBe('io server disconnect');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(kept.socket.connected).toBe(true);
      expect(await refusal(sys.url, { token: taxi.token })).toBe('INVALID_TOKEN');
    } finally {
      doomed.close();
      kept.close();
    }
  });
});
