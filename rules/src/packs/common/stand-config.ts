import { z } from 'zod';

/** How a taxi's presence at a stand is read from GPS (shared by both taxi packs). */
export const standPresenceConfigSchema = z.object({
  maxEntrySpeedKmh: z.number().min(0).default(10).meta({
    description:
      'A taxi enters a stand when a sample is inside its area at or below this speed (km/h); driving through does not count.',
    interpretation: true,
  }),
  exitMarginM: z.number().min(0).default(15).meta({
    description:
      'A taxi leaves a stand when a sample is farther than this (m) outside its area: hysteresis against GPS jitter at the edge.',
    interpretation: true,
  }),
  presenceTimeoutS: z.number().positive().default(300).meta({
    description:
      'A taxi at a stand that sends nothing for this long (s) is taken as gone from its last sample on; also how long a queue decision waits for a silent taxi.',
    interpretation: true,
  }),
  decisionDelayS: z.number().min(0).default(120).meta({
    description:
      "A queue decision about instant t is taken once the pack's telemetry has reached t + this (s), so a taxi whose device reports late is still in the snapshot. Alerts come this much later.",
    interpretation: true,
  }),
  queueToleranceS: z.number().min(0).default(30).meta({
    description:
      'Queue jump (DF Art. 37 m, n; Belém Art. 58 item 1.5): another taxi must have entered at least this long (s) before the one that is hired, and still be there and free.',
  }),
  hireLookbackS: z.number().min(0).default(30).meta({
    description:
      'A taxi hired within this long (s) after leaving a stand is judged as hired at the stand (meter started after pulling out).',
    interpretation: true,
  }),
});
export type StandPresenceConfig = z.output<typeof standPresenceConfigSchema>;
