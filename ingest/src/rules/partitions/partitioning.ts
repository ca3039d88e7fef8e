/**
 * Partitioned rules (RULES_MODE=partitioned): vehicles are split into RULES_PARTITIONS partitions
 * by a stable hash of their id, so every ingest process appends a vehicle's samples to the same
 * Redis stream and the one rule worker that holds the partition's lease judges them in order.
 * The hash is FNV-1a (32 bit): the same in every process and release, unlike a language's own.
 */
export function partitionOf(vehicleId: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < vehicleId.length; i++) {
    h ^= vehicleId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % partitions;
}

/** The Redis keys of partitioned rules, under REDIS_PREFIX. */
export const ruleKeys = (prefix: string) => ({
  /** The partition's samples, in the order they were stored. */
  stream: (p: number) => `${prefix}:rules:stream:${p}`,
  /** Who owns the partition (value: worker id), with an expiry. */
  lease: (p: number) => `${prefix}:rules:lease:${p}`,
  /** The partition's checkpoint: `state` (engine bytes) and `position` (last stream id judged). */
  checkpoint: (p: number) => `${prefix}:rules:checkpoint:${p}`,
  /** A live worker announces itself here (expiring), for the fair share. */
  worker: (id: string) => `${prefix}:rules:worker:${id}`,
  workerPattern: `${prefix}:rules:worker:*`,
});
