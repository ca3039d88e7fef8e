import { meterStates } from '@vigia/core';
import { z } from 'zod';

/**
 * A device profile: data, not code. It names a device model (or an installation of one) and says
 * which raw input of that device carries which telemetry field. Profiles live as JSON files in
 * `ingest/profiles/`; a device's `profile` in the registry names one, and a device without one
 * uses its protocol's default profile.
 *
 * The position, time, speed and heading a protocol carries natively (the Teltonika GPS element,
 * OsmAnd's lat/lon/speed/bearing) are decoded by the protocol itself; a profile maps only the
 * rest: ignition, door, occupancy, taximeter, tachograph.
 *
 * Every mapping reads exactly one raw input, so it can also be run backwards: the device
 * emulators in `devices/` build their frames from the same profile files.
 *
 * Units of a count: `passengers` (and `boardings`, `alightings`, `childrenUnder7`) count
 * passengers only, **never the driver** — the same unit as a vehicle's registered `capacity` (a car
 * whose CRLV *lotação* is 5 is a taxi of capacity 4). A sensor that also counts the driver's seat
 * must be mapped with `offset: -1` (or not wire that seat).
 */

/** Telemetry fields a profile may fill, with the kind of value each takes. */
export const PROFILE_FIELDS = {
  ignition: 'boolean',
  doorOpen: 'boolean',
  /** Passengers on board, the driver never included. */
  passengers: 'integer',
  childrenUnder7: 'integer',
  boardings: 'integer',
  alightings: 'integer',
  accuracyM: 'number',
  'meter.state': 'meterState',
  'meter.tariff': 'tariff',
  'meter.fareCents': 'integer',
  'meter.tripId': 'string',
  'tacho.speedKmh': 'number',
  'tacho.driverId': 'string',
} as const;

export type ProfileField = keyof typeof PROFILE_FIELDS;
export type FieldKind = (typeof PROFILE_FIELDS)[ProfileField];
export const profileFieldNames = Object.keys(PROFILE_FIELDS) as ProfileField[];

/** What a mapped field ends up as, before the telemetry schema checks its range. */
export type FieldValue = boolean | number | string;

export const PROFILE_PROTOCOLS = ['teltonika', 'osmand', 'gt06'] as const;
export type ProfileProtocol = (typeof PROFILE_PROTOCOLS)[number];

const mapValue = z.union([z.boolean(), z.number().finite(), z.string().min(1).max(64)]);

/** The transformations any mapping may apply to its raw value, in this order. */
const transformShape = {
  /** Take one bit of an integer input (packed digital inputs, FMS door bit fields). */
  bit: z.number().int().min(0).max(63).optional(),
  /** Read an integer input as two's complement of its width (temperatures, currents). */
  signed: z.boolean().optional(),
  /** value = raw × scale + offset (millivolts to passengers, 1/256 km/h to km/h, ...). */
  scale: z.number().finite().optional(),
  offset: z.number().finite().optional(),
  /** For boolean fields: an active-low input. */
  invert: z.boolean().optional(),
  /**
   * Raw value → field value, for codes (a taximeter state number, a lamp input meaning a
   * tariff, a word the app sends). Keys are the raw value as text (`"1"`, `"hired"`, `"true"`).
   * A raw value missing from the table leaves the field out of the record (and is counted).
   */
  map: z.record(z.string().min(1).max(64), mapValue).optional(),
  /** For string fields read from a byte input: `ascii` (NUL padding trimmed), `hex` or `decimal`. */
  encoding: z.enum(['ascii', 'hex', 'decimal']).optional(),
};

/**
 * A Teltonika AVL IO element. `size` (bytes; `variable` for Codec 8 Extended NX elements) is the
 * width the device is configured to send; the gateway reads whatever width arrives, the
 * emulator needs it to build frames.
 */
export const teltonikaSourceSchema = z.strictObject({
  io: z.number().int().min(0).max(65_535),
  size: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(8), z.literal('variable')]).optional(),
  ...transformShape,
});

/** An OsmAnd request attribute: a query parameter, or a key of the JSON form's `location.extras`. */
export const osmandSourceSchema = z.strictObject({
  attr: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits and . _ - only'),
  ...transformShape,
});

