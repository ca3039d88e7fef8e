import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The device profiles the gateways read (`ingest/profiles/*.json`), read here from the device's
 * side: an emulated device puts each telemetry field where its profile says the real device
 * carries it, so the emulators and the gateways can only agree if the profile files are right.
 *
 * Only the part of a profile an emulator needs is checked here; the gateway validates profiles
 * in full when it loads them. The same path works from src/ and from dist/.
 */
export const PROFILES_DIR = fileURLToPath(new URL('../../../../ingest/profiles/', import.meta.url));

const mapValue = z.union([z.boolean(), z.number(), z.string()]);

const sourceShape = {
  bit: z.number().int().min(0).max(63).optional(),
  signed: z.boolean().optional(),
  scale: z
    .number()
    .finite()
    .refine((s) => s !== 0, 'scale 0 cannot be inverted')
    .optional(),
  offset: z.number().finite().optional(),
  invert: z.boolean().optional(),
  map: z.record(z.string(), mapValue).optional(),
  encoding: z.enum(['ascii', 'hex', 'decimal']).optional(),
};

export const teltonikaSourceSchema = z.looseObject({
  io: z.number().int().min(0).max(65_535),
  size: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(8), z.literal('variable')]).optional(),
  ...sourceShape,
});
export const osmandSourceSchema = z.looseObject({ attr: z.string().min(1).max(64), ...sourceShape });
/**
 * A GT06 input: `acc` (the ACC line), `terminalInfo` (the terminal info byte, or one `bit` of it),
 * `alarm` (the alarm code of an alarm packet; with `alarmCode`, 1 on a packet with that code),
 * `voltageLevel`, `gsmSignal`, and the 0x32 firmwares' `externalVoltage` and `odometer` (which
 * the emulated tracker, sending 0x22, does not have).
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
export const gt06SourceSchema = z.looseObject({
  input: z.enum(GT06_INPUTS),
  alarmCode: z.number().int().min(0).max(255).optional(),
  ...sourceShape,
});

export const emulatorProfileSchema = z.discriminatedUnion('protocol', [
  z.looseObject({
    name: z.string().min(1),
    protocol: z.literal('teltonika'),
    fields: z.record(z.string(), teltonikaSourceSchema),
  }),
  z.looseObject({
    name: z.string().min(1),
    protocol: z.literal('osmand'),
    fields: z.record(z.string(), osmandSourceSchema),
  }),
  z.looseObject({
    name: z.string().min(1),
    protocol: z.literal('gt06'),
    fields: z.record(z.string(), gt06SourceSchema),
  }),
]);

export type EmulatorProfile = z.output<typeof emulatorProfileSchema>;
export type TeltonikaProfile = Extract<EmulatorProfile, { protocol: 'teltonika' }>;
export type OsmandProfile = Extract<EmulatorProfile, { protocol: 'osmand' }>;
export type Gt06Profile = Extract<EmulatorProfile, { protocol: 'gt06' }>;
export type Gt06Source = z.output<typeof gt06SourceSchema>;
export type TeltonikaSource = z.output<typeof teltonikaSourceSchema>;
export type OsmandSource = z.output<typeof osmandSourceSchema>;

export function loadEmulatorProfile(name: string, dir: string = PROFILES_DIR): EmulatorProfile {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`'${name}' is not a profile name`);
  const path = join(dir, `${name}.json`);
  const parsed = emulatorProfileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    throw new Error(
      `Profile ${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}
