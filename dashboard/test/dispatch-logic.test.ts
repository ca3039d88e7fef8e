import { describe, expect, it } from 'vitest';
import type { FleetUpdate } from '../src/api-types.js';
import { standCentre } from '../src/dispatch-api.js';
import { candidatesFor } from '../src/dispatch-booking-detail.js';
import { type BookingChange, BookingStore } from '../src/dispatch-bookings.js';
import {
  type Booking,
  clockDuration,
  openOffer,
  remainingS,
  toBooking,
  toBookingCandidates,
} from '../src/dispatch-types.js';
import { FleetStore } from '../src/fleet-store.js';

/** The dispatch console's logic that needs no page: the booking store's ordering of versions, the guard, timers, candidates. */

const pickup = { lat: -15.7939, lon: -47.8828, address: 'Rodoviária' };

function booking(status: Booking['status'], offers: Booking['offers'] = [], extra: Partial<Booking> = {}): Booking {
  return {
    id: 'bk_1',
    operatorId: 'coop',
    pickup,
    status,
    vehicleId: null,
    offers,
    createdAt: '2026-11-30T12:00:00.000Z',
    mode: 'auto',
    ...extra,
  };
}

const offer = (
  id: string,
  response: Booking['offers'][number]['response'],
  expiresAt = '2026-11-30T12:00:20.000Z',
) => ({
  id,
  vehicleId: `veh-${id}`,
  offeredAt: '2026-11-30T12:00:00.000Z',
  expiresAt,
  response,
  etaS: 120,
});

describe('BookingStore', () => {
  it('keeps the version further on whatever order versions arrive in', () => {
    const store = new BookingStore();
    const changes: BookingChange[] = [];
    store.subscribe((c) => changes.push(...c));
    const offered = booking('offered', [offer('a', null)]);
    // The first offer expired with nobody next: back to pending, but further on than `offered`.
    const pendingAgain = booking('pending', [offer('a', 'expired')]);
    const accepted = booking('accepted', [offer('a', 'expired'), offer('b', 'accepted')], { vehicleId: 'veh-b' });
    store.apply(offered, true);
    store.apply(pendingAgain, true);
    expect(store.get('bk_1')?.status).toBe('pending');
    // A late answer to this desk's own request, older than the push already applied.
    store.apply(offered, false);
    expect(store.get('bk_1')?.status).toBe('pending');
    store.apply(accepted, true);
    store.apply(pendingAgain, true);
    expect(store.get('bk_1')?.status).toBe('accepted');
    expect(changes.map((c) => [c.previous, c.booking.status])).toEqual([
      [null, 'offered'],
      ['offered', 'pending'],
      ['pending', 'accepted'],
    ]);
  });

  it('never reopens a closed booking', () => {
    const store = new BookingStore();
    store.apply(booking('cancelled', [offer('a', 'withdrawn')]), true);
    store.apply(booking('offered', [offer('a', null), offer('b', null)]), true);
    expect(store.get('bk_1')?.status).toBe('cancelled');
  });

  it('keeps the latest 50 closed bookings and every open one', () => {
    const store = new BookingStore();
    const many = Array.from({ length: 80 }, (_, i) =>
      booking(i < 70 ? 'completed' : 'pending', [], {
        id: `bk_${String(i).padStart(3, '0')}`,
        createdAt: new Date(Date.UTC(2026, 10, 30, 12, i)).toISOString(),
      }),
    );
    store.replaceAll(many);
    const kept = store.all();
    expect(kept.filter((b) => b.status === 'pending')).toHaveLength(10);
    expect(kept.filter((b) => b.status === 'completed')).toHaveLength(50);
    expect(store.get('bk_019')).toBeUndefined();
    expect(store.get('bk_020')).toBeDefined();
  });
});

