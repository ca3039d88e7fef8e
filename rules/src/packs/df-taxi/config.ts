import { z } from 'zod';
import { generalConfigSchema } from '../../engine/general-config.js';
import { dfEscalationThresholdsSchema, recidivismConfigSchema } from '../../penalties/recidivism.js';
import { ruleIdsByPack } from '../../violations/rule-ids.js';
import { holidayConfigSchema } from '../common/holiday-config.js';
import { standPresenceConfigSchema } from '../common/stand-config.js';
import { tripDistanceConfigSchema } from '../common/taxi-trip.js';

const group = z.enum(['A', 'B', 'C', 'D']);
const groupOf = (def: z.infer<typeof group>, description: string) =>
  group.default(def).meta({ description, interpretation: true });
const percent = (letter: string) =>
  z
    .number()
    .positive()
    .nullable()
    .default(null)
    .meta({
      description: `Fine of a group-${letter} infraction, in % of the UPDF (Anexo I; not in the published text — set it from Anexo I). Null: the BRL amount is left blank.`,
      basis: 'Art. 51; Anexo I',
    });

/**
 * Configuration of the `df-taxi` pack (Distrito Federal taxi regulation, STx-DF). The text
 * fixes the Bandeira II hours and conditions, the 6-passenger limit, the 12-year age limit and
 * the tariff structure; Anexo I (groups and fines) is not in the published text, so each rule's
 * group and each group's fine are configuration.
 */
