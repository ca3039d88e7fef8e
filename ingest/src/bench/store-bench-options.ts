/**
 * `npm run bench:store`'s knobs, from the environment (checked, so a typo fails instead of
 * silently running the defaults):
 * - BENCH_STORE_BATCHES: measured batches of 1 000 records through telemetry_store(), and as many
 *   COPYs of 1 000 rows alternated with them (default 100: a few seconds of database work).
 * - BENCH_STORE_DEVICES: devices (one vehicle each) in every batch (default 200, so 5 samples per
 *   vehicle per batch, as the HTTP bench's batches hold).
 * - BENCH_STORE_VARIANT_SQL: a file of SQL (a candidate migration: `CREATE OR REPLACE FUNCTION
 *   telemetry_store …`, a storage parameter) applied to a second scratch database after the
 *   migrations; its batches are alternated with the others', its figures printed beside them, and
 *   what it stored (outcome codes, telemetry, live rows, the aggregates) compared with the first's.
 */
import { z } from 'zod';

const envSchema = z.object({
  BENCH_STORE_BATCHES: z.coerce.number().int().min(5).max(10_000).default(100),
  BENCH_STORE_DEVICES: z.coerce.number().int().min(1).max(1000).default(200),
  BENCH_STORE_VARIANT_SQL: z.string().min(1).optional(),
});

export interface StoreBenchOptions {
  batches: number;
  devices: number;
  /** Records per batch (and rows per COPY): the batch size the target is about. */
  batchSize: number;
  /** Unmeasured batches of each kind first: plpgsql plans once per connection, live rows are created. */
  warmUpBatches: number;
  /** The path of a variant's SQL, measured against the migrations as they are; none = no variant. */
  variantSqlPath: string | undefined;
}

export function storeBenchOptions(env: NodeJS.ProcessEnv): StoreBenchOptions {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new Error(`bench settings: ${z.prettifyError(parsed.error)}`);
  return {
    batches: parsed.data.BENCH_STORE_BATCHES,
    devices: parsed.data.BENCH_STORE_DEVICES,
    batchSize: 1000,
    warmUpBatches: 3,
    variantSqlPath: parsed.data.BENCH_STORE_VARIANT_SQL,
  };
}
