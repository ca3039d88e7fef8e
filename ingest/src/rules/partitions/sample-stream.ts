import { meterStateSchema, type Pack, packSchema, type Telemetry } from '@vigia/core';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { partitionOf, ruleKeys } from './partitioning.js';

/**
 * Samples on a partition's stream: one entry per stored batch and partition, field `s` holding
 * a JSON array of [sample, pack hint] — the pack the device belongs to, for a vehicle the
 * registry does not know (what `packOf` gives the embedded pipeline). Checked with zod when read.
 */

const date = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const num = z.number().nullable();
const sampleSchema = z.object({
  deviceId: z.string(),
  vehicleId: z.string(),
  ts: date,
  receivedAt: date,
  lat: z.number(),
  lon: z.number(),
  speedKmh: num,
  headingDeg: num,
  accuracyM: num,
  ignition: z.boolean().nullable(),
  doorOpen: z.boolean().nullable(),
  passengers: num,
  childrenUnder7: num,
  boardings: num,
  alightings: num,
  meterState: meterStateSchema.nullable(),
  meterTariff: z.union([z.literal(1), z.literal(2)]).nullable(),
  meterFareCents: num,
  meterTripId: z.string().nullable(),
  tachoSpeedKmh: num,
  tachoDriverId: z.string().nullable(),
}) satisfies z.ZodType<Telemetry, unknown>;
const entrySchema = z.array(z.tuple([sampleSchema, packSchema.nullable()]));

export interface StreamedSample {
  readonly sample: Telemetry;
  readonly pack: Pack | null;
}

/** Appends the stored samples to their partitions' streams (one pipelined round trip). */
export async function appendToPartitions(
  redis: Redis,
  prefix: string,
  partitions: number,
  samples: readonly Telemetry[],
  packOf: (vehicleId: string) => Pack | undefined,
): Promise<void> {
  const byPartition = new Map<number, [Telemetry, Pack | null][]>();
  for (const s of samples) {
    const p = partitionOf(s.vehicleId, partitions);
    const list = byPartition.get(p) ?? [];
    byPartition.set(p, list);
    list.push([s, packOf(s.vehicleId) ?? null]);
  }
  const keys = ruleKeys(prefix);
  const pipeline = redis.pipeline();
  for (const [p, list] of byPartition) pipeline.xadd(keys.stream(p), '*', 's', JSON.stringify(list));
  const results = await pipeline.exec();
  for (const [err] of results ?? []) if (err) throw err;
}

/** One stream entry's samples; throws (zod) on anything this code did not write. */
export function decodeEntry(fields: readonly string[]): StreamedSample[] {
  const i = fields.indexOf('s');
  const raw: unknown = JSON.parse(fields[i + 1] ?? '[]');
  return entrySchema.parse(raw).map(([sample, pack]) => ({ sample, pack }));
}
