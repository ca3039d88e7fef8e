/**
 * The dispatch scenario: a cooperative's radio desks taking bookings (API.md "Radio-taxi
 * dispatch") while its taxis stand free around the Esplanada. Each desk loops: `POST /v1/bookings`
 * in `auto` mode, waits for the offer to a taxi (`GET /v1/bookings/:id`), the taxi accepts with
 * its own device token (`POST /v1/offers/:id/accept`), and the desk cancels the booking so the
 * taxi is free for the next one. Taxis stand at their homes (`parkedSample`), each reporting with
 * its own token first (the warm-up) and every 30 s meanwhile, so none goes offline.
 *
 * Correct: the booking is created `pending` for the operator, an open offer to one of the
 * cooperative's taxis follows, the acceptance answers `accepted` and the booking is `accepted`
 * by that taxi, and the cancellation answers `cancelled`.
 *
 * Plain TypeScript with no imports but its siblings: k6 and Node both load this file.
 */
import { ESPLANADA, type FleetPlan } from './fleet.ts';
import type { MetricSpec } from './metrics.ts';

export const DISPATCH_METRICS = [
  {
    name: 'dispatch_booking_duration',
    kind: 'trend',
    description: 'POST /v1/bookings, sent to answered 201 (ms)',
    thresholds: ['p(95)<500', 'p(99)<1000'],
  },
  {
    name: 'dispatch_time_to_offer',
    kind: 'trend',
    description: 'booking answered to its first open offer seen by the desk (ms; polled every 100 ms)',
    // The process that takes a booking runs an offer round at once (api/src/dispatch/README.md):
    // the offer is the best-arrival search, not a poll, so two seconds is a generous bound.
    thresholds: ['p(95)<2000'],
  },
  {
    name: 'dispatch_accept_duration',
    kind: 'trend',
    description: 'POST /v1/offers/:id/accept by the taxi, sent to answered (ms)',
    thresholds: ['p(95)<500'],
  },
  {
    name: 'dispatch_errors',
    kind: 'rate',
    description: 'a booking whose round (book, offer, accept, cancel) went wrong anywhere',
    thresholds: ['rate<0.01'],
  },
  {
    name: 'dispatch_bookings_accepted',
    kind: 'counter',
    description: 'bookings accepted by a taxi',
    thresholds: ['count>0'],
  },
] as const satisfies readonly MetricSpec[];

/** How long a desk waits for the offer before the round counts as an error (ms). */
export const OFFER_WAIT_MS = 10_000;
/** How often a desk reads its booking while it waits (ms). */
export const OFFER_POLL_MS = 100;
/** Taxis report this often (ms): well within the default `OFFLINE_AFTER_S` of 120 s. */
export const TAXI_REPORT_MS = 30_000;

/** `POST /v1/bookings`: a pickup within about a kilometre of the Esplanada, offered automatically. */
export function bookingBody(plan: FleetPlan, seq: number, random: () => number) {
  return {
    operatorId: plan.operatorId,
    pickup: {
      lat: ESPLANADA.lat + (random() - 0.5) * 0.018,
      lon: ESPLANADA.lon + (random() - 0.5) * 0.018,
      address: `Load booking ${seq}`,
    },
    passengers: 1,
    mode: 'auto',
  };
}

export const cancelBody = { reason: 'load test: the round is over' };

/** The part of a booking (`Booking` of @vigia/core) the scenario reads. */
export interface BookingSeen {
  id: string;
  operatorId: string;
  status: string;
  vehicleId: string | null;
  offers: { id: string; vehicleId: string; response: string | null }[];
}

/** Correct answer to `POST /v1/bookings`. */
export const bookingCreatedCorrect = (plan: FleetPlan, status: number, b: BookingSeen | undefined): b is BookingSeen =>
  status === 201 && b !== undefined && b.operatorId === plan.operatorId && b.status === 'pending';

/** The open offer of a booking read while waiting, if it has one yet (to a taxi of the fleet). */
export function openOfferOf(plan: FleetPlan, b: BookingSeen): { id: string; vehicleId: string } | undefined {
  const offer = b.offers.find((o) => o.response === null);
  if (!offer) return undefined;
  return plan.vehicles.some((v) => v.vehicleId === offer.vehicleId) ? offer : undefined;
}

/** Correct answer to the taxi's `POST /v1/offers/:id/accept`. */
export const acceptCorrect = (status: number, answer: { response: string | null } | undefined) =>
  status === 200 && answer?.response === 'accepted';

/** Correct booking after the acceptance: `accepted`, by the taxi offered. */
export const acceptedBookingCorrect = (b: BookingSeen | undefined, vehicleId: string) =>
  b !== undefined && b.status === 'accepted' && b.vehicleId === vehicleId;

/** Correct answer to `POST /v1/bookings/:id/cancel`. */
export const cancelCorrect = (status: number, b: BookingSeen | undefined) =>
  status === 200 && b?.status === 'cancelled';
