import { packSchema, serviceTypeSchema } from '@vigia/core';
import { z } from 'zod';
import { areaGeometrySchema, lineStringSchema, pointSchema, polygonSchema } from '../geo/geojson.js';
import { parseLocalDate } from '../time/local-time.js';

/**
 * The reference data the rules read, as record types with their zod schemas. Every record is
 * versioned in time: a version is in force over `[validFrom, validTo)` (`validTo` null = still
 * current), and every lookup takes the instant of the sample, so an event is judged against the
 * registry as it was when it happened. Retiring a record (API `DELETE`) closes its last version;
 * it does not erase it — FRET_UNREGISTERED_VEHICLE needs the history to say "withdrawn".
 *
 * Day-precision facts (permit validity, inspection date, D.I.V.) are local calendar dates
 * `YYYY-MM-DD` in the pack's time zone, the way the documents print them; "valid until" is
 * inclusive (a permit valid until 2026-03-31 may operate all of 31 March).
 */

const instantSchema = z.union([z.date(), z.iso.datetime({ offset: true }).transform((s) => new Date(s))]);

export const localDateSchema = z.string().refine((s) => {
  try {
    parseLocalDate(s);
    return true;
  } catch {
    return false;
  }
}, 'expected a calendar date YYYY-MM-DD');

const clockSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'expected HH:MM');

/** Valid since the beginning of time unless told otherwise: reference data loaded without history. */
const EPOCH = new Date(0);

const versioned = {
  validFrom: instantSchema.default(EPOCH),
  validTo: instantSchema.nullable().default(null),
};

export const vehicleStatuses = ['active', 'suspended', 'withdrawn'] as const;
export const permitStatuses = ['active', 'suspended', 'withdrawn', 'cancelled'] as const;
export type PermitStatus = (typeof permitStatuses)[number];

export const vehicleRecordSchema = z.object({
  id: z.string().min(1),
  plate: z.string().min(1),
  pack: packSchema,
  serviceType: serviceTypeSchema,
  /**
   * Registered capacity in passenger places, the driver never included: passengers (taxis) or
   * coach seats (charter buses, SP Art. 16 sole paragraph). A car whose CRLV *lotação* is 5
   * (driver included) is a taxi of capacity 4. Compared with telemetry `passengers`, which never
   * counts the driver either.
   */
  capacity: z.number().int().min(1),
  /** Year of manufacture from the CRLV (DF Art. 25 §2). */
  manufactureYear: z.number().int().min(1900).max(2100),
  /** Model year from the CRLV; Belém counts age from it (Art. 27 sole paragraph). Null = manufacture year. */
  modelYear: z.number().int().min(1900).max(2100).nullable().default(null),
  make: z.string().nullable().default(null),
  colour: z.string().nullable().default(null),
  operatorId: z.string().nullable(),
  /** Permit (DF), authorization (Belém) or registration (SP) number. */
  permitNumber: z.string().nullable().default(null),
  /** DF Art. 36: an autonomous permit holder may register at most two drivers. */
  permitKind: z.enum(['autonomous', 'company']).nullable().default(null),
  /** DF: yearly revalidation of the permit (Art. 14). */
  permitValidUntil: localDateSchema.nullable().default(null),
  /** SP: date of the last *vistoria* (inspection, Art. 17). */
  lastInspectionDate: localDateSchema.nullable().default(null),
  /** SP: expiry printed on the inspection certificate, when the registry has it (overrides the Art. 17 period). */
  inspectionValidUntil: localDateSchema.nullable().default(null),
  /** Belém: D.I.V. (*Documento de Identificação do Veículo*, the yearly traffic authorization, Art. 30–31). */
  divValidUntil: localDateSchema.nullable().default(null),
  /** DF: mechanic's safety certificate required after the 8th year of manufacture (Art. 25 §1). */
  safetyCertificateValidUntil: localDateSchema.nullable().default(null),
  /** Belém: 6-month circulation extension after inspection for a taxi past 10 years (Art. 28 II). */
  ageExtensionValidUntil: localDateSchema.nullable().default(null),
  driverIds: z.array(z.string()).default([]),
  status: z.enum(vehicleStatuses),
  /**
   * State of the permit (DF), authorization (Belém) or registration (SP) the vehicle runs under:
   * `suspended` (DF Art. 15 interruption; Belém Art. 3 IX / Art. 15 *recolhimento*), `withdrawn`
   * (DF Art. 54 *recolhimento* of the permit; Belém Art. 59 vehicle apprehended) or `cancelled`
   * (DF Art. 17–18; Belém Art. 8 *cassação*). Read by DF/BEL_OPERATING_WHILE_SUSPENDED.
   */
  permitStatus: z.enum(permitStatuses).default('active'),
  /** Belém: a cooperative vehicle of the special-tariff service (*transporte especial*, Art. 36–37). */
  specialTariffService: z.boolean().default(false),
  /** The vehicle's tracker reads the tachograph: missing tachograph data is then a measured fact. */
  tachographLinked: z.boolean().default(false),
  ...versioned,
});
export type VehicleRecord = z.output<typeof vehicleRecordSchema>;

