import { z } from 'zod';
import { meterStateSchema } from './telemetry.js';

export const packs = ['sp-fretamento', 'df-taxi', 'belem-taxi'] as const;
export const packSchema = z.enum(packs);
export type Pack = z.infer<typeof packSchema>;

export const serviceTypes = ['taxi', 'fretamento-continuo', 'fretamento-eventual', 'particular'] as const;
export const serviceTypeSchema = z.enum(serviceTypes);
export type ServiceType = z.infer<typeof serviceTypeSchema>;

/**
 * One vehicle's latest position as pushed to dashboards (Socket.IO `/live`, event `fleet`) and
 * returned as `live` by `GET /v1/vehicles`. `ts` is an ISO 8601 UTC instant.
 */
export const fleetUpdateSchema = z.object({
  vehicleId: z.string(),
  plate: z.string(),
  operatorId: z.string().nullable(),
  pack: packSchema,
  serviceType: serviceTypeSchema,
  ts: z.string(),
  lat: z.number(),
  lon: z.number(),
  speedKmh: z.number().nullable(),
  headingDeg: z.number().nullable(),
  meterState: meterStateSchema.nullable(),
  tariff: z.union([z.literal(1), z.literal(2)]).nullable(),
  passengers: z.number().nullable(),
  doorOpen: z.boolean().nullable(),
  ignition: z.boolean().nullable(),
});
export type FleetUpdate = z.infer<typeof fleetUpdateSchema>;

/**
 * A violation as pushed to dashboards (Socket.IO `/live`, event `violation`) when it is raised
 * or grows: the list fields of `GET /v1/violations`, instants as ISO strings.
 */
export const liveViolationSchema = z.object({
  id: z.string(),
  ruleId: z.string(),
  pack: packSchema,
  legalBasis: z.array(z.string()),
  description: z.string(),
  descriptionEn: z.string(),
  vehicleId: z.string(),
  plate: z.string().nullable(),
  operatorId: z.string().nullable(),
  driverId: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  detectedAt: z.string(),
  lat: z.number().nullable(),
  lon: z.number().nullable(),
  place: z.object({ kind: z.string(), id: z.string(), name: z.string() }).nullable(),
  confidence: z.enum(['confirmed', 'suspected']),
  measured: z.record(z.string(), z.unknown()),
  penalty: z.record(z.string(), z.unknown()),
  recidivism: z.record(z.string(), z.unknown()),
  status: z.enum(['open', 'confirmed', 'dismissed', 'notified']),
  /** `raised` the first time, `updated` as the event grows or is reviewed. */
  change: z.enum(['raised', 'updated']),
});
export type LiveViolation = z.infer<typeof liveViolationSchema>;

const placeSchema = z.object({ lat: z.number(), lon: z.number(), address: z.string().optional() });

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
export const offerResponses = ['accepted', 'declined', 'expired', 'withdrawn'] as const;

/** One offer of a booking to a taxi (API.md "Radio-taxi dispatch"); instants as ISO strings. */
export const bookingOfferSchema = z.object({
  id: z.string(),
  vehicleId: z.string(),
  offeredAt: z.string(),
  expiresAt: z.string(),
  /** null while open; `withdrawn`: closed by the system (booking cancelled, assigned elsewhere, taxi no longer free). */
  response: z.enum(offerResponses).nullable(),
  respondedAt: z.string().nullable(),
  etaS: z.number().nullable(),
  /** Why this taxi: head of the pickup stand's queue, best arrival, or the dispatcher's choice. */
  basis: z.enum(['stand-queue', 'eta', 'manual']),
});
export type BookingOffer = z.infer<typeof bookingOfferSchema>;

/**
 * A radio-taxi booking exactly as `GET /v1/bookings/:id` returns it, and as the bus and the
 * Socket.IO namespaces carry it after each change (API.md "Radio-taxi dispatch").
 */
export const bookingSchema = z.object({
  id: z.string(),
  operatorId: z.string(),
  pack: packSchema,
  mode: z.enum(['auto', 'manual']),
  status: z.enum(bookingStatuses),
  pickup: placeSchema,
  dropoff: placeSchema.nullable(),
  passengers: z.number().nullable(),
  notes: z.string().nullable(),
  /** The stand whose queue is offered the booking first (Art. 37 m), when the pickup is at one. */
  standId: z.string().nullable(),
  vehicleId: z.string().nullable(),
  offers: z.array(bookingOfferSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** When it expires if nobody takes it. */
  expiresAt: z.string(),
  acceptedAt: z.string().nullable(),
  arrivedAt: z.string().nullable(),
  onBoardAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  cancelReason: z.string().nullable(),
  expiredAt: z.string().nullable(),
});
export type Booking = z.infer<typeof bookingSchema>;

/** What travels between processes on the bus. */
export const busMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('fleet'), updates: z.array(fleetUpdateSchema) }),
  z.object({ type: z.literal('violation'), violations: z.array(liveViolationSchema) }),
  /** A device changed (token rotated, retired, moved): caches keyed by these identifiers drop them. */
  z.object({ type: z.literal('device-changed'), identifiers: z.array(z.string()) }),
  /** Registry records changed: the rule engine reloads its registry. */
  z.object({ type: z.literal('registry-changed'), collection: z.string() }),
  /** A booking changed (created, offered, answered, progressed): its state after the change. */
  z.object({ type: z.literal('booking'), booking: bookingSchema }),
]);
export type BusMessage = z.infer<typeof busMessageSchema>;
