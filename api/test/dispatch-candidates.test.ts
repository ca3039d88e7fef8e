import type { Booking } from '@vigia/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BSB,
  type ErrorBody,
  fixedStand,
  must,
  north,
  openOffer,
  report,
  since,
  type Taxi,
  taxi,
  twoCooperatives,
} from './dispatch-bookings-support.js';
import { api, startTestSystem, type Target, type TestSystem, waitFor } from './support.js';

/**
 * `GET /v1/bookings/:id/candidates` (api/src/dispatch/README.md "Candidates"): the taxis a booking
 * may be assigned to, in the order the automatic offers then go to them, with the ranking's
 * estimate; never a taxi the assignment would refuse. On PGlite and PostgreSQL; on PostgreSQL
 * also a pickup at a stand, whose queue (formed by the live rules from telemetry) comes first.
 */

interface Candidates {
  items: {
    vehicleId: string;
    plate: string;
    etaS: number;
    distanceM: number;
    basis: string;
    lat: number;
    lon: number;
  }[];
  estimator: string | null;
  stand: { id: string; name: string } | null;
}

for (const target of ['pglite', 'postgres'] as Target[]) {
  describe(`booking candidates (${target})`, () => {
    let sys: TestSystem;
    const run = Math.random().toString(36).slice(2, 7);
    const coop = `coop-${run}`;
    const other = `other-${run}`;
    let dispatcher: string;
    let otherDispatcher: string;
    let regulator: string;
    /** Free taxis of the cooperative, 300, 600 and 1 200 m from the pickup. */
    const free: Taxi[] = [];
    /** Nearer than all of them, each with one reason not to be assigned. */
    const ineligible = {} as Record<'hired' | 'suspended' | 'foreign', Taxi>;

    const candidates = async (id: string, query = '', token = sys.adminToken) =>
      api<Candidates>(sys, 'GET', `/v1/bookings/${id}/candidates${query}`, undefined, token);

    beforeAll(async () => {
      sys = await startTestSystem(target, { DISPATCH_OFFER_TIMEOUT_S: '60', DISPATCH_POLL_INTERVAL_MS: '100' });
      ({ dispatcher, otherDispatcher, regulator } = await twoCooperatives(sys, run, coop, other));
      for (const metres of [300, 600, 1200]) {
        const t = await taxi(sys, 'df-taxi', coop);
        await report(sys, t, north(BSB, metres));
        free.push(t);
      }
      ineligible.hired = await taxi(sys, 'df-taxi', coop);
      ineligible.suspended = await taxi(sys, 'df-taxi', coop, { status: 'suspended' });
      ineligible.foreign = await taxi(sys, 'df-taxi', other);
      await report(sys, ineligible.hired, north(BSB, 50), { meter: 'hired' });
      await report(sys, ineligible.suspended, north(BSB, 60));
      await report(sys, ineligible.foreign, north(BSB, 70));
    });
    afterAll(async () => {
      await sys?.stop();
    });

    it('lists the free taxis of the operator by estimated arrival, never an ineligible one', async () => {
      const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: BSB, mode: 'manual' });
      const res = await candidates(b.id, '', dispatcher);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { items, estimator, stand } = res.body;
      expect(items.map((c) => c.vehicleId)).toEqual(free.map((t) => t.vehicleId));
      expect(items.map((c) => c.basis)).toEqual(['eta', 'eta', 'eta']);
      expect(items.map((c) => Math.round(c.distanceM / 100) * 100)).toEqual([300, 600, 1200]);
      // The ranking's own estimate: whole seconds, growing with the distance.
      for (const c of items) expect(Number.isInteger(c.etaS) && c.etaS > 0).toBe(true);
      expect(items[0]?.etaS).toBeLessThan(items[1]?.etaS ?? 0);
      expect(items[1]?.etaS).toBeLessThan(items[2]?.etaS ?? 0);
      const first = await api<{ plate: string }>(sys, 'GET', `/v1/vehicles/${free[0]?.vehicleId}`);
      expect(items[0]).toMatchObject({ plate: first.body.plate, ...north(BSB, 300) });
      expect(estimator).toBe('history');
      expect(stand).toBeNull();

      expect((await candidates(b.id, '?limit=2')).body.items.map((c) => c.vehicleId)).toEqual(
        free.slice(0, 2).map((t) => t.vehicleId),
      );
      const tooMany = await api<ErrorBody>(sys, 'GET', `/v1/bookings/${b.id}/candidates?limit=51`);
      expect(tooMany.status).toBe(400);

      // Whoever reads the booking: a regulator too; a dispatcher of another operator gets 404, as for no booking.
      expect((await candidates(b.id, '', regulator)).status).toBe(200);
      const foreign = await api<ErrorBody>(sys, 'GET', `/v1/bookings/${b.id}/candidates`, undefined, otherDispatcher);
      expect([foreign.status, foreign.body.error.code]).toEqual([404, 'BOOKING_NOT_FOUND']);
      const missing = await api<ErrorBody>(sys, 'GET', '/v1/bookings/bk_nonexistent/candidates');
      expect([missing.status, missing.body.error.code]).toEqual([404, 'BOOKING_NOT_FOUND']);

      // Assigned: closed to assignment, so nobody is listed.
      await must(sys, 'POST', `/v1/bookings/${b.id}/assign`, { vehicleId: free[2]?.vehicleId });
      expect((await candidates(b.id)).body).toEqual({ items: [], estimator: null, stand: null });
      await must(sys, 'POST', `/v1/bookings/${b.id}/cancel`, {});
    });

    it('ranks them in the order the automatic offers then go to them', async () => {
      const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: north(BSB, -20) });
      const listed = (await candidates(b.id)).body.items.map((c) => c.vehicleId);
      expect(listed).toHaveLength(3);
      for (const [n, vehicleId] of listed.entries()) {
        const offer = await openOffer(sys, b.id, n + 1);
        expect(offer.vehicleId, `offer ${n + 1}`).toBe(vehicleId);
        const t = free.find((f) => f.vehicleId === vehicleId);
        expect((await api(sys, 'POST', `/v1/offers/${offer.id}/decline`, undefined, t?.token)).status).toBe(200);
      }
      // A taxi that declined may still be assigned by the dispatcher: still listed, in its place.
      expect((await candidates(b.id)).body.items.map((c) => c.vehicleId)).toEqual(listed);
      await must(sys, 'POST', `/v1/bookings/${b.id}/cancel`, {});
      expect((await candidates(b.id)).body.items).toEqual([]);
    });

    it.skipIf(target !== 'postgres')('lists the head of the pickup stand’s queue first', async () => {
      // Art. 37 m (DF), as in dispatch-bookings-stand.test.ts: the queue the live rules form from telemetry.
      const desk = `desk-${run}`;
      await must(sys, 'POST', '/v1/operators', {
        id: desk,
        name: 'Cooperativa do Conjunto',
        pack: 'df-taxi',
        kind: 'cooperative',
        validFrom: since(),
      });
      const at = north(BSB, 5000);
      const queued = await taxi(sys, 'df-taxi', desk);
      const nearer = await taxi(sys, 'df-taxi', desk);
      const stand = await fixedStand(sys, 'Ponto fixo do teste', at, [queued.vehicleId]);
      const t0 = Date.now() - 120_000;
      const samples: object[] = [];
      for (let ms = t0; ms <= Date.now(); ms += 5000) {
        samples.push({
          deviceId: queued.identifier,
          ts: new Date(ms).toISOString(),
          ...at,
          speedKmh: 0,
          passengers: 0,
          meter: { state: 'free' },
        });
      }
      expect((await api(sys, 'POST', '/v1/telemetry', samples, queued.token)).status).toBe(200);
      await waitFor('the stand queue', async () => {
        const q = await api<{ items: unknown[] }>(sys, 'GET', `/v1/stands/${stand.id}/queue`);
        return q.body.items.length === 1 ? true : undefined;
      });
      // 55 m from the stand's centre (outside its 30 m), 10 m from the pickup.
      await report(sys, nearer, north(at, 55));
      const b = await must<Booking>(sys, 'POST', '/v1/bookings', {
        operatorId: desk,
        pickup: north(at, 45),
        mode: 'manual',
      });
      const { body } = await candidates(b.id);
      expect(body.items.map((c) => [c.vehicleId, c.basis])).toEqual([
        [queued.vehicleId, 'stand-queue'],
        [nearer.vehicleId, 'eta'],
      ]);
      expect(body.stand?.id).toBe(stand.id);
    });
  });
}
