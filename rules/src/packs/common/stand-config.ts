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
      "A taxi whose own next sample comes more than this (s) after its last one at a stand has left it at that last sample. Also how long past t + decisionDelayS (by the pack's event-time watermark) a first queue decision waits for a silent taxi; the taxi's own data, if it comes later (within general.backlogHorizonS), revises the decision.",
    interpretation: true,
  }),
  decisionDelayS: z.number().min(0).default(120).meta({
    description:
      "A queue decision about instant t is taken once the pack's telemetry (event time, never the server's clock) has reached t + this (s) and every taxi known at the stand has reported past t. Alerts come this much later.",
    interpretation: true,
  }),
  queueToleranceS: z.number().min(0).default(30).meta({
    description:
      'Queue jump (DF Art. 37 m, n; Belém Art. 3 XIV, Art. 58 item 3.1): another taxi of the queue must have entered at least this long (s) before the one that is hired, and still be there and free.',
  }),
  hireEdgeM: z.number().min(0).default(30).meta({
    description:
      'A hire counts as at the stand (queue jump) only when the taxi is within this distance (m) of the stand area when hired: a taxi hailed farther away answered a hail, which DF Art. 37 e obliges.',
    interpretation: true,
  }),
  hireAfterLeavingS: z.number().min(0).default(15).meta({
    description:
      '...and while it is still at the stand, or at most this long (s) after its last sample there (meter started while pulling out).',
    interpretation: true,
  }),
});
export type StandPresenceConfig = z.output<typeof standPresenceConfigSchema>;
