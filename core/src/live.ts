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

/** What travels between processes on the bus. */
export const busMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('fleet'), updates: z.array(fleetUpdateSchema) }),
  z.object({ type: z.literal('violation'), violations: z.array(liveViolationSchema) }),
  /** A device changed (token rotated, retired, moved): caches keyed by these identifiers drop them. */
  z.object({ type: z.literal('device-changed'), identifiers: z.array(z.string()) }),
  /** Registry records changed: the rule engine reloads its registry. */
  z.object({ type: z.literal('registry-changed'), collection: z.string() }),
]);
export type BusMessage = z.infer<typeof busMessageSchema>;
