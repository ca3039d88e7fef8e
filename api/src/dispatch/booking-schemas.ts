import { type Booking, type BookingOffer, bookingStatuses } from '@vigia/core';
import { z } from 'zod';

/**
 * The bodies and queries of the booking routes (API.md "Radio-taxi dispatch"). The booking and
 * offer as answered are `bookingSchema` and `bookingOfferSchema` of @vigia/core: the bus carries
 * the same shape.
 */

/** Text from a caller: trimmed, bounded, no control characters (PostgreSQL refuses a NUL). */
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'control characters are not allowed');

/** Notes may have line breaks (a dispatcher's "2nd floor\nring twice"); other control characters not. */
const notes = z
  .string()
  .trim()
  .max(1000)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  .regex(/^[^\u0000-\u0009\u000b-\u001f\u007f]*$/, 'control characters other than line breaks are not allowed');

/** An id in a path or a filter. */
export const idSchema = text(128).min(1);

const placeSchema = z.object({
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  address: text(300).min(1).optional(),
});

export const createBookingSchema = z.object({
  operatorId: idSchema,
  pickup: placeSchema,
  dropoff: placeSchema.optional(),
  passengers: z.number().int().min(1).max(20).optional(),
  notes: notes.optional(),
  mode: z.enum(['auto', 'manual']).default('auto'),
});
export type CreateBooking = z.output<typeof createBookingSchema>;

export const bookingQuerySchema = z.object({
  operatorId: idSchema.optional(),
  status: z.enum(bookingStatuses).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: text(200).min(1).optional(),
});
export type BookingQuery = z.output<typeof bookingQuerySchema>;

export const cancelSchema = z
  .object({ reason: text(500).min(1).optional() })
  .optional()
  .transform((b) => b ?? {});

export const assignSchema = z.object({ vehicleId: idSchema });

export const offerQuerySchema = z.object({
  operatorId: idSchema.optional(),
  vehicleId: idSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});
export type OfferQuery = z.output<typeof offerQuerySchema>;

export const candidateQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(10),
});

/** An item of `GET /v1/bookings/:id/candidates`: a taxi the booking may be assigned to, in offer order. */
export interface BookingCandidate {
  vehicleId: string;
  plate: string;
  /** Estimated driving time to the pickup, whole seconds (the ranking's estimate). */
  etaS: number;
  /** Straight-line distance to the pickup, whole metres. */
  distanceM: number;
  basis: 'stand-queue' | 'eta';
  /** Its last position (vehicle_live). */
  lat: number;
  lon: number;
}

/** `GET /v1/bookings/:id/candidates`: `estimator` and `stand` are null when nothing was ranked. */
export interface BookingCandidates {
  items: BookingCandidate[];
  estimator: string | null;
  stand: { id: string; name: string } | null;
}

/**
 * An item of `GET /v1/offers`: an open offer with what the driver needs to decide. Its fields are
 * core's offer and booking fields (`bookingOfferSchema`, `bookingSchema`), the absent ones left out.
 */
export interface OpenOffer extends Pick<BookingOffer, 'id' | 'vehicleId' | 'offeredAt' | 'expiresAt' | 'etaS'> {
  bookingId: Booking['id'];
  operatorId: Booking['operatorId'];
  distanceM: number | null;
  pickup: Booking['pickup'];
  dropoff?: Booking['pickup'];
  passengers?: number;
  notes?: string;
}
