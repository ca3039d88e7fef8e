/**
 * The answers the Node runner reads, as zod schemas: the contract's own where @vigia/core has one
 * (a booking, a fleet update), so a run also checks every field the public contract promises.
 * Each is typed against the part the shared scenarios judge, so the two cannot drift apart.
 */
import { bookingOfferSchema, bookingSchema, fleetUpdateSchema } from '@vigia/core';
import { z } from 'zod';
import type { BookingSeen } from '../scenarios/dispatch.ts';
import type { ListedVehicle } from '../scenarios/fleet.ts';
import type { TelemetryAnswer } from '../scenarios/ingest.ts';
import type { FleetUpdateSeen } from '../scenarios/live.ts';

export const telemetryAnswerSchema: z.ZodType<TelemetryAnswer> = z.object({
  accepted: z.number().int().min(0),
  duplicates: z.number().int().min(0),
  rejected: z.array(z.object({ index: z.number().int(), code: z.string(), message: z.string() })),
});

export const createdSchema = z.object({ id: z.string() });
export const createdListSchema = z.array(createdSchema);
/** `POST /v1/devices` with an array: each created device with its token, shown only here. */
export const createdDevicesSchema = z.array(z.object({ id: z.string(), token: z.string().min(16) }));

export const vehiclePageSchema: z.ZodType<{ items: ListedVehicle[]; next: string | null }> = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      live: z.object({ ts: z.string(), online: z.boolean() }).nullable(),
    }),
  ),
  next: z.string().nullable(),
});

export const bookingAnswerSchema: z.ZodType<BookingSeen> = bookingSchema;
/** The answer to an offer: the offer as it now is, with its booking. */
export const offerAnswerSchema = bookingOfferSchema.extend({ bookingId: z.string() });
export const fleetEventSchema: z.ZodType<FleetUpdateSeen[]> = z.array(fleetUpdateSchema);
