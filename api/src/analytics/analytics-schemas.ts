import { z } from 'zod';

/**
 * The analytics API (issue 11 item 5): the query and answer of every `/v1/analytics/...` route,
 * the one source of their types (the dashboard pages code against these). What each figure means
 * and on which article it rests: api/src/analytics/README.md.
 *
 * Periods are LOCAL days and hours in the pack's legal time zone (`timeZone` in each answer):
 * `from` and `to` are local dates (`YYYY-MM-DD`, both included), a day is `YYYY-MM-DD`, an hour
 * `YYYY-MM-DDTHH:00`, a month `YYYY-MM`; `start` is the instant the period starts (ISO, UTC).
 * Durations are seconds, distances metres, shares 0..1 (null where the denominator is 0).
 */

/** The longest period one analytics query covers (a year, leap or not). */
export const ANALYTICS_MAX_DAYS = 366;
/** The longest period of an hour-by-hour occupancy series (a month of hours: 744 rows). */
export const ANALYTICS_MAX_HOURLY_DAYS = 31;
/** DF Art. 6 sole paragraph: the occupancy index is surveyed over at least 5 % of the fleet. */
export const OCCUPANCY_MIN_SAMPLE_SHARE = 0.05;
/** Belém Art. 5 §6 and Art. 65: one taxi per 500 inhabitants. */
export const INHABITANTS_PER_TAXI = 500;
/** Belém Art. 6 sole paragraph, DF Art. 10 sole paragraph: legal persons hold at most 10 % of the authorizations. */
export const LEGAL_PERSON_CAP_SHARE = 0.1;

export const localDateSchema = z.iso.date();
export const analyticsIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'an id');
export const taxiPackSchema = z.enum(['df-taxi', 'belem-taxi']);
export type TaxiPack = z.infer<typeof taxiPackSchema>;
/** `format=csv` answers the same figures as CSV (or `Accept: text/csv`); `lang` picks the CSV headers' language. */
const output = {
  format: z.enum(['json', 'csv']).optional(),
  lang: z.enum(['pt-BR', 'en']).default('pt-BR'),
};
/** `from`/`to`: local dates, both included; default the 30 local days up to today. */
const period = { from: localDateSchema.optional(), to: localDateSchema.optional() };

// ---------------------------------------------------------------- queries

/** `GET /v1/analytics/occupancy?pack=&from=&to=&by=` */
export const occupancyQuerySchema = z
  .object({ pack: taxiPackSchema.default('df-taxi'), by: z.enum(['day', 'hour']).default('day'), ...period, ...output })
  .strict();
/** `GET /v1/analytics/fleet-sizing?from=&to=` (Belém). */
export const fleetSizingQuerySchema = z.object({ ...period, ...output }).strict();
/** `GET /v1/analytics/authorization-shares?pack=` (the registry as it is now: no period). */
export const authorizationSharesQuerySchema = z
  .object({ pack: taxiPackSchema.default('belem-taxi'), ...output })
  .strict();
/** `GET /v1/analytics/operators/:id?from=&to=` and `GET /v1/analytics/vehicles/:id?from=&to=` */
export const recordQuerySchema = z.object({ ...period, ...output }).strict();
export const recordParamsSchema = z.object({ id: analyticsIdSchema }).strict();
/** `GET /v1/analytics/violation-heat?pack=&ruleId=&from=&to=&resolution=` */
export const violationHeatQuerySchema = z
  .object({
    pack: z.enum(['df-taxi', 'belem-taxi', 'sp-fretamento']).default('df-taxi'),
    /** One rule (e.g. `DF_STAND_QUEUE_JUMP`); absent: every rule of the pack. */
    ruleId: z
      .string()
      .min(1)
      .max(80)
      .regex(/^[A-Za-z0-9_.:-]+$/, 'a rule id')
      .optional(),
    /** H3 resolution of the cells: 7 (≈ 5 km²), 8 (≈ 0.7 km², default), 9 (≈ 0.1 km²). */
    resolution: z.coerce.number().int().min(5).max(10).default(8),
    ...period,
    ...output,
  })
  .strict();

// ---------------------------------------------------------------- answers

const share = z.number().min(0).max(1).nullable();
const seconds = z.number().min(0);

/** The period every answer echoes: local dates (inclusive) in `timeZone`, and the instants they span. */
const periodEcho = {
  timeZone: z.string(),
  from: localDateSchema,
  to: localDateSchema,
  /** The instant `from` starts and the instant after `to` ends (ISO, UTC). */
  fromInstant: z.iso.datetime(),
  toInstant: z.iso.datetime(),
};

