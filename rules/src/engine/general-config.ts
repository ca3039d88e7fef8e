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
  occupancySettleS: z.number().min(0).default(15).meta({
    description:
      'Passenger-counter noise filter (seconds): with the door closed a count change is noise, except within this long after the door was last open (counters finish tallying as it closes); with no door reading, a new count must be read on every sample for this long before it is accepted.',
    interpretation: true,
  }),
  evidenceMarginS: z.number().min(120).default(120).meta({
    description: 'Evidence window margin either side of an event, seconds (the catalogue requires at least 2 minutes).',
  }),
  updateIntervalS: z.number().min(0).default(30).meta({
    description:
      'An ongoing violation is re-emitted at most this often (seconds) while it only lengthens; a change of confidence or phase is emitted at once.',
  }),
  idleCloseS: z.number().positive().default(900).meta({
    description:
      "A vehicle whose next sample comes more than this (seconds, event time) after its last is closed before that sample is judged: its runs end and its rules start afresh. flush(now) finishes the events of a vehicle silent this long by the server's clock only provisionally (its state is kept, so a late backlog resumes it).",
    interpretation: true,
  }),
  backlogHorizonS: z.number().positive().default(86_400).meta({
    description:
      'How late (seconds) a backlog may arrive and still be judged exactly as if it had come live (see "Judgement in event time" in the rules README): a silent vehicle is closed for good, and stand decisions stop being revised, this long after its last sample.',
    interpretation: true,
  }),
});
export type GeneralConfig = z.output<typeof generalConfigSchema>;
