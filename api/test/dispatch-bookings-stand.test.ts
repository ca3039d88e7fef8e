import type { Booking } from '@vigia/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedStand, must, openOffer, report, since, type Taxi, taxi } from './dispatch-bookings-support.js';
import { api, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * Art. 37 m (DF): a booking picked up at a stand goes first to that stand's legal queue, first in
 * line first, however near another taxi is; then by arrival. The queue is the one the live rules
 * keep from the taxis' telemetry (stand_queues, GET /v1/stands/:id/queue), not one the test writes.
 */

const STAND = { lat: -15.7939, lon: -47.8828 };
const north = (metres: number) => ({ lat: STAND.lat + metres / 111_195, lon: STAND.lon });

describe('a booking at a stand is offered to its queue first (PostgreSQL)', () => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 7);
  const coop = `coop-${run}`;
  let first: Taxi;
  let second: Taxi;
  let nearer: Taxi;
  let standId: string;

  /** Samples every 5 s at the stand, meter free, from `fromS` seconds after `t0` until now. */
  const waiting = (t: Taxi, t0: number, fromS: number, metresNorth: number) => {
    const out: object[] = [];
    for (let s = fromS; t0 + s * 1000 <= Date.now(); s += 5) {
      out.push({
        deviceId: t.identifier,
        ts: new Date(t0 + s * 1000).toISOString(),
        ...north(metresNorth),
        speedKmh: 0,
        passengers: 0,
        meter: { state: 'free' },
      });
    }
    return out;
  };

  beforeAll(async () => {
    sys = await startTestSystem('postgres', { DISPATCH_POLL_INTERVAL_MS: '100' });
    await must(sys, 'POST', '/v1/operators', {
      id: coop,
      name: 'Cooperativa do Conjunto',
      pack: 'df-taxi',
      kind: 'cooperative',
      validFrom: since(),
    });
    first = await taxi(sys, 'df-taxi', coop);
    second = await taxi(sys, 'df-taxi', coop);
    nearer = await taxi(sys, 'df-taxi', coop);
    const stand = await fixedStand(sys, 'Ponto fixo Conjunto Nacional', STAND, [first.vehicleId, second.vehicleId]);
    standId = stand.id;
    // The first holder waits from four minutes ago, the second from three; both until now.
    const t0 = Date.now() - 240_000;
    for (const [t, fromS, at] of [
      [first, 0, 0],
      [second, 60, 3],
    ] as const) {
      const res = await api(sys, 'POST', '/v1/telemetry', waiting(t, t0, fromS, at), t.token);
      expect(res.status).toBe(200);
    }
    await waitFor('the stand queue', async () => {
      const q = await api<{ items: { vehicleId: string }[] }>(sys, 'GET', `/v1/stands/${standId}/queue`);
      return q.body.items.length === 2 ? q.body.items : undefined;
    });
    // Not at the stand (55 m from its centre, radius 30 m), but 10 m from the pickup.
    await report(sys, nearer, north(55));
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('offers the head of the queue, then the next in line, then the nearest taxi', async () => {
    const queue = await api<{ items: { vehicleId: string }[] }>(sys, 'GET', `/v1/stands/${standId}/queue`);
    expect(queue.body.items.map((i) => i.vehicleId)).toEqual([first.vehicleId, second.vehicleId]);
    // Picked up 45 m north of the stand's centre: outside it, within DISPATCH_STAND_RADIUS_M of it.
    const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: north(45) });
    const o1 = await openOffer(sys, b.id, 1);
    expect([o1.vehicleId, o1.basis]).toEqual([first.vehicleId, 'stand-queue']);
    expect((await api(sys, 'POST', `/v1/offers/${o1.id}/decline`, undefined, first.token)).status).toBe(200);
    const o2 = await openOffer(sys, b.id, 2);
    expect([o2.vehicleId, o2.basis]).toEqual([second.vehicleId, 'stand-queue']);
    expect((await api(sys, 'POST', `/v1/offers/${o2.id}/decline`, undefined, second.token)).status).toBe(200);
    const o3 = await openOffer(sys, b.id, 3);
    expect([o3.vehicleId, o3.basis]).toEqual([nearer.vehicleId, 'eta']);
    const booked = await api<Booking>(sys, 'GET', `/v1/bookings/${b.id}`);
    expect(booked.body.standId).toBe(standId);
  });
});
