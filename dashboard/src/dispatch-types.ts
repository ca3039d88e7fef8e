/**
 * Bookings as the API answers them (API.md "Radio-taxi dispatch"): `GET /v1/bookings/:id`, the
 * items of `GET /v1/bookings`, and the `/live` event `booking`. A push is checked before it is
 * trusted (`toBooking`), like violations are (violation-guards.ts). The driver page
 * (driver/driver-types.ts) reads the same statuses, offers and places from here.
 */

import { isRecord } from './violation-guards.js';

export const bookingStatuses = [
  'pending',
  'offered',
  'accepted',
  'arrived',
  'on-board',
  'completed',
  'cancelled',
  'expired',
] as const;
export type BookingStatus = (typeof bookingStatuses)[number];

/** Waiting for a taxi: the dispatcher may still assign or cancel. */
export const waitingStatuses: readonly BookingStatus[] = ['pending', 'offered'];
/** A taxi has it and is on its way or on the trip. */
export const activeStatuses: readonly BookingStatus[] = ['accepted', 'arrived', 'on-board'];
export const closedStatuses: readonly BookingStatus[] = ['completed', 'cancelled', 'expired'];

export const offerResponses = ['accepted', 'declined', 'expired', 'withdrawn'] as const;
export type OfferResponse = (typeof offerResponses)[number];

export interface BookingOffer {
  id: string;
  vehicleId: string;
  offeredAt: string;
  expiresAt: string;
  response: OfferResponse | null;
  etaS: number | null;
}

export interface Place {
  lat: number;
  lon: number;
  address?: string | null;
}

export interface Booking {
  id: string;
  operatorId: string;
  pickup: Place;
  dropoff?: Place | null;
  passengers?: number | null;
  notes?: string | null;
  mode?: 'auto' | 'manual';
  status: BookingStatus;
  vehicleId: string | null;
  offers: BookingOffer[];
  createdAt: string;
}

/** The body of `POST /v1/bookings`. */
export interface BookingRequest {
  operatorId: string;
  pickup: Place;
  passengers?: number;
  notes?: string;
  mode: 'auto' | 'manual';
}

/** `GET /v1/stands/:id/queue`. */
export interface StandQueueItem {
  vehicleId: string;
  plate: string | null;
  enteredAt: string;
  waitedS: number;
}

/** An item of `GET /v1/bookings/:id/candidates`: a taxi the booking may be assigned to, in offer order. */
export interface ServerCandidate {
  vehicleId: string;
  plate: string;
  etaS: number;
  distanceM: number;
  basis: 'stand-queue' | 'eta';
  lat: number;
  lon: number;
}

/** `GET /v1/bookings/:id/candidates`. */
export interface BookingCandidates {
  items: ServerCandidate[];
  /** The travel-time estimator that timed them ('history', 'osrm'); null when nothing was ranked. */
  estimator: string | null;
}

export const isString = (value: unknown): value is string => typeof value === 'string';
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function toPlace(value: unknown): Place | null {
  if (!isRecord(value) || !isFiniteNumber(value.lat) || !isFiniteNumber(value.lon)) return null;
  return { lat: value.lat, lon: value.lon, address: isString(value.address) ? value.address : null };
}

function toOffer(value: unknown): BookingOffer | null {
  if (!isRecord(value)) return null;
  const { id, vehicleId, offeredAt, expiresAt, response, etaS } = value;
  if (!isString(id) || !isString(vehicleId) || !isString(offeredAt) || !isString(expiresAt)) return null;
  const responses: readonly unknown[] = offerResponses;
  return {
    id,
    vehicleId,
    offeredAt,
    expiresAt,
    response: responses.includes(response) ? (response as OfferResponse) : null,
    etaS: isFiniteNumber(etaS) ? etaS : null,
  };
}

/** A booking from the wire, or null when it lacks what the console needs to show it. */
export function toBooking(value: unknown): Booking | null {
  if (!isRecord(value)) return null;
  const { id, operatorId, status, createdAt, vehicleId, offers } = value;
  const pickup = toPlace(value.pickup);
  if (!isString(id) || !isString(operatorId) || !isString(createdAt) || pickup === null) return null;
  if (!(bookingStatuses as readonly unknown[]).includes(status)) return null;
  return {
    id,
    operatorId,
    pickup,
    dropoff: toPlace(value.dropoff),
    passengers: isFiniteNumber(value.passengers) ? value.passengers : null,
    notes: isString(value.notes) ? value.notes : null,
    mode: value.mode === 'manual' ? 'manual' : 'auto',
    status: status as BookingStatus,
    vehicleId: isString(vehicleId) ? vehicleId : null,
    offers: Array.isArray(offers) ? offers.map(toOffer).filter((offer) => offer !== null) : [],
    createdAt,
  };
}

/** The offer still waiting for the taxi's answer (one at a time), if any. */
export function openOffer(booking: Booking): BookingOffer | null {
  if (booking.status !== 'offered') return null;
  return booking.offers.find((offer) => offer.response === null) ?? null;
}

/** Seconds left on an offer, judged on the server's clock; 0 once due (the server closes it). */
export function remainingS(offer: Pick<BookingOffer, 'expiresAt'>, nowMs: number): number {
  return Math.max(0, Math.ceil((Date.parse(offer.expiresAt) - nowMs) / 1000));
}

/** "0:17", "12:05", "1:02:03": a timer a dispatcher reads at a glance. */
export function clockDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

function toServerCandidate(value: unknown): ServerCandidate | null {
  if (!isRecord(value)) return null;
  const { vehicleId, plate, etaS, distanceM, basis, lat, lon } = value;
  if (!isString(vehicleId) || !isFiniteNumber(etaS) || !isFiniteNumber(distanceM)) return null;
  if (!isFiniteNumber(lat) || !isFiniteNumber(lon)) return null;
  return {
    vehicleId,
    plate: isString(plate) ? plate : vehicleId,
    etaS,
    distanceM,
    basis: basis === 'stand-queue' ? 'stand-queue' : 'eta',
    lat,
    lon,
  };
}

/** The candidates answer, or null when it is not one (then the console falls back, saying so). */
export function toBookingCandidates(value: unknown): BookingCandidates | null {
  if (!isRecord(value) || !Array.isArray(value.items)) return null;
  return {
    items: value.items.map(toServerCandidate).filter((item) => item !== null),
    estimator: isString(value.estimator) ? value.estimator : null,
  };
}
