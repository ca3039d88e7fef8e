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

/** The code a record gets when one of its text fields holds a character no store can keep. */
export const CONTROL_CHARACTER = 'CONTROL_CHARACTER';

/**
 * The index of the first character of `text` that has no place in an identifier, or -1: a C0
 * control character (U+0000–U+001F, NUL included), DEL (U+007F), or half of a UTF-16 surrogate
 * pair. PostgreSQL cannot store NUL in `text` at all (the whole transaction fails with 22021),
 * and a lone surrogate has no UTF-8 form (the driver silently turns it into U+FFFD, so the stored
 * id would differ from the one sent). Tabs and line breaks are refused too: in a driver or trip
 * id they are a broken or hostile sender, and they would split the CSV lines and log lines that
 * carry these ids.
 */
export function controlCharacterAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return i;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/** A text field of the contract: bounded, and free of what `controlCharacterAt` finds. */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => controlCharacterAt(v) < 0, {
      message: 'contains a control character (U+0000–U+001F, U+007F) or a lone UTF-16 surrogate',
      params: { code: CONTROL_CHARACTER },
    });

/** Whether a schema issue is a control character in a text field (see `text`). */
export function isControlCharacterIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && issue.params?.code === CONTROL_CHARACTER;
}

export const telemetryInputSchema = z.object({
  deviceId: z.string().trim().min(1).pipe(text(64)),
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
      tripId: text(64).optional(),
    })
    .optional(),
  tacho: z
    .object({
      speedKmh: z.number().min(0).max(400).optional(),
      driverId: text(64).optional(),
    })
    .optional(),
});

/** How far a record's time may lie from the server clock (seconds); `maxPastAgeS` 0 = no bound. */
export interface TimestampBounds {
  maxFutureSkewS: number;
  maxPastAgeS: number;
}

export type TimestampProblem = { code: 'FUTURE_TIMESTAMP' | 'PAST_TIMESTAMP'; message: string };

/**
 * Why a record's time is refused, if it is: every way in (`POST /v1/telemetry`, the gateways)
 * asks this one function, so they all enforce the same window. The future is bounded because no
 * clock can be ahead of the server by more than its drift; the past because a tracker whose
 * clock reset (1970, the GPS epoch 1980, a week-number rollover 19.6 years back) would otherwise
 * write samples the rules judge against a registry and tariffs of another era.
 */
export function timestampProblem(ts: Date, receivedAt: Date, bounds: TimestampBounds): TimestampProblem | undefined {
  if (ts.getTime() > receivedAt.getTime() + bounds.maxFutureSkewS * 1000) {
    return {
      code: 'FUTURE_TIMESTAMP',
      message: `ts ${ts.toISOString()} is more than ${bounds.maxFutureSkewS} s ahead of the server clock`,
    };
  }
  if (bounds.maxPastAgeS > 0 && ts.getTime() < receivedAt.getTime() - bounds.maxPastAgeS * 1000) {
    return {
      code: 'PAST_TIMESTAMP',
      message: `ts ${ts.toISOString()} is more than ${bounds.maxPastAgeS} s behind the server clock`,
    };
  }
  return undefined;
}

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
