import { z } from 'zod';

/**
 * The telemetry record of the public contract (shared/API.md, "Telemetry in").
 * Unknown fields are dropped rather than rejected: the contract only ever grows by adding
 * fields, so a device built against a newer version must still be accepted.
 */

/** An instant: ISO 8601 with `Z` or an offset, or epoch milliseconds. */
export const instantSchema = z
  .union([z.iso.datetime({ offset: true }), z.number().int().min(0).max(8_640_000_000_000_000)])
  .transform((v) => new Date(v));

export const meterStates = ['free', 'hired', 'stopped', 'off'] as const;
export const meterStateSchema = z.enum(meterStates);
export type MeterState = z.infer<typeof meterStateSchema>;

const count = z.number().int().min(0).max(500);

export const telemetryInputSchema = z.object({
  deviceId: z.string().trim().min(1).max(64),
  ts: instantSchema,
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  speedKmh: z.number().min(0).max(400).optional(),
  headingDeg: z.number().min(0).max(360).optional(),
  accuracyM: z.number().min(0).max(100_000).optional(),
  ignition: z.boolean().optional(),
  doorOpen: z.boolean().optional(),
  passengers: count.optional(),
  childrenUnder7: count.optional(),
  boardings: count.optional(),
  alightings: count.optional(),
  meter: z
    .object({
      state: meterStateSchema,
      tariff: z.union([z.literal(1), z.literal(2)]).optional(),
      fareCents: z.number().int().min(0).max(100_000_000).optional(),
      tripId: z.string().max(64).optional(),
    })
    .optional(),
  tacho: z
    .object({
      speedKmh: z.number().min(0).max(400).optional(),
      driverId: z.string().max(64).optional(),
    })
    .optional(),
});

/** What a device sends (before parsing: `ts` may be a string or a number). */
export type TelemetryInput = z.input<typeof telemetryInputSchema>;
/** A record as validated (with `ts` as a Date). */
export type TelemetryParsed = z.output<typeof telemetryInputSchema>;

/** The body forms of `POST /v1/telemetry` as JSON: one record or an array of them. */
export const telemetryBatchSchema = z.union([telemetryInputSchema, z.array(telemetryInputSchema)]);

/**
 * The normalised internal record: flat, every optional field present as `null`, attributed to the
 * vehicle the device was in when it was received. This is the row shape of the telemetry table.
 */
export interface Telemetry {
  /** The registry id of the device (not the identifier it sends, which may be re-used). */
  deviceId: string;
  vehicleId: string;
  ts: Date;
  receivedAt: Date;
  lat: number;
  lon: number;
  speedKmh: number | null;
  headingDeg: number | null;
  accuracyM: number | null;
  ignition: boolean | null;
  doorOpen: boolean | null;
  passengers: number | null;
  childrenUnder7: number | null;
  boardings: number | null;
  alightings: number | null;
  meterState: MeterState | null;
  meterTariff: 1 | 2 | null;
  meterFareCents: number | null;
  meterTripId: string | null;
  tachoSpeedKmh: number | null;
  tachoDriverId: string | null;
}

export function normaliseTelemetry(
  input: TelemetryParsed,
  device: { deviceId: string; vehicleId: string },
  receivedAt: Date,
): Telemetry {
  return {
    deviceId: device.deviceId,
    vehicleId: device.vehicleId,
    ts: input.ts,
    receivedAt,
    lat: input.lat,
    lon: input.lon,
    speedKmh: input.speedKmh ?? null,
    headingDeg: input.headingDeg ?? null,
    accuracyM: input.accuracyM ?? null,
    ignition: input.ignition ?? null,
    doorOpen: input.doorOpen ?? null,
    passengers: input.passengers ?? null,
    childrenUnder7: input.childrenUnder7 ?? null,
    boardings: input.boardings ?? null,
    alightings: input.alightings ?? null,
    meterState: input.meter?.state ?? null,
    meterTariff: input.meter?.tariff ?? null,
    meterFareCents: input.meter?.fareCents ?? null,
    meterTripId: input.meter?.tripId ?? null,
    tachoSpeedKmh: input.tacho?.speedKmh ?? null,
    tachoDriverId: input.tacho?.driverId ?? null,
  };
}
