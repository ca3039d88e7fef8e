import type { Booking, FleetUpdate, LiveViolation } from '@vigia/core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busBooking as booking, fleetUpdate } from './fleet-support.js';
import { api, registerVehicle, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * Socket.IO `/live`, event `booking`: each bus `{ type: 'booking' }` message goes to the admin and
 * to dispatchers whose operatorIds include the booking's operator, and to nobody else: not to
 * another cooperative's dispatcher, nor to the operator's own `operator` users, regulators or
 * enforcement (who see that operator's fleet and violations). A dispatcher whose scope changes
 * gets the new operator's bookings without reconnecting. And the fleet: a dispatcher of a Belém
 * radio operator sees the taxis it declared (other cooperatives' vehicles), only those, and no
 * longer once the declaration is withdrawn.
 */

const run = Math.random().toString(36).slice(2, 7);
const OP_A = `coop-a-${run}`;
const OP_B = `coop-b-${run}`;
const RADIO = `radio-${run}`;

interface Client {
  socket: Socket;
  bookings: Booking[];
  violations: LiveViolation[];
  fleet: FleetUpdate[];
}

/** A violation of each operator, pushed after the bookings: every socket receives one, in order. */
function marker(id: string, operatorId: string): LiveViolation {
  const now = new Date().toISOString();
  return {
    id,
    ruleId: 'BEL_UNAUTHORIZED_RADIO',
    pack: 'belem-taxi',
    legalBasis: ['Art. 42'],
    description: 'marcador',
    descriptionEn: 'marker',
    vehicleId: `veh-${id}`,
    plate: null,
    operatorId,
    driverId: null,
    startedAt: now,
    endedAt: null,
    detectedAt: now,
    lat: null,
    lon: null,
    place: null,
    confidence: 'confirmed',
    measured: {},
    penalty: {},
    recidivism: {},
    status: 'open',
    change: 'raised',
  };
}

describe('/live booking events: admin and the operator’s dispatchers only', () => {
  let sys: TestSystem;
  const sockets: Socket[] = [];
  const clients: Record<string, Client> = {};
  let dispatcherB = '';

  const connect = (token: string): Promise<Client> => {
    const socket = io(`${sys.url}/live`, { auth: { token }, transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    const client: Client = { socket, bookings: [], violations: [], fleet: [] };
    socket.on('fleet', (updates: FleetUpdate[]) => client.fleet.push(...updates));
    socket.on('booking', (b: Booking) => client.bookings.push(b));
    socket.on('violation', (v: LiveViolation) => client.violations.push(v));
    return new Promise((resolve, reject) => {
      socket.on('connect', () => resolve(client));
      socket.on('connect_error', reject);
    });
  };

  /** Publishes the bookings, then one marker violation per operator, and waits for the markers everywhere. */
  const publish = async (bookings: Booking[]) => {
    for (const b of bookings) await sys.bus.publish({ type: 'booking', booking: b });
    const markers = [marker(`mk-a-${bookings[0]?.id}`, OP_A), marker(`mk-b-${bookings[0]?.id}`, OP_B)];
    await sys.bus.publish({ type: 'violation', violations: markers });
    const ids = new Set(markers.map((m) => m.id));
    await waitFor('the markers on every socket', () =>
      Object.values(clients).every((c) => c.violations.some((v) => ids.has(v.id))),
    );
  };

  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const ops = await api(sys, 'POST', '/v1/operators', [
      { id: OP_A, name: 'Cooperativa A', pack: 'belem-taxi', kind: 'cooperative', validFrom: since },
      { id: OP_B, name: 'Cooperativa B', pack: 'belem-taxi', kind: 'cooperative', validFrom: since },
    ]);
    expect(ops.status, JSON.stringify(ops.body)).toBe(201);
    const user = async (name: string, role: string, operatorIds: string[] = []) => {
      const res = await api<{ id: string; token: string }>(sys, 'POST', '/v1/users', {
        name,
        role,
        ...(operatorIds.length ? { operatorIds } : {}),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const dispA = await user('despacho A', 'dispatcher', [OP_A]);
    const dispB = await user('despacho B', 'dispatcher', [OP_B]);
    dispatcherB = dispB.id;
    const operatorA = await user('operadora A', 'operator', [OP_A]);
    const regulator = await user('regulador', 'regulator');
    const enforcement = await user('fiscal', 'enforcement');
    clients.admin = await connect(sys.adminToken);
    clients.dispatcherA = await connect(dispA.token);
    clients.dispatcherB = await connect(dispB.token);
    clients.operatorA = await connect(operatorA.token);
    clients.regulator = await connect(regulator.token);
    clients.enforcement = await connect(enforcement.token);
  }, 60_000);

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await sys?.stop();
  });

  it('sends a booking of operator A to the admin and A’s dispatcher, as published', async () => {
    const a = booking(`bk_a1${run}`, OP_A);
    const b = booking(`bk_b1${run}`, OP_B);
    await publish([a, b]);
    expect(clients.admin?.bookings.map((x) => x.id)).toEqual([a.id, b.id]);
    expect(clients.admin?.bookings[0]).toEqual(a);
    expect(clients.dispatcherA?.bookings.map((x) => x.id)).toEqual([a.id]);
    expect(clients.dispatcherB?.bookings.map((x) => x.id)).toEqual([b.id]);
    for (const other of ['operatorA', 'regulator', 'enforcement']) {
      expect(clients[other]?.bookings, other).toEqual([]);
      // They are connected and served: they got the markers, just no booking.
      expect(clients[other]?.violations.length, other).toBeGreaterThan(0);
    }
  });

  it('moves a dispatcher whose operators change to the new operator’s bookings', async () => {
    const patched = await api(sys, 'PATCH', `/v1/users/${dispatcherB}`, { operatorIds: [OP_A, OP_B] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const probe = booking(`bk_a2${run}`, OP_A);
    // The re-check after the users change is asynchronous: publish until the new room is joined.
    await waitFor(
      'dispatcher B to receive operator A’s bookings',
      () => {
        void sys.bus.publish({ type: 'booking', booking: probe });
        return clients.dispatcherB?.bookings.some((x) => x.id === probe.id) ?? false;
      },
      10_000,
    );
    const later = booking(`bk_a3${run}`, OP_A);
    await publish([later]);
    expect(clients.dispatcherB?.bookings.at(-1)?.id).toBe(later.id);
    expect(clients.operatorA?.bookings).toEqual([]);
  });

  it('shows a radio operator’s dispatcher the taxis it declared, and only while declared', async () => {
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const declared = await registerVehicle(sys, { pack: 'belem-taxi', operatorId: OP_A });
    const undeclared = await registerVehicle(sys, { pack: 'belem-taxi', operatorId: OP_A });
    const radio = await api(sys, 'POST', '/v1/operators', {
      id: RADIO,
      name: 'Rádio Táxi',
      pack: 'belem-taxi',
      kind: 'radio-operator',
      declaredVehicleIds: [declared.vehicleId],
      validFrom: since,
    });
    expect(radio.status, JSON.stringify(radio.body)).toBe(201);
    const desk = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'central do rádio',
      role: 'dispatcher',
      operatorIds: [RADIO],
    });
    expect(desk.status, JSON.stringify(desk.body)).toBe(201);
    const radioDesk = await connect(desk.body.token);
    const update = (vehicleId: string): FleetUpdate =>
      fleetUpdate(
        vehicleId,
        { lat: -1.45, lon: -48.5 },
        { plate: vehicleId, operatorId: OP_A, pack: 'belem-taxi', ignition: null },
      );
    /** Publishes both taxis' positions and waits until operator A's dispatcher (who sees both) has them. */
    const move = async () => {
      const updates = [update(declared.vehicleId), update(undeclared.vehicleId)];
      await sys.bus.publish({ type: 'fleet', updates });
      await waitFor('the positions at operator A’s desk', () =>
        updates.every((u) => clients.dispatcherA?.fleet.some((f) => f.vehicleId === u.vehicleId && f.ts === u.ts)),
      );
      // The radio desk's emit is in the same push, to another socket of this process.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return updates;
    };
    const [seen] = await move();
    expect(radioDesk.fleet.map((f) => f.vehicleId)).toEqual([declared.vehicleId]);
    expect(radioDesk.fleet[0]).toEqual(seen);

    const withdrawn = await api(sys, 'PATCH', `/v1/operators/${RADIO}`, { declaredVehicleIds: [] });
    expect(withdrawn.status, JSON.stringify(withdrawn.body)).toBe(200);
    // The operators change re-checks every socket: move the taxis until the room is left.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const before = radioDesk.fleet.length;
      await move();
      if (radioDesk.fleet.length === before) break;
      if (Date.now() > deadline) throw new Error('the radio desk still receives the withdrawn taxi');
    }
  });
});