export const operatorKinds = [
  'charter-company',
  'private-fleet',
  'taxi-company',
  'taxi-autonomous',
  'cooperative',
  'association',
  'radio-operator',
] as const;

export const operatorRecordSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  pack: packSchema,
  kind: z.enum(operatorKinds),
  /**
   * CPF (a person: a DF autonomous permit holder, a Belém autorizatário) or CNPJ (a company). A
   * driver record with the same document is the same person: the holder of an autonomous permit
   * drives on it without being listed among its drivers (DF Art. 36).
   */
  document: z.string().nullable().default(null),
  status: z.enum(['authorized', 'suspended', 'revoked']),
  /** SP: the registration certificate is valid for 5 years (Art. 7 §3). */
  registrationValidUntil: localDateSchema.nullable().default(null),
  /** Belém radio operators: credential, revalidated with the ANATEL authorization (Art. 42–43). */
  credentialValidUntil: localDateSchema.nullable().default(null),
  /** Belém radio operators: vehicles declared to the regulator (Art. 44 I). */
  declaredVehicleIds: z.array(z.string()).default([]),
  ...versioned,
});
export type OperatorRecord = z.output<typeof operatorRecordSchema>;

export const driverRecordSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  pack: packSchema,
  /** CPF: matches the `document` of the operator a permit holder is registered as (DF Art. 36). */
  document: z.string().nullable().default(null),
  /** DF: the driver's *matrícula*, revalidated yearly (Art. 14). */
  matriculaValidUntil: localDateSchema.nullable().default(null),
  /** `withdrawn`: the regulator required the driver's removal (SP Art. 23 II). */
  status: z.enum(vehicleStatuses).default('active'),
  /** The driver's employer (SP Art. 12 sole paragraph: a *serviço particular* bus is driven by an employee). */
  operatorId: z.string().nullable().default(null),
  /** Belém: expiry of the union identification badge (*crachá*, Art. 3 II, Art. 23 §1; item 4.3). */
  badgeValidUntil: localDateSchema.nullable().default(null),
  ...versioned,
});
export type DriverRecord = z.output<typeof driverRecordSchema>;

export const stopRecordSchema = z.object({
  /** GTFS `stop_id`. */
  id: z.string().min(1),
  name: z.string(),
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  /** Where the stop comes from, e.g. `sptrans-gtfs-2026-01-31`. */
  source: z.string().default('gtfs'),
  ...versioned,
});
export type StopRecord = z.output<typeof stopRecordSchema>;

export const standRecordSchema = z
  .object({
    id: z.string().min(1),
    pack: packSchema,
    name: z.string(),
    geometry: z.discriminatedUnion('type', [polygonSchema, pointSchema]),
    /** Radius around a Point geometry. */
    radiusM: z.number().positive().nullable().default(null),
    /** Number of places (*vagas*). */
    places: z.number().int().min(1),
    /** *ponto fixo* (only holders of a place) or *ponto livre* (any taxi, up to the places), Belém Art. 3 XIV. */
    kind: z.enum(['fixo', 'livre']),
    holderVehicleIds: z.array(z.string()).default([]),
    /** Cooperatives / radio-taxi / associations holding a *ponto fixo* (Art. 3 XIV a, sole paragraph). */
    holderOperatorIds: z.array(z.string()).default([]),
    ...versioned,
  })
  .refine((s) => s.geometry.type !== 'Point' || s.radiusM !== null, {
    message: 'a Point stand needs radiusM',
    path: ['radiusM'],
  });
export type StandRecord = z.output<typeof standRecordSchema>;

export const zoneKinds = ['airport', 'unpaved', 'bandeira2-signed', 'speed-limit'] as const;
export type ZoneKind = (typeof zoneKinds)[number];

export const zoneRecordSchema = z
  .object({
    id: z.string().min(1),
    pack: packSchema,
    kind: z.enum(zoneKinds),
    name: z.string(),
    geometry: areaGeometrySchema,
    speedLimitKmh: z.number().positive().nullable().default(null),
    ...versioned,
  })
  .refine((zone) => zone.kind !== 'speed-limit' || zone.speedLimitKmh !== null, {
    message: 'a speed-limit zone needs speedLimitKmh',
    path: ['speedLimitKmh'],
  });
export type ZoneRecord = z.output<typeof zoneRecordSchema>;

const placeSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  radiusM: z.number().positive().default(50),
});
export type DeclaredPlace = z.output<typeof placeSchema>;

/**
 * When a contracted service runs, in the pack's local time. `end` before `start` crosses midnight.
 * A window applies on the ISO weekdays listed (1 = Monday) and/or on the dates listed (a
 * *fretamento eventual* is one trip on one date, Art. 11).
 */
export const scheduleWindowSchema = z
  .object({
    daysOfWeek: z.array(z.number().int().min(1).max(7)).default([]),
    dates: z.array(localDateSchema).default([]),
    start: clockSchema,
    end: clockSchema,
  })
  .refine((w) => w.daysOfWeek.length > 0 || w.dates.length > 0, 'a schedule window needs daysOfWeek or dates');
export type ScheduleWindow = z.output<typeof scheduleWindowSchema>;

export const otherCompanyAuthorizationSchema = z.object({
  vehicleId: z.string().min(1),
  reference: z.string().nullable().default(null),
  validUntil: localDateSchema.nullable().default(null),
});
export type OtherCompanyAuthorization = z.output<typeof otherCompanyAuthorizationSchema>;

export const contractRecordSchema = z.object({
  id: z.string().min(1),
  pack: z.literal('sp-fretamento'),
  operatorId: z.string().min(1),
  /** *fretamento contínuo* (Art. 10) or *eventual* (Art. 11). */
  kind: z.enum(['continuo', 'eventual']),
  client: z.string().nullable().default(null),
  vehicleIds: z.array(z.string()).min(1),
  /** The declared itinerary (*roteiro*, Art. 20). */
  route: lineStringSchema,
  /** Declared boarding and alighting places (Art. 10 §2 item 3, Art. 11 §2 item 3). */
  boardingPlaces: z.array(placeSchema).default([]),
  alightingPlaces: z.array(placeSchema).default([]),
  schedule: z.array(scheduleWindowSchema).min(1),
  /**
   * The regulator's authorizations for listed vehicles registered to another operator (SP Art. 24
   * II); `validUntil` null = for the life of the contract, else a local date, inclusive.
   */
  otherCompanyAuthorizations: z.array(otherCompanyAuthorizationSchema).default([]),
  /**
   * Last day of the contract (local date, inclusive; the API's `validUntil`); null = open-ended.
   * The version history says when the record changed; this says until when the contract binds.
   */
  validUntil: localDateSchema.nullable().default(null),
  ...versioned,
});
export type ContractRecord = z.output<typeof contractRecordSchema>;

export const fineUnits = ['ORTN', 'UPDF', 'UT', 'IPCA-E'] as const;
export type FineUnit = (typeof fineUnits)[number];

/**
 * The BRL value of a unit from a date on: ORTN (extinct in 1986; its conversion is a regulator's
 * decision), UPDF (DF), UT (DF *Unidade Taximétrica*, the meter's unit), IPCA-E (the amount Belém
 * uses per unit of fine, Art. 57). `pack` null = the value applies to every pack.
 */
export const unitValueRecordSchema = z.object({
  unit: z.enum(fineUnits),
  pack: packSchema.nullable().default(null),
  validFrom: localDateSchema,
  valueBrl: z.number().positive(),
  source: z.string().nullable().default(null),
});
export type UnitValueRecord = z.output<typeof unitValueRecordSchema>;

/** A municipal or state decree adding a holiday (or cancelling one) for one pack on one date. */
export const holidayOverrideRecordSchema = z.object({
  pack: packSchema,
  date: localDateSchema,
  name: z.string().min(1),
  action: z.enum(['add', 'remove']),
});
export type HolidayOverrideRecord = z.output<typeof holidayOverrideRecordSchema>;

export const registryRecordsSchema = z.object({
  vehicles: z.array(vehicleRecordSchema).default([]),
  operators: z.array(operatorRecordSchema).default([]),
  drivers: z.array(driverRecordSchema).default([]),
  stops: z.array(stopRecordSchema).default([]),
  stands: z.array(standRecordSchema).default([]),
  zones: z.array(zoneRecordSchema).default([]),
  contracts: z.array(contractRecordSchema).default([]),
  unitValues: z.array(unitValueRecordSchema).default([]),
  holidayOverrides: z.array(holidayOverrideRecordSchema).default([]),
});
/** What a registry is built from (dates may be ISO strings; optional fields may be left out). */
export type RegistryRecordsInput = z.input<typeof registryRecordsSchema>;
export type RegistryRecords = z.output<typeof registryRecordsSchema>;

/** Is a record version in force at `ms`? */
export function inForce(record: { validFrom: Date; validTo: Date | null }, ms: number): boolean {
  return record.validFrom.getTime() <= ms && (record.validTo === null || ms < record.validTo.getTime());
}