describe('booking guard and timers', () => {
  it('takes a booking as the API sends it and refuses one it cannot show', () => {
    const wire = {
      ...booking('offered', [offer('a', null)]),
      pack: 'df-taxi',
      dropoff: null,
      standId: null,
      updatedAt: '2026-11-30T12:00:01.000Z',
      offers: [{ ...offer('a', null), basis: 'eta', respondedAt: null }],
    };
    expect(toBooking(wire)).toMatchObject({ id: 'bk_1', status: 'offered', offers: [{ id: 'a', etaS: 120 }] });
    expect(toBooking({ ...wire, status: 'lost' })).toBeNull();
    expect(toBooking({ ...wire, pickup: { lat: 'x', lon: 1 } })).toBeNull();
    expect(toBooking(null)).toBeNull();
  });

  it('counts the open offer down on the given clock, never below zero', () => {
    const open = openOffer(booking('offered', [offer('a', 'declined'), offer('b', null)]));
    expect(open?.id).toBe('b');
    if (!open) throw new Error('no open offer');
    expect(remainingS(open, Date.parse('2026-11-30T12:00:03.200Z'))).toBe(17);
    expect(remainingS(open, Date.parse('2026-11-30T12:00:25.000Z'))).toBe(0);
    expect(openOffer(booking('pending', [offer('a', 'expired')]))).toBeNull();
    expect([clockDuration(7), clockDuration(65), clockDuration(3725), clockDuration(-3)]).toEqual([
      '0:07',
      '1:05',
      '1:02:05',
      '0:00',
    ]);
  });

  it('centres a polygon stand on its vertices, its closing vertex counted once', () => {
    expect(
      standCentre({
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [2, 0],
              [2, 2],
              [0, 2],
              [0, 0],
            ],
          ],
        },
      }),
    ).toEqual({ lat: 1, lon: 1 });
  });
});

describe('candidatesFor', () => {
  it('lists the free online taxis of the operator and those it declared, nearest first, with offered ETAs', () => {
    const now = Date.parse('2026-11-30T12:00:30.000Z');
    const fleet = new FleetStore({ offlineAfterS: 120, now: () => now });
    const update = (vehicleId: string, operatorId: string, southM: number, extra: Partial<FleetUpdate> = {}) => ({
      vehicleId,
      plate: vehicleId.toUpperCase(),
      operatorId,
      pack: 'df-taxi' as const,
      serviceType: 'taxi' as const,
      ts: new Date(now - 5000).toISOString(),
      lat: pickup.lat - southM / 110_600,
      lon: pickup.lon,
      speedKmh: 0,
      headingDeg: null,
      meterState: 'free' as const,
      tariff: null,
      passengers: null,
      doorOpen: null,
      ignition: null,
      ...extra,
    });
    fleet.applyUpdates([
      update('far', 'coop', 2000),
      update('near', 'coop', 200),
      update('hired', 'coop', 100, { meterState: 'hired', tariff: 1 }),
      update('offline', 'coop', 50, { ts: new Date(now - 600_000).toISOString() }),
      update('other', 'rival', 10),
      update('declared', 'rival', 900),
    ]);
    const list = candidatesFor(booking('offered', [{ ...offer('a', null), vehicleId: 'near', etaS: 95 }]), fleet, {
      id: 'coop',
      name: 'Cooperativa',
      declaredVehicleIds: ['declared'],
    });
    expect(list.map((c) => [c.id, Math.round(c.distanceM / 100) * 100, c.etaS])).toEqual([
      ['near', 200, 95],
      ['declared', 900, null],
      ['far', 2000, null],
    ]);
  });
});

describe('toBookingCandidates', () => {
  it('keeps the server order and drops items it cannot place on the map', () => {
    const item = (vehicleId: string, extra: Record<string, unknown> = {}) => ({
      vehicleId,
      plate: vehicleId.toUpperCase(),
      etaS: 120,
      distanceM: 800,
      basis: 'eta',
      lat: -15.79,
      lon: -47.88,
      ...extra,
    });
    const answer = toBookingCandidates({
      items: [item('queued', { basis: 'stand-queue', etaS: 300 }), item('nowhere', { lat: null }), item('near')],
      estimator: 'history',
      stand: null,
    });
    expect(answer?.items.map((c) => [c.vehicleId, c.basis, c.etaS])).toEqual([
      ['queued', 'stand-queue', 300],
      ['near', 'eta', 120],
    ]);
    expect(answer?.estimator).toBe('history');
    expect(toBookingCandidates({ error: { code: 'X', message: 'x' } })).toBeNull();
    expect(toBookingCandidates({ items: [], estimator: null })).toEqual({ items: [], estimator: null });
  });
});
