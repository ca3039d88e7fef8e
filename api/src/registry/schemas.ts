import { packSchema, roles, serviceTypeSchema } from '@vigia/core';
import { z } from 'zod';
import { areaSchema, lineStringSchema, pointSchema, polygonSchema } from './geojson.js';

/** Request bodies of the registry collections (shared/API.md "Registry"). Types flow from these. */

const id = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only');
const isoDate = z.iso.date();
const status = z.enum(['active', 'suspended', 'withdrawn']);
/**
 * Free text (names, documents): no control characters. PostgreSQL refuses a NUL outright, and a
 * tab or line break in a name only ever comes from a broken import or an attempt on the CSV export.
 */
const text = (max = 200) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'control characters are not allowed');

export const operatorCreateSchema = z.object({
  id: id.optional(),
  name: text(),
  pack: packSchema,
  kind: z
    .enum(['company', 'cooperative', 'permit-holder', 'radio-operator', 'association', 'private-fleet'])
    .default('company'),
  /** CNPJ or CPF; a permit holder's driver record carries the same CPF (DF Art. 36). */
  document: text(32).nullish(),
  status: status.default('active'),
  /** SP: the registration certificate's expiry (Art. 7 §3). */
  registrationValidUntil: isoDate.nullish(),
  /** Belém radio operators: credential expiry (Art. 42–43). */
  credentialValidUntil: isoDate.nullish(),
  /** Belém radio operators: vehicles declared to the regulator (Art. 44 I). */
  declaredVehicleIds: z.array(id).max(5000).default([]),
});

/** Brazilian plates: the old LLL-NNNN form and Mercosul LLLNLNN, stored without the dash. */
export const plateSchema = z
  .string()
  .trim()
  .toUpperCase()
  .transform((p) => p.replace(/[-\s]/g, ''))
  .pipe(z.string().regex(/^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$/, 'a Brazilian plate such as ABC1D23 or ABC-1234'));

export const vehicleCreateSchema = z.object({
  id: id.optional(),
  plate: plateSchema,
  pack: packSchema,
  serviceType: serviceTypeSchema,
  /**
   * Passenger places, the driver never included (a car whose CRLV *lotação* is 5 is a taxi of
   * capacity 4; a coach's seats for passengers): the unit of telemetry `passengers`.
   */
  capacity: z.number().int().min(1).max(120),
  manufactureYear: z.number().int().min(1950).max(2100).nullish(),
  make: text(80).nullish(),
  colour: text(40).nullish(),
  operatorId: id.nullish(),
  permitNumber: text(64).nullish(),
  permitValidUntil: isoDate.nullish(),
  lastInspectionDate: isoDate.nullish(),
  divValidUntil: isoDate.nullish(),
  /** Drivers registered on the permit (DF Art. 36); the holder drives on it whether listed or not. */
  driverIds: z.array(id).max(20).default([]),
  status: status.default('active'),
  modelYear: z.number().int().min(1950).max(2100).nullish(),
  permitKind: z.enum(['autonomous', 'company']).nullish(),
  inspectionValidUntil: isoDate.nullish(),
  safetyCertificateValidUntil: isoDate.nullish(),
  ageExtensionValidUntil: isoDate.nullish(),
  tachographLinked: z.boolean().default(false),
  /**
   * State of the permit (DF) / authorization (Belém) / registration (SP) the vehicle runs under:
   * suspended (DF Art. 15; Belém Art. 15), withdrawn — recolhida (DF Art. 54) or apprehended
   * (Belém Art. 59) — or cancelled (DF Art. 18; Belém Art. 8).
   */
  permitStatus: z.enum(['active', 'suspended', 'withdrawn', 'cancelled']).default('active'),
  /** Belém: a vehicle of the special-tariff cooperative service (Art. 36–37). */
  specialTariffService: z.boolean().default(false),
});

