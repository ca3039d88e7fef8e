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
  exitMoveSlackM: z.number().min(0).default(10).meta({
    description:
      "A fix outside a stand (beyond exitMarginM and beyond its own reported accuracy) ends the taxi's presence at once only when the movement its GPS reports explains it: the larger of its speed and the speed at its last fix inside above general.movingSpeedKmh, and the displacement from that fix at most speed × time + both fixes' accuracies + this slack (m). A jump of tens of metres reported at a standstill (multipath) does not move the taxi out.",
    interpretation: true,
  }),
  exitConfirmFixes: z.number().int().min(1).default(3).meta({
    description:
      'A fix outside that the reported movement does not explain (or with no reported speed) counts towards leaving: the presence ends, at the last fix inside, after this many such fixes in a row (a fix inside again cancels them; a fix whose accuracy reaches the stand neither counts nor cancels)...',
    interpretation: true,
  }),
  exitConfirmS: z.number().min(0).default(10).meta({
    description: '...spanning at least this long (s): one or two multipath fixes are not sustained absence.',
    interpretation: true,
  }),
  gapKeepsPlaceS: z.number().min(0).default(900).meta({
    description:
      'A silence longer than general.maxGapS while the taxi is at a stand (dropout, coverage gap) keeps its place, and its entry time, when it lasts at most this long (s) and the fix after it is at the stand (within exitMarginM, or its accuracy reaching it) at most gapStillM from the last one inside: a taxi does not lose its place because its tracker lost coverage. Its presence across the silence is inferred, not measured: a queue jump over it is only suspected, and its meter inside the silence is known only when it reads the same on both sides. Beyond general.idleCloseS the engine closes the vehicle anyway.',
    interpretation: true,
  }),
  gapStillM: z.number().min(0).default(50).meta({
    description:
      '...and the two fixes around the silence are at most this far apart (m) plus their two reported accuracies: moving up the queue is not leaving, a taxi found elsewhere in a large stand has left and come back.',
    interpretation: true,
  }),
  presenceTimeoutS: z.number().positive().default(300).meta({
    description:
      "A taxi that keeps reporting but has had no fix inside its stand for this long (s) — every fix uncertain (accuracy reaching the stand) or outside — has left it at its last fix inside. Also how long past t + decisionDelayS (by the pack's event-time watermark) a first queue decision waits for a silent taxi; the taxi's own data, if it comes later (within general.backlogHorizonS), revises the decision.",
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
  hireOrderToleranceS: z.number().min(0).default(20).meta({
    description:
      'Queue jump: a taxi of the queue that is itself hired, or gone from the stand, at most this long (s) after the one judged (or whose silence may hide such a hire) was boarding, or leaving, at the same time: two passengers at once, the taxi behind starting its meter a few seconds first; the head of the queue pulling out as the next one takes a passenger (device clocks differ by seconds too). It is not jumped.',
    interpretation: true,
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
