/**
 * The benchmark's knobs, from the environment (checked, so a typo fails instead of silently
 * running the defaults):
 * - BENCH_PATHS: comma-separated scenarios, `http1` (one record per request), `http1000`
 *   (batches of 1 000), `http` (both), `teltonika`, `gt06`; default all. The bare COPY runs
 *   whenever one of them does: every figure is a share of it.
 * - BENCH_SCALE: multiplies every scenario's records (and the TCP fleets' devices); 0.1 is a
 *   quick run of under a minute (rougher figures), 1 (default) the full one of about two.
 * - BENCH_CONCURRENCY: HTTP connections (default 32).
 * - BENCH_TELTONIKA_DEVICES, BENCH_GT06_DEVICES: devices connected at once on each TCP path
 *   (default 1 000 × BENCH_SCALE).
 * - BENCH_INGEST_NODE_FLAGS: space-separated Node/V8 flags for the ingest process (e.g.
 *   `--max-semi-space-size=32`), to compare its settings in the same conditions; default none.
 * - BENCH_CPU_PROF_DIR: when set, the ingest runs with `node --cpu-prof` and writes its CPU
 *   profile (`*.cpuprofile`, for Chrome DevTools or `speedscope`) there when the bench stops it.
 */
import { z } from 'zod';

const SCENARIOS = ['http1', 'http1000', 'teltonika', 'gt06'] as const;
export type ScenarioId = (typeof SCENARIOS)[number];

const pathsSchema = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p.length > 0),
  )
  .pipe(z.array(z.enum([...SCENARIOS, 'http', 'copy'])).min(1))
  // `http` is both HTTP scenarios; `copy` (accepted for old habits) always runs anyway.
  .transform(
    (paths) =>
      new Set<ScenarioId>(paths.flatMap((p) => (p === 'http' ? ['http1', 'http1000'] : p === 'copy' ? [] : [p]))),
  );

const envSchema = z.object({
  BENCH_PATHS: pathsSchema.prefault(SCENARIOS.join(',')),
  BENCH_SCALE: z.coerce.number().positive().max(10).default(1),
  BENCH_CONCURRENCY: z.coerce.number().int().positive().max(1024).default(32),
  BENCH_TELTONIKA_DEVICES: z.coerce.number().int().positive().optional(),
  BENCH_GT06_DEVICES: z.coerce.number().int().positive().optional(),
  BENCH_CPU_PROF_DIR: z.string().min(1).optional(),
  BENCH_INGEST_NODE_FLAGS: z
    .string()
    .default('')
    .transform((s) => s.split(/\s+/).filter((f) => f.length > 0))
    .pipe(z.array(z.string().regex(/^--[a-z0-9-]+(=[^\s]+)?$/, 'a Node flag: --name or --name=value'))),
});

export interface BenchOptions {
  scenarios: Set<ScenarioId>;
  connections: number;
  /** Records of the one-record-per-request scenario. */
  singleRecords: number;
  /** Records of the batch scenario, and of the bare COPY. */
  batchRecords: number;
  batchSize: number;
  teltonikaDevices: number;
  gt06Devices: number;
  /** Where the ingest writes its CPU profile (`--cpu-prof`); none = not profiled. */
  cpuProfileDir: string | undefined;
  /** Node/V8 flags the ingest process starts with. */
  ingestNodeFlags: string[];
}

export function benchOptions(env: NodeJS.ProcessEnv): BenchOptions {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new Error(`bench settings: ${z.prettifyError(parsed.error)}`);
  const e = parsed.data;
  const batchSize = 1000;
  return {
    scenarios: e.BENCH_PATHS,
    connections: e.BENCH_CONCURRENCY,
    singleRecords: Math.max(1000, Math.round(20_000 * e.BENCH_SCALE)),
    // Whole batches.
    batchRecords: Math.max(1, Math.round((400_000 * e.BENCH_SCALE) / batchSize)) * batchSize,
    batchSize,
    teltonikaDevices: e.BENCH_TELTONIKA_DEVICES ?? Math.max(10, Math.round(1000 * e.BENCH_SCALE)),
    gt06Devices: e.BENCH_GT06_DEVICES ?? Math.max(10, Math.round(1000 * e.BENCH_SCALE)),
    cpuProfileDir: e.BENCH_CPU_PROF_DIR,
    ingestNodeFlags: e.BENCH_INGEST_NODE_FLAGS,
  };
}
