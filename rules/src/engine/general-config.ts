import { z } from 'zod';

/**
 * Engine thresholds every pack carries (under `general` in its configuration). None is fixed by
 * a regulation: they decide how telemetry is read, so they are named and documented here.
 */
export const generalConfigSchema = z.object({
  maxGapS: z.number().positive().default(120).meta({
    description:
      'A silence longer than this (seconds) between two samples of a vehicle breaks every dwell, stretch and run: nothing is inferred across missing telemetry.',
    interpretation: true,
  }),
  maxAccuracyM: z.number().positive().default(100).meta({
    description:
      'Samples whose GPS accuracy is worse than this (m) are not judged (treated as missing): a position 100 m off cannot say which stop or stand a vehicle is at.',
    interpretation: true,
  }),
  movingSpeedKmh: z
    .number()
    .min(0)
    .default(5)
    .meta({ description: 'Above this speed (km/h) a vehicle is moving ("in operation").', interpretation: true }),
  evidenceMarginS: z.number().min(120).default(120).meta({
    description: 'Evidence window margin either side of an event, seconds (RULES.md: at least 2 minutes).',
  }),
  updateIntervalS: z.number().min(0).default(30).meta({
    description:
      'An ongoing violation is re-emitted at most this often (seconds) while it only lengthens; a change of confidence or phase is emitted at once.',
  }),
  idleCloseS: z.number().positive().default(900).meta({
    description: 'flush(now) finishes the open events of a vehicle silent for this long (seconds).',
    interpretation: true,
  }),
});
export type GeneralConfig = z.output<typeof generalConfigSchema>;