/** The occupancy figures of one period (or of the whole range). */
export const occupancyFiguresSchema = z.object({
  /** Vehicles of the pack's taxi fleet with at least one sample in the period. */
  sampledVehicles: z.number().int().min(0),
  /** sampledVehicles / fleet (null: no fleet). */
  sampleShare: share,
  /** sampleShare ≥ 0.05 (DF Art. 6 sole paragraph): the period's index is a valid survey. */
  sampleSufficient: z.boolean(),
  /** Seconds observed (between consecutive samples at most 5 min apart), summed over the sampled vehicles. */
  observedS: seconds,
  /** Of those, seconds with the meter hired (ocupado). */
  hiredS: seconds,
  /** hiredS / observedS: the occupancy index by time. */
  timeShare: share,
  distanceM: z.number().min(0),
  hiredDistanceM: z.number().min(0),
  /** hiredDistanceM / distanceM: the occupancy index by distance. */
  distanceShare: share,
});
export type OccupancyFigures = z.infer<typeof occupancyFiguresSchema>;

export const occupancyPeriodSchema = occupancyFiguresSchema.extend({
  /** Local day `YYYY-MM-DD` (by=day) or local hour `YYYY-MM-DDTHH:00` (by=hour). */
  period: z.string(),
  start: z.iso.datetime(),
});
export type OccupancyPeriod = z.infer<typeof occupancyPeriodSchema>;

export const occupancyResponseSchema = z.object({
  pack: taxiPackSchema,
  by: z.enum(['day', 'hour']),
  ...periodEcho,
  legalBasis: z.array(z.string()),
  /** 0.05 */
  minSampleShare: z.number(),
  /** Taxis of the pack in the registry now: active, not retired, service type taxi. */
  fleet: z.number().int().min(0),
  /** Every day (or hour) of the range, in order, including those without data (zeros, sampleSufficient false). */
  periods: z.array(occupancyPeriodSchema),
  /** Over the whole range (sampledVehicles: distinct vehicles seen in it). */
  totals: occupancyFiguresSchema,
});
export type OccupancyResponse = z.infer<typeof occupancyResponseSchema>;

export const fleetSizingResponseSchema = z.object({
  pack: z.literal('belem-taxi'),
  ...periodEcho,
  legalBasis: z.array(z.string()),
  /** BELEM_POPULATION (default 1 303 403: IBGE, Censo Demográfico 2022, Belém). */
  population: z.number().int().positive(),
  populationSource: z.string(),
  /** 500 */
  inhabitantsPerTaxi: z.number(),
  /** floor(population / 500): the fleet the law allows. */
  allowedTaxis: z.number().int().min(0),
  /** Taxis authorized on `to`: active, not retired, service type taxi, with a permit valid that day (or no expiry recorded). */
  authorizedTaxis: z.number().int().min(0),
  /** Of the authorized taxis, those with at least one sample in the period (in service). */
  activeTaxis: z.number().int().min(0),
  /** population / authorizedTaxis (null: none authorized). */
  inhabitantsPerAuthorizedTaxi: z.number().nullable(),
  /** population / activeTaxis (null: none active). */
  inhabitantsPerActiveTaxi: z.number().nullable(),
  /** authorizedTaxis − allowedTaxis (negative: room for new authorizations). */
  surplus: z.number().int(),
  /** authorizedTaxis > allowedTaxis: no new authorizations (Art. 5 §6 sole paragraph). */
  overLimit: z.boolean(),
});
export type FleetSizingResponse = z.infer<typeof fleetSizingResponseSchema>;

export const authorizationShareSchema = z.object({
  operatorId: z.string(),
  name: z.string(),
  kind: z.enum(['company', 'cooperative', 'permit-holder', 'radio-operator']),
  /** A legal person holding authorizations itself (kind company): counts toward the 10 % cap. */
  legalPerson: z.boolean(),
  authorizations: z.number().int().min(0),
  /** authorizations / totalAuthorizations */
  share: share,
  /** A legal person whose share alone is above the cap. */
  overCap: z.boolean(),
});
export type AuthorizationShare = z.infer<typeof authorizationShareSchema>;