export const dfConfigSchema = z.object({
  general: generalConfigSchema.prefault({}),
  timeZone: z.string().default('America/Sao_Paulo').meta({ description: 'IANA time zone of Brasília.' }),
  disabledRules: z
    .array(z.enum(ruleIdsByPack['df-taxi']))
    .default([])
    .meta({ description: 'Rules of the pack switched off.' }),
  holidays: holidayConfigSchema({
    state: 'DF',
    fixed: [],
    fixedDescription: 'Fixed-date holidays added to date-holidays BR-DF (which already has 21 April and 30 November).',
  }).prefault({}),
  tripMaxGapS: z.number().positive().default(900).meta({
    description: 'A meter trip silent for longer than this (s) ends incomplete: no end-of-trip decision rests on it.',
    interpretation: true,
  }),
  tripDistance: tripDistanceConfigSchema.prefault({}),
  bandeira2: z
    .object({
      minStretchSeconds: z.number().positive().default(60).meta({
        description: 'A stretch of unjustified tariff 2 counts from this many seconds...',
        interpretation: true,
      }),
      minStretchMetres: z
        .number()
        .positive()
        .default(200)
        .meta({ description: '...or this many metres.', interpretation: true }),
      maxPassengersWithoutB2: z.number().int().min(0).default(3).meta({
        description: 'Tariff 2 is justified when more passengers than this are carried, children under 7 not counted.',
        basis: 'Art. 45 III g',
      }),
      airportCondition: z
        .enum(['origin-or-destination', 'origin-and-destination'])
        .default('origin-or-destination')
        .meta({
          description:
            'Art. 45 III d ("corridas cuja origem e destino sejam o aeroporto"): read as a trip that starts or ends at the airport.',
          interpretation: true,
          basis: 'Art. 45 III d',
        }),
      airportMarginM: z.number().min(0).default(100).meta({
        description: 'A trip starting or ending within this distance (m) of an airport zone counts as at the airport.',
        interpretation: true,
      }),
      provisionalAlerts: z.boolean().default(true).meta({
        description: 'Raise a provisional suspected alert during the trip (withdrawn if the trip ends at the airport).',
      }),
    })
    .prefault({}),
  capacity: z
    .object({
      maxPassengers: z
        .number()
        .int()
        .positive()
        .default(6)
        .meta({ description: 'Taxis carry at most 6 passengers.', basis: 'Art. 24' }),
      minMovingSeconds: z
        .number()
        .positive()
        .default(30)
        .meta({ description: 'Seconds of driving over capacity before it is a violation.', interpretation: true }),
    })
    .prefault({}),
  stands: standPresenceConfigSchema.prefault({}),
  rideWithoutMeter: z
    .object({
      minMetres: z
        .number()
        .positive()
        .default(1000)
        .meta({ description: 'Metres driven with passengers and the meter free/off.', interpretation: true }),
    })
    .prefault({}),
  meterBeforeRide: z
    .object({
      minMetres: z.number().positive().default(1000).meta({
        description:
          'DF_METER_BEFORE_RIDE: metres driven with the meter hired and the occupancy sensor showing nobody on board.',
        interpretation: true,
      }),
      maxSampleIntervalS: z.number().positive().default(15).meta({
        description:
          'DF_METER_BEFORE_RIDE: an interval between samples longer than this (s) may hide a boarding: the empty stretch restarts after it.',
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
      minStraightLineMetres: z.number().min(0).default(1000).meta({
        description: 'Trips whose ends are closer than this (round trips) are not judged.',
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
        .default(12)
        .meta({ description: 'Up to 12 years of manufacture.', basis: 'Art. 25' }),
      certificateAfterAgeYears: z.number().int().positive().default(8).meta({
        description:
          '"Após o 8° ano de fabricação" the mechanic\'s safety certificate is required: from an age (by calendar year) strictly above this.',
        interpretation: true,
        basis: 'Art. 25 §1',
      }),
    })
    .prefault({}),
  permit: z
    .object({
      graceDays: z.number().int().min(0).default(30).meta({
        description: 'Days after expiry a permit/matrícula may still be revalidated.',
        basis: 'Art. 14 §3; Art. 17 II',
      }),
    })
    .prefault({}),
  drivers: z
    .object({
      maxDriversAutonomous: z
        .number()
        .int()
        .positive()
        .default(2)
        .meta({ description: 'Drivers an autonomous permit may register.', basis: 'Art. 36' }),
    })
    .prefault({}),
  tariff: z
    .object({
      bandeiradaUt: z
        .number()
        .positive()
        .default(4)
        .meta({ description: 'Initial meter value in UT.', basis: 'Art. 45 I' }),
      kmB1Ut: z.number().positive().nullable().default(null).meta({
        description:
          'Price of a km at Bandeira I, in UT (set by tariff decree, not in the regulation). Null: DF_OVERCHARGE and the B2 overcharge estimate are off.',
      }),
      bandeira2Surcharge: z
        .number()
        .min(0)
        .default(0.5)
        .meta({ description: 'Bandeira II = Bandeira I + 50 %.', basis: 'Art. 45 III' }),
      waitingHourUt: z.number().positive().nullable().default(null).meta({
        description:
          'Price of an hour of *hora parada*, in UT (tariff decree; Art. 48 V). Null: trips with waiting time are not judged.',
      }),
      baggageMaxFraction: z.number().min(0).default(0.5).meta({
        description:
          'Baggage adds 10 % per extra volume, at most 50 % of the fare; telemetry does not see it, so it bounds the recomputed fare.',
        basis: 'Art. 45 IV',
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
        .meta({ description: 'Fare may exceed the recomputed one by this fraction...', interpretation: true }),
      toleranceCents: z
        .number()
        .int()
        .min(0)
        .default(100)
        .meta({ description: '...plus this many centavos before it is an overcharge.', interpretation: true }),
      possibleBaggage: z.enum(['suspected', 'ignore']).default('suspected').meta({
        description: 'A fare explained only by the maximum baggage allowance is reported as suspected (or ignored).',
        interpretation: true,
      }),
    })
    .prefault({}),
  groups: z
    .object({
      DF_BANDEIRA2_MISUSE: groupOf('C', 'Anexo I group of Bandeira II misuse.'),
      DF_OVER_CAPACITY: groupOf('B', 'Anexo I group of over capacity.'),
      DF_STAND_QUEUE_JUMP: groupOf('A', 'Anexo I group of jumping the stand queue.'),
      DF_RIDE_WITHOUT_METER: groupOf('B', 'Anexo I group of a ride without the meter.'),
      DF_DETOUR: groupOf('B', 'Anexo I group of a detour.'),
      DF_PERMIT_EXPIRED: groupOf('C', 'Anexo I group of operating with the permit/matrícula not revalidated.'),
      DF_UNREGISTERED_DRIVER: groupOf('C', 'Anexo I group of keeping an unregistered driver in service.'),
      DF_OVERCHARGE: groupOf('C', 'Anexo I group of charging above the tariff.'),
      DF_OPERATING_WHILE_SUSPENDED: groupOf(
        'C',
        'Anexo I group of operating while the permit or vehicle is suspended, withdrawn (recolhida) or cancelled.',
      ),
      DF_METER_BEFORE_RIDE: groupOf('B', 'Anexo I group of starting the meter before the ride began.'),
    })
    .prefault({}),
  groupUpdfPercent: z.object({ A: percent('A'), B: percent('B'), C: percent('C'), D: percent('D') }).prefault({}),
  escalation: dfEscalationThresholdsSchema
    .prefault({})
    .meta({ description: 'Art. 53 §1–5 thresholds within 2 years; Art. 56 clearing after 2 years.' }),
  recidivism: recidivismConfigSchema
    .extend({
      windowYears: z
        .number()
        .int()
        .positive()
        .default(2)
        .meta({ description: 'Recidivism window in calendar years.', basis: 'Art. 53' }),
    })
    .prefault({}),
});

export type DfConfig = z.output<typeof dfConfigSchema>;
export type DfConfigInput = z.input<typeof dfConfigSchema>;
export type DfGroupedRule = keyof DfConfig['groups'];
