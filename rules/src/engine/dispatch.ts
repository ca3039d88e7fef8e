import { z } from 'zod';

/**
 * A radio-taxi dispatch as the dispatch system reports it (Belém Art. 42–44): which radio
 * operator sent which vehicle to a ride, when. The second input of the engine, beside telemetry.
 */
export const dispatchRecordSchema = z.object({
  /** The dispatch system's id; makes the violation key stable across re-sends. */
  id: z.string().min(1).nullable().default(null),
  ts: z.union([z.date(), z.iso.datetime({ offset: true }).transform((s) => new Date(s))]),
  radioOperatorId: z.string().min(1),
  vehicleId: z.string().min(1),
  lat: z.number().min(-90).max(90).nullable().default(null),
  lon: z.number().min(-180).max(180).nullable().default(null),
  tripId: z.string().nullable().default(null),
});
export type DispatchRecordInput = z.input<typeof dispatchRecordSchema>;
export type DispatchRecord = z.output<typeof dispatchRecordSchema>;