export const authorizationSharesResponseSchema = z.object({
  pack: taxiPackSchema,
  timeZone: z.string(),
  /** The instant the registry was read (ISO). */
  asOf: z.iso.datetime(),
  legalBasis: z.array(z.string()),
  /** 0.1 */
  capShare: z.number(),
  /** Taxis of the pack authorized now (active, not retired, service type taxi, permit not expired). */
  totalAuthorizations: z.number().int().min(0),
  /** Every legal person together: the figure the law caps. */
  legalPersons: z.object({
    authorizations: z.number().int().min(0),
    share: share,
    overCap: z.boolean(),
  }),
  /** Taxis without an operator are counted in the total but listed nowhere. Ordered by authorizations, most first. */
  operators: z.array(authorizationShareSchema),
});
export type AuthorizationSharesResponse = z.infer<typeof authorizationSharesResponseSchema>;

/** Activity figures of one month (or of the whole range), from the hourly per-vehicle aggregate. */
export const activityFiguresSchema = z.object({
  observedS: seconds,
  /** Seconds with the ignition on (where the device reports no ignition: moving). The "hours driven". */
  drivenS: seconds,
  /** Seconds at ≥ 5 km/h. */
  movingS: seconds,
  hiredS: seconds,
  /** Of hiredS, seconds on Bandeira II (tariff 2). */
  bandeira2HiredS: seconds,
  /** bandeira2HiredS / hiredS */
  bandeira2Share: share,
  distanceM: z.number().min(0),
  hiredDistanceM: z.number().min(0),
  bandeira2HiredDistanceM: z.number().min(0),
});
export type ActivityFigures = z.infer<typeof activityFiguresSchema>;

export const activityMonthSchema = activityFiguresSchema.extend({ month: z.string() });
export type ActivityMonth = z.infer<typeof activityMonthSchema>;

export const violationCountSchema = z.object({
  /** Local month `YYYY-MM` the violation started in. */
  month: z.string(),
  ruleId: z.string(),
  count: z.number().int().min(1),
});
export type ViolationCount = z.infer<typeof violationCountSchema>;

/** Stand waiting times: completed visits to a stand's legal queue (see README "Stand waiting times"). */
export const standWaitFiguresSchema = z.object({
  visits: z.number().int().min(0),
  /** Visits that ended with the taxi hired (meter hired, or passengers aboard, when it left the queue). */
  leftHired: z.number().int().min(0),
  /** Seconds from entering the stand to leaving its queue (null: no visit). */
  meanWaitS: z.number().nullable(),
  medianWaitS: z.number().nullable(),
  p90WaitS: z.number().nullable(),
});
export type StandWaitFigures = z.infer<typeof standWaitFiguresSchema>;

export const standWaitSchema = standWaitFiguresSchema.extend({ standId: z.string(), name: z.string() });
export type StandWait = z.infer<typeof standWaitSchema>;

/** Shared by the operator and the vehicle page. */
const recordBody = {
  ...periodEcho,
  /** Every local month of the range with activity, in order. */
  months: z.array(activityMonthSchema),
  totals: activityFiguresSchema,
  /** Violations (not dismissed) by local month of start and rule, months in order. */
  violations: z.array(violationCountSchema),
  standWaits: z.object({ totals: standWaitFiguresSchema, byStand: z.array(standWaitSchema) }),
};

export const operatorAnalyticsResponseSchema = z.object({
  operatorId: z.string(),
  name: z.string(),
  pack: z.string(),
  /** Vehicles of the operator in the registry (not retired). */
  vehicles: z.number().int().min(0),
  ...recordBody,
});
export type OperatorAnalyticsResponse = z.infer<typeof operatorAnalyticsResponseSchema>;

export const vehicleAnalyticsResponseSchema = z.object({
  vehicleId: z.string(),
  plate: z.string(),
  operatorId: z.string().nullable(),
  pack: z.string(),
  ...recordBody,
});
export type VehicleAnalyticsResponse = z.infer<typeof vehicleAnalyticsResponseSchema>;

export const heatCellSchema = z.object({
  /** H3 cell index at `resolution`. */
  h3: z.string(),
  /** The cell's centre. */
  lat: z.number(),
  lon: z.number(),
  count: z.number().int().min(1),
});
export type HeatCell = z.infer<typeof heatCellSchema>;

export const violationHeatResponseSchema = z.object({
  pack: z.string(),
  ruleId: z.string().nullable(),
  resolution: z.number().int(),
  ...periodEcho,
  /** Violations (not dismissed, with a position) started in the range. */
  total: z.number().int().min(0),
  /** Cells with at least one violation, most first. */
  cells: z.array(heatCellSchema),
  /** The pack's rules with at least one violation in the range (for a rule picker), with their counts. */
  rules: z.array(z.object({ ruleId: z.string(), count: z.number().int().min(1) })),
});
export type ViolationHeatResponse = z.infer<typeof violationHeatResponseSchema>;
