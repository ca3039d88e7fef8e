/**
 * What the driver page reads from the API and the `/driver` channel (API.md "Radio-taxi
 * dispatch"). Pushed values are checked by the guards below before use: a page must not break on
 * a newer server's extra or missing field. Statuses, offer answers and places are the console's
 * (dispatch-types.ts): one declaration of each API shape in the dashboard.
 */

import {
  type BookingOffer,
  type BookingStatus,
  bookingStatuses,
  isString,
  type OfferResponse,
  offerResponses,
  type Place,
} from '../dispatch-types.js';
import { isRecord } from '../violation-guards.js';

/** An open offer to this taxi: an item of `GET /v1/offers`, and the `/driver` event `offer`. */
export interface DriverOffer extends Pick<BookingOffer, 'id' | 'vehicleId' | 'offeredAt' | 'expiresAt' | 'etaS'> {
  bookingId: string;
  operatorId: string;
  distanceM: number | null;
  pickup: Place;
  dropoff?: Place | null;
  passengers?: number | null;
  notes?: string | null;
}

/** The fields of a booking (`GET /v1/bookings/:id`, `/driver` event `booking`) the page shows. */
export interface DriverBooking {
  id: string;
  status: BookingStatus;
  vehicleId: string | null;
  pickup: Place;
  dropoff: Place | null;
  passengers: number | null;
  notes: string | null;
}

/** The first event of every connection, before the snapshot of the vehicle's state. */
export interface DriverHello {
  vehicleId: string;
  deviceId: string | null;
  identifier: string | null;
}

/** Ends the snapshot: the offers open and the booking served when it was read. */
export interface DriverSynced {
  vehicleId: string;
  plate: string | null;
  offerIds: string[];
  bookingId: string | null;
}

export function isPlace(value: unknown): value is Place {
  return (
    isRecord(value) &&
    typeof value.lat === 'number' &&
    typeof value.lon === 'number' &&
    (value.address === undefined || value.address === null || isString(value.address))
  );
}

export function isDriverOffer(value: unknown): value is DriverOffer {
  return (
    isRecord(value) &&
    isString(value.id) &&
    isString(value.bookingId) &&
    isString(value.vehicleId) &&
    isString(value.offeredAt) &&
    isString(value.expiresAt) &&
    Number.isFinite(Date.parse(value.expiresAt)) &&
    isPlace(value.pickup)
  );
}

export function isDriverBooking(value: unknown): value is DriverBooking {
  return (
    isRecord(value) &&
    isString(value.id) &&
    isString(value.status) &&
    (bookingStatuses as readonly string[]).includes(value.status) &&
    isPlace(value.pickup)
  );
}

export function isOfferClosed(value: unknown): value is { id: string; response: OfferResponse } {
  return (
    isRecord(value) &&
    isString(value.id) &&
    isString(value.response) &&
    (offerResponses as readonly string[]).includes(value.response)
  );
}

export function isDriverHello(value: unknown): value is DriverHello {
  return isRecord(value) && isString(value.vehicleId);
}

export function isDriverSynced(value: unknown): value is DriverSynced {
  return (
    isRecord(value) &&
    isString(value.vehicleId) &&
    Array.isArray(value.offerIds) &&
    value.offerIds.every(isString) &&
    (value.bookingId === null || isString(value.bookingId)) &&
    (value.plate === null || isString(value.plate))
  );
}
