import { type Booking, type BusEvent, bookingOfferSchema, bookingSchema } from '@vigia/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BSB,
  booking,
  bookingWhen,
  type ErrorBody,
  must,
  north,
  openOffer,
  report,
  type Taxi,
  taxi,
  twoCooperatives,
} from './dispatch-bookings-support.js';
import { fleetUpdate } from './fleet-support.js';
import { api, startTestSystem, type Target, type TestSystem, waitFor } from './support.js';

/**
 * The dispatch contract end to end over HTTP (API.md "Radio-taxi dispatch"): a booking of a DF
 * cooperative is offered to its taxis one at a time, nearer first, passes on after a decline and
 * after an expiry, is accepted by the taxi's own device, and then follows the taxi's telemetry
 * to arrived, on board and completed. Every change is on the bus. On PGlite and PostgreSQL.
 */

const OFFER_TIMEOUT_S = 2;
/** Long enough for the main flow to be accepted well before, short enough to watch a booking expire. */
const BOOKING_TIMEOUT_S = 8;

for (const target of ['pglite', 'postgres'] as Target[]) {
  describe(`bookings end to end (${target})`, () => {
    let sys: TestSystem;
    const run = Math.random().toString(36).slice(2, 7);
    const coop = `coop-${run}`;
    const other = `other-${run}`;
    let dispatcher: string;
    let otherDispatcher: string;
    let regulator: string;
    const t: Record<'near' | 'middle' | 'far', Taxi> = {} as Record<'near' | 'middle' | 'far', Taxi>;
    const messages: Booking[] = [];

    beforeAll(async () => {
      sys = await startTestSystem(target, {
        DISPATCH_OFFER_TIMEOUT_S: String(OFFER_TIMEOUT_S),
        DISPATCH_BOOKING_TIMEOUT_S: String(BOOKING_TIMEOUT_S),
        DISPATCH_POLL_INTERVAL_MS: '100',
      });
      sys.bus.subscribe((m: BusEvent) => {
        if (m.type === 'booking') messages.push(m.booking);
      });
      ({ dispatcher, otherDispatcher, regulator } = await twoCooperatives(sys, run, coop, other));
      t.near = await taxi(sys, 'df-taxi', coop);
      t.middle = await taxi(sys, 'df-taxi', coop);
      t.far = await taxi(sys, 'df-taxi', coop);
    });
    afterAll(async () => {
      await sys?.stop();
    });

    it('takes a booking (201, pending) and lists it to its dispatcher, not to another', async () => {
      const res = await api<Booking>(
        sys,
        'POST',
        '/v1/bookings',
        { operatorId: coop, pickup: { ...BSB, address: 'Esplanada dos Ministérios' }, mode: 'manual', passengers: 2 },
        dispatcher,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^bk_[A-Za-z0-9_-]{22}$/),
        operatorId: coop,
        pack: 'df-taxi',
        mode: 'manual',
        status: 'pending',
        pickup: { ...BSB, address: 'Esplanada dos Ministérios' },
        passengers: 2,
        vehicleId: null,
        offers: [],
      });
      const id = res.body.id;
      expect((await booking(sys, id, dispatcher)).id).toBe(id);
      expect((await booking(sys, id, regulator)).id).toBe(id);
      const hidden = await api<ErrorBody>(sys, 'GET', `/v1/bookings/${id}`, undefined, otherDispatcher);
      expect([hidden.status, hidden.body.error.code]).toEqual([404, 'BOOKING_NOT_FOUND']);
      const mine = await api<{ items: Booking[]; next: string | null }>(
        sys,
        'GET',
        `/v1/bookings?operatorId=${coop}&status=pending`,
        undefined,
        dispatcher,
      );
      expect(mine.body.items.map((b) => b.id)).toContain(id);
      const theirs = await api<{ items: Booking[] }>(sys, 'GET', '/v1/bookings', undefined, otherDispatcher);
      expect(theirs.body.items).toEqual([]);
      // Another cooperative's booking cannot be taken by this dispatcher.
      const foreign = await api<ErrorBody>(sys, 'POST', '/v1/bookings', { operatorId: other, pickup: BSB }, dispatcher);
      expect([foreign.status, foreign.body.error.code]).toEqual([403, 'FORBIDDEN']);
      await waitFor('the pending booking on the bus', () =>
        messages.some((m) => m.id === id && m.status === 'pending'),
      );
      const cancelled = await api<Booking>(sys, 'POST', `/v1/bookings/${id}/cancel`, { reason: 'teste' }, dispatcher);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelReason: 'teste' });
    });

    it('pages the list newest first with { items, next }', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: other, pickup: BSB, mode: 'manual' });
        ids.push(b.id);
      }
      const first = await api<{ items: Booking[]; next: string }>(
        sys,
        'GET',
        `/v1/bookings?operatorId=${other}&limit=2`,
      );
      expect(first.body.items.map((b) => b.id)).toEqual([ids[2], ids[1]]);
      const second = await api<{ items: Booking[]; next: string | null }>(
        sys,
        'GET',
        `/v1/bookings?operatorId=${other}&limit=2&cursor=${first.body.next}`,
      );
      expect(second.body.items.map((b) => b.id)).toEqual([ids[0]]);
      expect(second.body.next).toBeNull();
      for (const id of ids) await must(sys, 'POST', `/v1/bookings/${id}/cancel`);
    });

    it('offers nearer first, passes on after a decline and an expiry, and follows the accepted taxi to completion', async () => {
      await report(sys, t.near, north(BSB, 200));
      await report(sys, t.middle, north(BSB, 900));
      await report(sys, t.far, north(BSB, 2000));
      const created = await api<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: BSB }, dispatcher);
      expect(created.status).toBe(201);
      const id = created.body.id;

      // 1. The nearest taxi first; only its device sees the offer.
      const first = await openOffer(sys, id, 1);
      expect(first.vehicleId).toBe(t.near.vehicleId);
      expect(first.etaS).toBeGreaterThan(0);
      const seen = await api<{ items: { id: string; bookingId: string; pickup: unknown }[] }>(
        sys,
        'GET',
        '/v1/offers',
        undefined,
        t.near.token,
      );
      expect(seen.body.items).toEqual([expect.objectContaining({ id: first.id, bookingId: id, pickup: BSB })]);
      expect((await api<{ items: unknown[] }>(sys, 'GET', '/v1/offers', undefined, t.middle.token)).body.items).toEqual(
        [],
      );
      expect((await booking(sys, id)).status).toBe('offered');

      // 2. It declines: the next nearest is offered.
      const declined = await api(sys, 'POST', `/v1/offers/${first.id}/decline`, undefined, t.near.token);
      expect(declined.status, JSON.stringify(declined.body)).toBe(200);
      const second = await openOffer(sys, id, 2);
      expect(second.vehicleId).toBe(t.middle.vehicleId);

      // 3. Nobody answers: after offerTimeoutS it expires and passes to the third.
      const third = await openOffer(sys, id, 3, (OFFER_TIMEOUT_S + 5) * 1000);
      expect(third.vehicleId).toBe(t.far.vehicleId);
      const b3 = await booking(sys, id);
      expect(b3.offers.map((o) => [o.vehicleId, o.response])).toEqual([
        [t.near.vehicleId, 'declined'],
        [t.middle.vehicleId, 'expired'],
        [t.far.vehicleId, null],
      ]);
      // A closed offer cannot be answered any more.
      const late = await api<ErrorBody>(sys, 'POST', `/v1/offers/${second.id}/accept`, undefined, t.middle.token);
      expect([late.status, late.body.error.code]).toEqual([409, 'OFFER_CLOSED']);

      // 4. The far taxi accepts with its own device: a dispatch is recorded.
      const accepted = await api<{ response: string; bookingId: string }>(
        sys,
        'POST',
        `/v1/offers/${third.id}/accept`,
        undefined,
        t.far.token,
      );
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body).toMatchObject({ response: 'accepted', bookingId: id });
      const b4 = await booking(sys, id);
      expect(b4).toMatchObject({ status: 'accepted', vehicleId: t.far.vehicleId });
      const { rows } = await sys.db.query<{ vehicle_id: string; radio_operator_id: string }>(
        'SELECT vehicle_id, radio_operator_id FROM dispatches WHERE id = $1',
        [id],
      );
      expect(rows).toEqual([{ vehicle_id: t.far.vehicleId, radio_operator_id: coop }]);

      // 5. Telemetry moves it on: near the pickup, meter hired, meter free.
      await report(sys, t.far, north(BSB, 500));
      await report(sys, t.far, north(BSB, 30));
      await bookingWhen(sys, id, 'arrived', (b) => b.status === 'arrived');
      await report(sys, t.far, north(BSB, 10), { meter: 'hired' });
      await bookingWhen(sys, id, 'on board', (b) => b.status === 'on-board');
      // A "free" older than the hired sample just judged, as a second ingest process or positions
      // re-published after a Redis outage can bring late: it does not end the ride.
      await sys.bus.publish({
        type: 'fleet',
        updates: [
          fleetUpdate(t.far.vehicleId, north(BSB, 40), {
            operatorId: coop,
            ts: new Date(Date.now() - 60_000).toISOString(),
          }),
        ],
      });
      await sys.bookings?.progress.settled();
      expect((await booking(sys, id)).status).toBe('on-board');
      await report(sys, t.far, north(BSB, -3000), { meter: 'free' });
      const done = await bookingWhen(sys, id, 'completed', (b) => b.status === 'completed');
      expect(done.acceptedAt && done.arrivedAt && done.onBoardAt && done.completedAt).toBeTruthy();
      // What GET answers is exactly what the bus carries (core's bookingSchema), no field more or less.
      expect(() =>
        bookingSchema.extend({ offers: bookingOfferSchema.strict().array() }).strict().parse(done),
      ).not.toThrow();

      // Every step was published on the bus, in order.
      await waitFor('the completed booking on the bus', () =>
        messages.some((m) => m.id === id && m.status === 'completed'),
      );
      const statuses = messages.filter((m) => m.id === id).map((m) => m.status);
      expect(statuses.filter((s, i) => s !== statuses[i - 1])).toEqual([
        'pending',
        'offered',
        'accepted',
        'arrived',
        'on-board',
        'completed',
      ]);
    });

    it('withdraws the offer of a taxi that stops being free, and the open offer of a cancelled booking', async () => {
      await report(sys, t.near, north(BSB, 200));
      await report(sys, t.middle, north(BSB, 900));
      const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: coop, pickup: BSB });
      expect((await openOffer(sys, b.id, 1)).vehicleId).toBe(t.near.vehicleId);
      // It takes a passenger at the kerb: the offer is withdrawn and the booking passes on at once.
      await report(sys, t.near, north(BSB, 210), { meter: 'hired' });
      const next = await openOffer(sys, b.id, 2, (OFFER_TIMEOUT_S - 1) * 1000);
      expect(next.vehicleId).toBe(t.middle.vehicleId);
      expect((await booking(sys, b.id)).offers[0]?.response).toBe('withdrawn');
      // Cancelled while offered: the open offer is withdrawn, the taxi no longer sees it.
      const cancelled = await api<Booking>(sys, 'POST', `/v1/bookings/${b.id}/cancel`, undefined, dispatcher);
      expect(cancelled.body.status).toBe('cancelled');
      expect(cancelled.body.offers.map((o) => o.response)).toEqual(['withdrawn', 'withdrawn']);
      expect((await api<{ items: unknown[] }>(sys, 'GET', '/v1/offers', undefined, t.middle.token)).body.items).toEqual(
        [],
      );
      const again = await api<ErrorBody>(sys, 'POST', `/v1/bookings/${b.id}/cancel`, undefined, dispatcher);
      expect([again.status, again.body.error.code]).toEqual([409, 'BOOKING_CLOSED']);
      await report(sys, t.near, north(BSB, 200), { meter: 'free' });
    });

    it('keeps looking while nobody may take a booking, and expires it after DISPATCH_BOOKING_TIMEOUT_S', async () => {
      // The other cooperative has no taxis at all.
      const b = await must<Booking>(sys, 'POST', '/v1/bookings', { operatorId: other, pickup: BSB });
      expect(Date.parse(b.expiresAt) - Date.parse(b.createdAt)).toBe(BOOKING_TIMEOUT_S * 1000);
      const expired = await bookingWhen(
        sys,
        b.id,
        'expired',
        (x) => x.status === 'expired',
        (BOOKING_TIMEOUT_S + 5) * 1000,
      );
      expect(expired.offers).toEqual([]);
      expect(Date.parse(expired.expiredAt ?? '')).toBeGreaterThanOrEqual(Date.parse(b.expiresAt));
      await waitFor('the expired booking on the bus', () =>
        messages.some((m) => m.id === b.id && m.status === 'expired'),
      );
    });
  });
}
