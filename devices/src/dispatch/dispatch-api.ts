import { bookingStatuses } from '@vigia/core';
import { z } from 'zod';
import { httpErrorFrom, joinUrl, requestJson } from '../api/http.js';

/**
 * The simulated radio desks' side of the dispatch contract (API.md "Radio-taxi dispatch"): only
 * the fields they read, so the API may add to its answers freely.
 */

const placeSchema = z.looseObject({ lat: z.number(), lon: z.number(), address: z.string().optional() });

/** An item of `GET /v1/offers`: an open offer. */
export const openOfferSchema = z.looseObject({
  id: z.string(),
  bookingId: z.string(),
  vehicleId: z.string(),
  operatorId: z.string(),
  expiresAt: z.string(),
  pickup: placeSchema,
  dropoff: placeSchema.nullish(),
  passengers: z.number().nullish(),
});
export type OpenOffer = z.infer<typeof openOfferSchema>;

export const bookingStatusSchema = z.enum(bookingStatuses);

/** A booking as `GET /v1/bookings/:id` answers it. */
export const bookingSchema = z.looseObject({
  id: z.string(),
  operatorId: z.string(),
  status: bookingStatusSchema,
  vehicleId: z.string().nullish(),
  pickup: placeSchema,
  dropoff: placeSchema.nullish(),
  passengers: z.number().nullish(),
});
export type SimBooking = z.infer<typeof bookingSchema>;

export type Place = z.infer<typeof placeSchema>;

export interface NewBooking {
  operatorId: string;
  pickup: Place;
  dropoff?: Place;
  passengers?: number;
  notes?: string;
  mode: 'auto' | 'manual';
}

/** An answer to an offer: `answered`, or `closed` when it was no longer open (expired, withdrawn, taken). */
export type AnswerOutcome = 'answered' | 'closed';

/** HTTP calls of the dispatch contract, each with the token given (a dispatcher's, a device's, the admin's). */
export class DispatchApi {
  constructor(
    private readonly apiUrl: string,
    private readonly signal?: AbortSignal,
  ) {}

  async createBooking(token: string, booking: NewBooking): Promise<SimBooking> {
    const res = await this.call('POST', '/v1/bookings', token, booking);
    if (res.status !== 201 && res.status !== 200) throw httpErrorFrom(res, 'Creating a booking');
    return bookingSchema.parse(res.body);
  }

  async booking(token: string, id: string): Promise<SimBooking | undefined> {
    const res = await this.call('GET', `/v1/bookings/${encodeURIComponent(id)}`, token);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw httpErrorFrom(res, `Reading booking ${id}`);
    return bookingSchema.parse(res.body);
  }

  /** The operator's bookings in `status`, newest first (at most 1000). */
  async bookings(token: string, operatorId: string, status: SimBooking['status']): Promise<SimBooking[]> {
    const query = `operatorId=${encodeURIComponent(operatorId)}&status=${status}&limit=1000`;
    const res = await this.call('GET', `/v1/bookings?${query}`, token);
    if (res.status !== 200) throw httpErrorFrom(res, `Listing the ${status} bookings of ${operatorId}`);
    return z.looseObject({ items: z.array(bookingSchema) }).parse(res.body).items;
  }

  /** Cancels a booking; false when it could no longer be (closed meanwhile, or its passenger aboard). */
  async cancel(token: string, id: string, reason: string): Promise<boolean> {
    const res = await this.call('POST', `/v1/bookings/${encodeURIComponent(id)}/cancel`, token, { reason });
    if (res.status === 200 || res.status === 201) return true;
    if (res.status === 409 || res.status === 404) return false;
    throw httpErrorFrom(res, `Cancelling booking ${id}`);
  }

  async assign(token: string, bookingId: string, vehicleId: string): Promise<SimBooking | undefined> {
    const res = await this.call('POST', `/v1/bookings/${encodeURIComponent(bookingId)}/assign`, token, { vehicleId });
    // 409: the taxi or the booking is no longer available for it (the desk simply tries the next booking).
    if (res.status === 409 || res.status === 404) return undefined;
    if (res.status !== 200 && res.status !== 201) throw httpErrorFrom(res, `Assigning booking ${bookingId}`);
    return bookingSchema.parse(res.body);
  }

  /** Open offers the token may see: all (admin), its operators' (dispatcher), its vehicle's (device). */
  async openOffers(token: string): Promise<OpenOffer[]> {
    const res = await this.call('GET', '/v1/offers?limit=1000', token);
    if (res.status !== 200) throw httpErrorFrom(res, 'Listing open offers');
    return z.looseObject({ items: z.array(openOfferSchema) }).parse(res.body).items;
  }

  async answer(token: string, offerId: string, answer: 'accept' | 'decline'): Promise<AnswerOutcome> {
    const res = await this.call('POST', `/v1/offers/${encodeURIComponent(offerId)}/${answer}`, token, {});
    if (res.status === 200 || res.status === 201) return 'answered';
    if (res.status === 409 || res.status === 404 || res.status === 410) return 'closed';
    throw httpErrorFrom(res, `Answering offer ${offerId}`);
  }

  private call(method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
    return requestJson(joinUrl(this.apiUrl, path), {
      method,
      token,
      ...(body === undefined ? {} : { body }),
      ...(this.signal ? { signal: this.signal } : {}),
    });
  }
}