/**
 * What a GT06 (Concox) packet carries besides the fix; the gateway resolves each per record:
 * - `acc`: 1 while the ignition (ACC wire) is on — the ACC byte of 0x22/0x32, else the terminal
 *   information of an alarm packet, else course/status bits 14–15, else the last heartbeat's;
 * - `terminalInfo`: the terminal-information byte (bit 0 defence, 1 ACC, 2 charging, 3–5 alarm
 *   kind, 6 GPS tracking, 7 oil/electricity cut) of this packet or, lacking one, the last heartbeat;
 * - `alarm`: the alarm code of an alarm packet (0x16/0x26/0x27); with `alarmCode`, 1 on a packet
 *   with that code and absent on every other, so a momentary input (door, SOS) needs no map;
 * - `voltageLevel` (0–6) and `gsmSignal` (0–4): of this packet or the last heartbeat;
 * - `externalVoltage` (centivolts) and `odometer` (metres): where the firmware sends them (0x32).
 */
export const GT06_INPUTS = [
  'acc',
  'terminalInfo',
  'alarm',
  'voltageLevel',
  'gsmSignal',
  'externalVoltage',
  'odometer',
] as const;
export type Gt06Input = (typeof GT06_INPUTS)[number];

export const gt06SourceSchema = z.strictObject({
  input: z.enum(GT06_INPUTS),
  alarmCode: z.number().int().min(0).max(255).optional(),
  ...transformShape,
});

/** A GT06 firmware's clock: most send UTC; some are set to local time, this many minutes ahead of UTC. */
export const gt06ClockSchema = z.strictObject({
  utcOffsetMinutes: z
    .number()
    .int()
    .min(-12 * 60)
    .max(14 * 60),
});

export type TeltonikaSource = z.infer<typeof teltonikaSourceSchema>;
export type OsmandSource = z.infer<typeof osmandSourceSchema>;
export type Gt06Source = z.infer<typeof gt06SourceSchema>;
export type FieldMapping = TeltonikaSource | OsmandSource | Gt06Source;

const MAX_NOTES = 40;

const baseShape = {
  /** File name without `.json`; what the registry's `profile` names. */
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and - only'),
  title: z.string().min(1).max(200),
  /** Why each input is wired as it is: for the installer and the regulator reading the evidence. */
  notes: z.array(z.string().min(1).max(500)).max(MAX_NOTES).default([]),
  /** The profile for devices of this protocol registered without one. */
  default: z.boolean().default(false),
};

const fieldsOf = <S extends z.ZodType>(source: S) =>
  z.partialRecord(z.enum(profileFieldNames as [ProfileField, ...ProfileField[]]), source);

export const deviceProfileSchema = z
  .discriminatedUnion('protocol', [
    z.strictObject({ ...baseShape, protocol: z.literal('teltonika'), fields: fieldsOf(teltonikaSourceSchema) }),
    z.strictObject({ ...baseShape, protocol: z.literal('osmand'), fields: fieldsOf(osmandSourceSchema) }),
    z.strictObject({
      ...baseShape,
      protocol: z.literal('gt06'),
      fields: fieldsOf(gt06SourceSchema),
      /** Absent: the firmware sends UTC (or says its zone in the login packet). */
      clock: gt06ClockSchema.optional(),
    }),
  ])
  .superRefine((profile, ctx) => {
    for (const [field, mapping] of Object.entries(profile.fields) as [ProfileField, FieldMapping][]) {
      for (const problem of mappingProblems(PROFILE_FIELDS[field], mapping)) {
        ctx.addIssue({ code: 'custom', path: ['fields', field], message: problem });
      }
    }
  });

export type DeviceProfile = z.output<typeof deviceProfileSchema>;

const tariffs = new Set<unknown>([1, 2]);
const states = new Set<unknown>(meterStates);

/** A mapping that cannot produce its field's kind of value is a mistake in the profile file. */
function mappingProblems(kind: FieldKind, m: FieldMapping): string[] {
  const problems: string[] = [];
  const numeric = m.scale !== undefined || m.offset !== undefined;
  if (m.invert !== undefined && kind !== 'boolean') problems.push('invert applies to boolean fields only');
  if (m.encoding !== undefined && kind !== 'string') problems.push('encoding applies to string fields only');
  if (numeric && (kind === 'boolean' || kind === 'string' || kind === 'meterState')) {
    problems.push(`scale/offset make no sense for a ${kind} field`);
  }
  if (numeric && m.map) problems.push('use either map or scale/offset, not both');
  if ('alarmCode' in m && m.alarmCode !== undefined && m.input !== 'alarm') {
    problems.push('alarmCode applies to the alarm input only');
  }
  for (const [raw, value] of Object.entries(m.map ?? {})) {
    const ok =
      kind === 'boolean'
        ? typeof value === 'boolean'
        : kind === 'meterState'
          ? states.has(value)
          : kind === 'tariff'
            ? tariffs.has(value)
            : kind === 'string'
              ? typeof value === 'string'
              : typeof value === 'number';
    if (!ok) problems.push(`map: "${raw}" → ${JSON.stringify(value)} is not a valid ${kind} value`);
  }
  return problems;
}