export const driverCreateSchema = z.object({
  id: id.optional(),
  name: text(),
  document: text(32).nullish(),
  licenceNumber: text(32).nullish(),
  operatorId: id.nullish(),
  status: status.default('active'),
  pack: packSchema.nullish(),
  /** DF: the driver's matrícula, revalidated yearly (Art. 14). */
  matriculaValidUntil: isoDate.nullish(),
  /** Belém: expiry of the union identification badge (crachá, Art. 23 §1; Art. 58 item 4.3). */
  badgeValidUntil: isoDate.nullish(),
});

export const deviceCreateSchema = z.object({
  id: id.optional(),
  vehicleId: id,
  protocol: z.string().trim().min(1).max(32).default('native'),
  identifier: text(64),
  profile: text(64).nullish(),
});

export const userCreateSchema = z.object({
  id: id.optional(),
  name: text(),
  role: z.enum(roles),
  operatorIds: z.array(id).max(100).default([]),
});

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(200).optional(),
  includeRetired: z.enum(['true', 'false']).optional(),
});

const placeSchema = z.object({
  /** Stable id of the place within the contract; defaults to its position in the list. */
  id: id.optional(),
  name: text(),
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  radiusM: z.number().positive().max(2000).default(50),
});

export const stopCreateSchema = z.object({
  id: id.optional(),
  name: text(),
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  source: text(64).default('manual'),
});

/**
 * A taxi stand (ponto): a polygon, or a point with a radius; `fixo` stands have holders. That a
 * Point has a radius (and a speed-limit zone a limit) is a table constraint, so PATCH keeps it too.
 */
export const standCreateSchema = z.object({
  id: id.optional(),
  pack: packSchema,
  name: text(),
  geometry: z.discriminatedUnion('type', [pointSchema, polygonSchema]),
  radiusM: z.number().positive().max(500).nullish(),
  places: z.number().int().min(1).max(500),
  kind: z.enum(['fixo', 'livre']),
  holderVehicleIds: z.array(id).max(500).default([]),
  holderOperatorIds: z.array(id).max(50).default([]),
});

export const zoneCreateSchema = z.object({
  id: id.optional(),
  pack: packSchema,
  kind: text(40),
  name: text(),
  geometry: areaSchema,
  speedLimitKmh: z.number().positive().max(200).nullish(),
});

export const contractCreateSchema = z.object({
  id: id.optional(),
  operatorId: id,
  kind: z.enum(['fretamento-continuo', 'fretamento-eventual']),
  vehicleIds: z.array(id).min(1).max(500),
  client: text().nullish(),
  route: lineStringSchema,
  boardingPlaces: z.array(placeSchema).max(200).default([]),
  alightingPlaces: z.array(placeSchema).max(200).default([]),
  /** When the service runs, in the pack's local time; `end` before `start` crosses midnight. */
  schedule: z
    .array(
      z.object({
        daysOfWeek: z.array(z.number().int().min(1).max(7)).max(7).default([]),
        dates: z.array(isoDate).max(366).default([]),
        start: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'HH:MM'),
        end: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'HH:MM'),
      }),
    )
    .min(1)
    .max(50),
  validFrom: isoDate,
  validUntil: isoDate.nullish(),
  /** SP Art. 24 II: the regulator's authorizations for listed vehicles registered to another operator. */
  otherCompanyAuthorizations: z
    .array(
      z.object({
        vehicleId: id,
        reference: text(64).nullish(),
        /** Last day (inclusive) the authorization is valid; absent = for the life of the contract. */
        validUntil: isoDate.nullish(),
      }),
    )
    .max(500)
    .default([]),
});

export const holidayCreateSchema = z.object({
  id: id.optional(),
  pack: packSchema,
  date: isoDate,
  name: text(),
  kind: z.enum(['add', 'remove']).default('add'),
});

export const unitValueCreateSchema = z.object({
  id: id.optional(),
  unit: z.enum(['ORTN', 'UPDF', 'UT', 'IPCA-E']),
  valueBrl: z.number().positive().max(1_000_000),
  validFrom: isoDate,
});
