import { z } from 'zod';
import { generalConfigSchema } from '../../engine/general-config.js';
import { recidivismConfigSchema } from '../../penalties/recidivism.js';
import { ruleIdsByPack } from '../../violations/rule-ids.js';
import { holidayConfigSchema } from '../common/holiday-config.js';
import { standPresenceConfigSchema } from '../common/stand-config.js';
import { tripDistanceConfigSchema } from '../common/taxi-trip.js';

const cents = (description: string) => z.number().int().positive().nullable().default(null).meta({ description });

/**
 * Configuration of the `belem-taxi` pack (Belém municipal taxi law). Art. 35 fixes the Bandeira 2
 * periods, Art. 3 I the 5-passenger limit, Art. 27–28 the 10-year age rule and Art. 58 the fine
 * groups (20/30/40/70 IPCA-E); the tariff itself is set by decree (Art. 34) and is configuration.
 */
export const belemConfigSchema = z.object({
  general: generalConfigSchema.prefault({}),
  timeZone: z
    .string()
    .default('America/Belem')
    .meta({ description: 'IANA time zone of Belém (UTC−03:00, no daylight saving).' }),
  disabledRules: z
    .array(z.enum(ruleIdsByPack['belem-taxi']))
    .default([])
    .meta({ description: 'Rules of the pack switched off.' }),
  holidays: holidayConfigSchema({
    state: 'PA',
    fixed: [
      { month: 1, day: 12, name: 'Aniversário de Belém' },
      { month: 12, day: 8, name: 'Nossa Senhora da Conceição' },
    ],
    fixedDescription:
      "Belém's municipal holidays, which date-holidays (no Belém region) lacks: 12 January (founding of the city) and 8 December.",
  }).prefault({}),
  tripMaxGapS: z
    .number()
    .positive()
    .default(900)
    .meta({ description: 'A meter trip silent for longer than this (s) ends incomplete.', interpretation: true }),
  tripDistance: tripDistanceConfigSchema.prefault({}),
  bandeira2: z
    .object({
      minStretchSeconds: z.number().positive().default(60).meta({
        description: 'A stretch of tariff 2 outside the periods counts from this many seconds...',
        interpretation: true,
      }),
      minStretchMetres: z
        .number()
        .positive()
        .default(200)
        .meta({ description: '...or this many metres.', interpretation: true }),
      saturdayIsWorkingDay: z.boolean().default(true).meta({
        description:
          'Saturday is a dia útil for Art. 35 I a/c (clause b singles out Saturday from 12:00). Matters only after a Friday holiday: then clause c ends at 06:00 on Saturday.',
        interpretation: true,
        basis: 'Art. 35 I',
      }),
      decemberUnrestricted: z
        .boolean()
        .default(true)
        .meta({ description: 'Bandeira 2 at any time in December.', basis: 'Art. 35 I d' }),
    })
    .prefault({}),
  capacity: z
    .object({
      maxPassengers: z
        .number()
        .int()
        .positive()
        .default(5)
        .meta({ description: 'A taxi carries at most 5 passengers.', basis: 'Art. 3 I' }),
      minMovingSeconds: z
        .number()
        .positive()
        .default(30)
        .meta({ description: 'Seconds of driving over capacity.', interpretation: true }),
    })
    .prefault({}),
  stands: standPresenceConfigSchema
    .extend({
      unauthorizedMinWaitS: z.number().positive().default(120).meta({
        description: 'Seconds a free taxi waits at a ponto fixo it holds no place at before BEL_STAND_UNAUTHORIZED.',
        interpretation: true,
      }),
      overflowMinStayS: z.number().positive().default(60).meta({
        description:
          'A taxi waits at a ponto livre once it has stood there this long (s) with the meter free (a hired taxi dropping a passenger off is not waiting). A taxi that starts waiting while as many taxis as the stand has places are already waiting is flagged (BEL_STAND_OVERFLOW).',
        interpretation: true,
      }),
      unauthorizedGroup: z.enum(['I', 'II', 'III', 'IV']).default('I').meta({
        description:
          'Art. 58 group for waiting at a ponto fixo without a place (the law lists no item for it; item 1.5 is the nearest).',
        interpretation: true,
      }),
    })
    .prefault({}),
  detour: z
    .object({
      maxRatio: z.number().positive().default(1.8).meta({
        description: 'Trip distance over straight line above which a trip is a detour...',
        interpretation: true,
      }),
      minExtraMetres: z
        .number()
        .positive()
        .default(3000)
        .meta({ description: '...when also this many metres longer.', interpretation: true }),
      minStraightLineMetres: z
        .number()
        .min(0)
        .default(1000)
        .meta({ description: 'Round trips shorter than this end to end are not judged.', interpretation: true }),
    })
    .prefault({}),
  speed: z
    .object({
      limitKmh: z.number().positive().default(60).meta({
        description:
          'Default speed limit (km/h) for item 2.5 where no speed-limit zone contains the position (the CTB limit of an urban arterial road); a zone sets its own limit, higher or lower.',
        interpretation: true,
      }),
      minSeconds: z
        .number()
        .positive()
        .default(20)
        .meta({ description: 'Seconds above the limit.', interpretation: true }),
      toleranceKmh: z.number().min(0).default(7).meta({
        description:
          'Measurement tolerance added to limits up to tolerancePercentAboveKmh (km/h): speed enforcement allows 7 km/h.',
        interpretation: true,
      }),
      tolerancePercent: z.number().min(0).default(7).meta({
        description: 'Measurement tolerance (percent of the limit) added to higher limits.',
        interpretation: true,
      }),
      tolerancePercentAboveKmh: z.number().positive().default(100).meta({
        description: 'Limits above this (km/h) take the percentage tolerance instead of toleranceKmh.',
        interpretation: true,
      }),
    })
    .prefault({}),
  vehicleAge: z
    .object({
      maxAgeYears: z
        .number()
        .int()
        .positive()
        .default(10)
        .meta({ description: 'Age limit, counted to 31 December of the model year.', basis: 'Art. 27' }),
    })
    .prefault({}),
  suspension: z
    .object({
      group: z.enum(['I', 'II', 'III', 'IV']).default('IV').meta({
        description:
          'Art. 58 group of BEL_OPERATING_WHILE_SUSPENDED (operating while the authorization is suspended, recolhida, apprehended or cancelled): the law lists no item for it; group IV is that of item 4.2 (operating without a valid D.I.V.).',
        interpretation: true,
      }),
    })
    .prefault({}),
  unregisteredDriver: z
    .object({
      noBadgeOnRecord: z.enum(['ignore', 'suspected']).default('ignore').meta({
        description:
          'BEL_UNREGISTERED_DRIVER for a registered driver with no badge (crachá) validity on record: a registry that does not track badges says nothing about them (ignore), or report it as suspected for a reviewer to check the badge.',
        interpretation: true,
      }),
    })
    .prefault({}),
  standAbandoned: z
    .object({
      minSeconds: z.number().positive().default(7200).meta({
        description:
          'BEL_STAND_ABANDONED (item 1.1): seconds a taxi stays at a stand with the ignition off, the meter off and no driver identified before it counts as abandoned.',
        interpretation: true,
      }),
      maxReportGapS: z.number().positive().default(600).meta({
        description:
          'A parked tracker reports seldom: silences up to this long (s) between its samples do not break the stay (at most general.idleCloseS, when the engine closes a silent vehicle).',
        interpretation: true,
      }),
    })
    .prefault({}),
  specialTariff: z
    .object({
      maxAgeYears: z.number().int().positive().default(7).meta({
        description:
          'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD: a vehicle of the special-tariff cooperative service has at most this many years of manufacture.',
        basis: 'Art. 37',
      }),
      ageCounting: z.enum(['art-27-model-year', 'manufacture-year']).default('art-27-model-year').meta({
        description:
          'How the age of Art. 37 is counted: as Art. 27 sole paragraph counts it (one year more every 31 December from the model year) or by calendar year from the year of manufacture.',
        interpretation: true,
      }),
    })
    .prefault({}),
  tariff: z
    .object({
      bandeiradaCents: cents(
        'Bandeirada (initial value) in centavos, from the tariff decree (Art. 34). Null: BEL_OVERCHARGE is off.',
      ),
      kmB1Cents: cents('Price of a km at Bandeira 1, centavos.'),
      kmB2Cents: cents('Price of a km at Bandeira 2, centavos.'),
      waitingHourCents: cents('Price of an hour of waiting, centavos. Null: trips with waiting time are not judged.'),
      baggageMaxFraction: z.number().min(0).default(0).meta({
        description: 'Allowance for big-volume charges of the planilha (Art. 34 §2), as a fraction of the fare.',
        interpretation: true,
      }),
    })
    .prefault({}),
  overcharge: z
    .object({
      maxSampleIntervalS: z.number().positive().default(15).meta({
        description:
          'A trip is priced only if no two consecutive samples are further apart than this (s): the distance between samples is a chord, shorter than the road.',
        interpretation: true,
      }),
      toleranceFraction: z
        .number()
        .min(0)
        .default(0.1)
        .meta({ description: 'Tolerated excess over the recomputed fare (fraction)...', interpretation: true }),
      toleranceCents: z
        .number()
        .int()
        .min(0)
        .default(100)
        .meta({ description: '...plus centavos.', interpretation: true }),
      possibleBaggage: z
        .enum(['suspected', 'ignore'])
        .default('suspected')
        .meta({ description: 'Fares explained only by the baggage allowance.', interpretation: true }),
    })
    .prefault({}),
  recidivism: recidivismConfigSchema
    .extend({
      windowYears: z
        .number()
        .int()
        .positive()
        .default(1)
        .meta({ description: 'Window for the group counts (the law sets none).', interpretation: true }),
    })
    .prefault({}),
});

export type BelemConfig = z.output<typeof belemConfigSchema>;
export type BelemConfigInput = z.input<typeof belemConfigSchema>;
