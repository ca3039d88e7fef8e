import { meterStateSchema, type Telemetry } from '@vigia/core';
import { z } from 'zod';

/** A normalised record as one line of the spool file (instants as ISO strings), and back. */
const nullableNumber = z.number().nullable();
const spooledSchema = z.object({
  deviceId: z.string(),
  vehicleId: z.string(),
  ts: z.iso.datetime(),
  receivedAt: z.iso.datetime(),
  lat: z.number(),
  lon: z.number(),
  speedKmh: nullableNumber,
  headingDeg: nullableNumber,
  accuracyM: nullableNumber,
  ignition: z.boolean().nullable(),
  doorOpen: z.boolean().nullable(),
  passengers: nullableNumber,
  childrenUnder7: nullableNumber,
  boardings: nullableNumber,
  alightings: nullableNumber,
  meterState: meterStateSchema.nullable(),
  meterTariff: z.union([z.literal(1), z.literal(2)]).nullable(),
  meterFareCents: nullableNumber,
  meterTripId: z.string().nullable(),
  tachoSpeedKmh: nullableNumber,
  tachoDriverId: z.string().nullable(),
});

export function encodeTelemetry(r: Telemetry): string {
  return JSON.stringify(r);
}

export function decodeTelemetry(line: string): Telemetry {
  const v = spooledSchema.parse(JSON.parse(line));
  return { ...v, ts: new Date(v.ts), receivedAt: new Date(v.receivedAt) };
}
