import { z } from 'zod';

/**
 * What crosses between the API's main thread and the demo's simulator thread (demo-worker.ts),
 * checked with zod on arrival on both sides: a structured clone carries any shape, and a wrong
 * one must fail loudly at the boundary rather than deep inside the simulator or the API.
 */

/** The simulator's settings, as `workerData`. */
export const demoWorkerDataSchema = z.object({
  apiUrl: z.url({ protocol: /^https?$/ }),
  adminToken: z.string().min(1),
  vehicles: z.number().int().positive(),
  intervalMs: z.number().int().positive(),
  protocol: z.enum(['native', 'osmand', 'teltonika', 'gt06', 'mixed']),
  gateways: z
    .object({
      host: z.string().min(1),
      osmandPort: z.number().int(),
      teltonikaPort: z.number().int(),
      gt06Port: z.number().int(),
    })
    .optional(),
  bookingIntervalS: z.number().min(0),
  /** The API's log level: the thread logs at the same one. */
  logLevel: z.string().min(1),
  /** How often the thread reports its figures, ms. */
  statsIntervalMs: z.number().int().positive(),
});
export type DemoWorkerData = z.infer<typeof demoWorkerDataSchema>;

/** The fleet's figures so far (`SimulatorStats`). */
export const demoStatsSchema = z.object({
  generated: z.number().int().min(0),
  sent: z.number().int().min(0),
  accepted: z.number().int().min(0),
  duplicates: z.number().int().min(0),
  rejected: z.number().int().min(0),
  failedRequests: z.number().int().min(0),
  dropped: z.number().int().min(0),
  backlog: z.number().int().min(0),
});
export type DemoStats = z.infer<typeof demoStatsSchema>;

/** Simulator thread → main thread. */
export const fromDemoWorkerSchema = z.discriminatedUnion('type', [
  /** The fleet is registered and streaming. */
  z.object({ type: z.literal('started'), vehicles: z.number().int().positive() }),
  z.object({ type: z.literal('stats'), stats: demoStatsSchema }),
  /** The simulator could not start (registration refused, the API unreachable past its retries). */
  z.object({ type: z.literal('failed'), code: z.string().min(1), message: z.string() }),
  /** Every device has stopped; the figures are final. */
  z.object({ type: z.literal('stopped'), stats: demoStatsSchema }),
]);
export type FromDemoWorker = z.infer<typeof fromDemoWorkerSchema>;

/** Main thread → simulator thread. */
export const toDemoWorkerSchema = z.discriminatedUnion('type', [z.object({ type: z.literal('stop') })]);
export type ToDemoWorker = z.infer<typeof toDemoWorkerSchema>;
