import { z } from 'zod';
import { generalConfigSchema } from '../../engine/general-config.js';
import { spRecidivismConfigSchema } from '../../penalties/recidivism.js';
import { ruleIdsByPack } from '../../violations/rule-ids.js';
import { holidayConfigSchema } from '../common/holiday-config.js';

/**
 * Configuration of the `sp-fretamento` pack (São Paulo State charter-bus decree). Values the
 * decree fixes carry their article in `basis`; values it does not fix are marked
 * `interpretation: true` — a regulator may change any of them.
 */
export const spConfigSchema = z.object({
  general: generalConfigSchema.prefault({}),
  timeZone: z
    .string()
    .default('America/Sao_Paulo')
    .meta({ description: 'IANA time zone of the pack (all time rules use local time).' }),
  disabledRules: z
    .array(z.enum(ruleIdsByPack['sp-fretamento']))
    .default([])
    .meta({ description: 'Rules of the pack switched off.' }),
  holidays: holidayConfigSchema({
    state: 'SP',
    fixed: [{ month: 11, day: 20, name: 'Dia Nacional de Zumbi e da Consciência Negra', fromYear: 2024 }],
    fixedDescription:
      'Added to date-holidays: its BR-SP data ends the state 20 November in 2023 and so also hides the national holiday created by Lei 14.759/2023.',
  }).prefault({}),
  boardingAtStop: z
    .object({
      stopRadiusM: z.number().positive().default(30).meta({
        description: 'A dwell within this distance (m) of a regular-service stop is at the stop.',
        interpretation: true,
      }),
      dwellMaxSpeedKmh: z
        .number()
        .min(0)
        .default(5)
        .meta({ description: 'Speed (km/h) at or below which the bus is dwelling.', interpretation: true }),
      dwellMinSeconds: z.number().positive().default(15).meta({
        description: 'Shortest dwell (s, first to last slow sample) that counts as a boarding stop.',
        interpretation: true,
      }),
      doorOnlyConfidence: z.enum(['suspected', 'confirmed']).default('suspected').meta({
        description:
          'Confidence when only a door opening (no occupancy sensor) shows the boarding: a door also opens to let passengers off, and Art. 10 §3 forbids only boarding (embarque).',
        interpretation: true,
      }),
      flagDwellWithoutSensors: z.boolean().default(true).meta({
        description:
          'Report a qualifying dwell at a stop as suspected when the vehicle has neither door nor occupancy data.',
      }),
    })
    .prefault({}),
  overCapacity: z
    .object({
      minMovingSeconds: z.number().positive().default(30).meta({
        description: 'Seconds of driving with more passengers than seats before it is a violation.',
        interpretation: true,
      }),
    })
    .prefault({}),
  inspection: z
    .object({
      monthsUpTo5Years: z.number().int().positive().default(18).meta({
        description: 'Longest interval between inspections (months) up to 5 years of age.',
        basis: 'Art. 17 I',
      }),
      monthsUpTo10Years: z
        .number()
        .int()
        .positive()
        .default(12)
        .meta({ description: 'Longest interval (months) over 5 and up to 10 years of age.', basis: 'Art. 17 II' }),
      monthsUpTo15Years: z
        .number()
        .int()
        .positive()
        .default(6)
        .meta({ description: 'Longest interval (months) over 10 and up to 15 years of age.', basis: 'Art. 17 III' }),
      ageReference: z.enum(['last-inspection', 'operation']).default('last-inspection').meta({
        description:
          "Which age picks the Art. 17 period: the vehicle's age on the day of its last inspection (the period set at that inspection) or its age on the day it operates (stricter).",
        interpretation: true,
      }),
    })
    .prefault({}),
  maxVehicleAgeYears: z.number().int().positive().default(15).meta({
    description: 'Maximum age (years, counted by calendar year from the year of manufacture).',
    basis: 'Art. 5 sole paragraph item 1; Art. 17 III',
  }),
  unregisteredVehicle: z
    .object({
      vehicleNotRegisteredBasis: z.enum(['art-26-vii', 'art-23-i']).default('art-26-vii').meta({
        description:
          "Fine for a registered company's vehicle that is not registered: Art. 26 VII (25 ORTN, added by Decreto 51.396/2006, specific) or the older general Art. 23 I (10 ORTN).",
        interpretation: true,
      }),
    })
    .prefault({}),
  tachograph: z
    .object({
      missingMinMovingSeconds: z
        .number()
        .positive()
        .default(600)
        .meta({ description: 'Seconds of driving with no tachograph data before FRET_TACHOGRAPH_MISSING.' }),
      flagUnlinkedDevices: z.boolean().default(true).meta({
        description:
          'Also report (as suspected) vehicles whose tracker is not registered as reading the tachograph (vehicle.tachographLinked false): the data may be missing because the device cannot read it.',
        interpretation: true,
      }),
      mismatchFraction: z
        .number()
        .positive()
        .default(0.15)
        .meta({ description: 'Relative disagreement between tachograph and GPS speed that is suspicious.' }),
      mismatchMinSeconds: z
        .number()
        .positive()
        .default(60)
        .meta({ description: 'Seconds of steady driving in disagreement.' }),
      steadyMinSpeedKmh: z
        .number()
        .positive()
        .default(20)
        .meta({ description: 'Steady driving: GPS speed at least this (km/h)...', interpretation: true }),
      steadyMaxDeltaKmh: z
        .number()
        .positive()
        .default(10)
        .meta({ description: '...and changing by at most this (km/h) between samples.', interpretation: true }),
    })
    .prefault({}),
  speed: z
    .object({
      limitKmh: z.number().positive().default(80).meta({
        description:
          'Default speed limit (km/h) where no speed-limit zone contains the position; a zone sets its own limit, higher or lower.',
        interpretation: true,
      }),
      minSeconds: z
        .number()
        .positive()
        .default(20)
        .meta({ description: 'Seconds above the limit before it is a violation.', interpretation: true }),
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
  route: z
    .object({
      maxDistanceM: z
        .number()
        .positive()
        .default(500)
        .meta({ description: 'Farther than this (m) from the declared route is off route.', interpretation: true }),
      minSeconds: z
        .number()
        .positive()
        .default(120)
        .meta({ description: 'Seconds off route before it is a violation.', interpretation: true }),
      scheduleMarginMinutes: z.number().min(0).default(30).meta({
        description: "Minutes before and after a contract's schedule window during which its route applies.",
        interpretation: true,
      }),
    })
    .prefault({}),
  regularService: z
    .object({
      minDistinctStops: z.number().int().min(2).default(3).meta({
        description: 'Boardings at this many distinct regular-service stops in one trip make a regular-line pattern.',
        interpretation: true,
      }),
      tripBreakStillS: z.number().positive().default(1200).meta({
        description: 'A charter trip ends after the bus stands still (or is silent) this long (s).',
        interpretation: true,
      }),
    })
    .prefault({}),
  noContract: z
    .object({
      minMovingSeconds: z.number().positive().default(60).meta({
        description:
          'FRET_NO_CONTRACT_IN_FORCE: seconds of driving with passengers on board (count > 0 on every sample) and no contract covering the vehicle before it is a violation (a flickering counter is not a carriage).',
        interpretation: true,
      }),
      scheduleMarginMinutes: z.number().min(0).default(30).meta({
        description:
          "FRET_NO_CONTRACT_IN_FORCE: minutes before and after a contract's schedule window during which the contract still covers the vehicle (early departures, late returns).",
        interpretation: true,
      }),
    })
    .prefault({}),
  doorOpenMoving: z
    .object({
      minSpeedKmh: z.number().min(0).default(10).meta({
        description: 'FRET_DOOR_OPEN_MOVING: a door open while the bus moves above this speed (km/h)...',
        interpretation: true,
      }),
      minSeconds: z.number().positive().default(5).meta({
        description:
          '...for at least this many seconds (first to last sample; a bouncing door sensor is not a door open).',
        interpretation: true,
      }),
    })
    .prefault({}),
  driverAuthorization: z
    .object({
      unknownDriverOnParticular: z.enum(['suspected', 'ignore']).default('suspected').meta({
        description:
          'FRET_DRIVER_NOT_AUTHORIZED on a serviço particular: a tachograph driver id the registry does not know cannot be shown to be an employee (Art. 12 sole paragraph); report it as suspected, or ignore it.',
        interpretation: true,
      }),
    })
    .prefault({}),
  vehicleOfAnotherCompany: z
    .object({
      minMovingSeconds: z.number().positive().default(60).meta({
        description:
          "FRET_VEHICLE_OF_ANOTHER_COMPANY: seconds of driving inside the contract's schedule window (± noContract.scheduleMarginMinutes) before the trip counts as run by the vehicle.",
        interpretation: true,
      }),
      confidence: z.enum(['suspected', 'confirmed']).default('suspected').meta({
        description:
          'Confidence of FRET_VEHICLE_OF_ANOTHER_COMPANY: Art. 24 II exempts a rescue (socorro) of a broken-down bus, which telemetry cannot see; suspected leaves it to a reviewer.',
        interpretation: true,
        basis: 'Art. 24 II',
      }),
    })
    .prefault({}),
  recidivism: spRecidivismConfigSchema
    .extend({
      windowYears: z.number().int().positive().default(1).meta({
        description:
          'Recidivism window in calendar years: the same infraction by the same company within one year doubles the fine.',
        basis: 'Art. 27',
      }),
    })
    .prefault({}),
});

export type SpConfig = z.output<typeof spConfigSchema>;
export type SpConfigInput = z.input<typeof spConfigSchema>;
