import { deserialize, serialize } from 'node:v8';
import { packSchema } from '@vigia/core';
import { z } from 'zod';
import type { EngineState, RuleEngine } from './rule-engine.js';

/**
 * A rule engine's state as bytes, so a restart (embedded mode, DATA_DIR/rule-state.bin) or a
 * rule worker taking over a partition (ingest/src/rules/partitions) continues open runs — a
 * Bandeira II stretch in progress, a dwell at a stop — exactly where they stood.
 *
 * The state holds Maps, Sets, Dates and objects shared between maps (the stand board's
 * intervals), which JSON would lose: v8.serialize keeps them all. The envelope is versioned and
 * checked with zod on the way in, down to each vehicle's fields; the rules' own states inside are
 * data the same code wrote (a checkpoint of an unknown format version is refused, not guessed at;
 * version 1 is upgraded by a stated mapping).
 */

export const CHECKPOINT_FORMAT = 'vigia-rule-state';
/** 2: an open event keeps its revision, confidence and variant instead of its whole violation record (1 is upgraded). */
export const CHECKPOINT_VERSION = 2;

/** Any number but NaN: event times start at -Infinity (nothing seen yet), which z.number() refuses. */
const instantMs = z.custom<number>((x) => typeof x === 'number' && !Number.isNaN(x), 'expected a number');

const savedVehicleSchema = z.object({
  vehicleId: z.string(),
  pack: packSchema,
  rules: z.object({
    detectors: z.record(z.string(), z.unknown()),
    slots: z.array(z.object({ ruleId: z.string(), state: z.unknown() })),
  }),
  lastMs: instantMs,
  prev: z.unknown(),
  prevMoving: z.boolean(),
  lateSinceAccepted: z.number(),
  closed: z.boolean(),
  provisional: z.boolean(),
  deviceId: z.string().nullable(),
  lastLat: z.number().nullable(),
  lastLon: z.number().nullable(),
  occupancy: z.unknown().optional(),
  open: z.instanceof(Map),
});

/**
 * Version 1's open event: the whole violation record last emitted, of which version 2 keeps the
 * revision, confidence and variant. Upgraded on the way in, so the first start of a release that
 * writes version 2 still continues the runs a version-1 release left open.
 */
const openEventV1Schema = z.looseObject({
  violation: z.looseObject({ revision: z.number(), confidence: z.string(), variant: z.string().nullable() }),
});

function upgradeOpenEvents(open: Map<unknown, unknown>): Map<unknown, unknown> {
  const upgraded = new Map<unknown, unknown>();
  for (const [key, value] of open) {
    const parsed = openEventV1Schema.safeParse(value);
    if (!parsed.success)
      throw new CheckpointError(`rule state refused: a version 1 open event: ${parsed.error.message}`);
    const { violation, ...rest } = parsed.data;
    upgraded.set(key, {
      ...rest,
      revision: violation.revision,
      confidence: violation.confidence,
      variant: violation.variant,
    });
  }
  return upgraded;
}

const envelopeSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  version: z.union([z.literal(1), z.literal(CHECKPOINT_VERSION)]),
  state: z.object({
    packs: z.array(packSchema),
    latestMs: instantMs,
    finalRevisions: z.instanceof(Map),
    shared: z.record(z.string(), z.unknown()),
    vehicles: z.array(savedVehicleSchema),
  }),
});

export class CheckpointError extends Error {
  readonly code = 'RULE_CHECKPOINT_INVALID';
}

/** The engine's state as bytes. */
export function checkpointEngine(engine: RuleEngine): Buffer {
  return serialize({ format: CHECKPOINT_FORMAT, version: CHECKPOINT_VERSION, state: engine.exportState() });
}

/** Restores `engine` from `checkpointEngine`'s bytes; throws CheckpointError on anything else. */
export function restoreEngine(engine: RuleEngine, bytes: Uint8Array): { vehicles: number; dropped: number } {
  let raw: unknown;
  try {
    raw = deserialize(bytes);
  } catch (err) {
    throw new CheckpointError(`rule state is not a checkpoint: ${(err as Error).message}`);
  }
  const parsed = envelopeSchema.safeParse(raw);
  if (!parsed.success) throw new CheckpointError(`rule state refused: ${parsed.error.message}`);
  if (parsed.data.version === 1) {
    for (const vehicle of parsed.data.state.vehicles) vehicle.open = upgradeOpenEvents(vehicle.open);
  }
  // The schema checked the shape down to the vehicles; what is inside the rules is theirs.
  return engine.importState(parsed.data.state as unknown as EngineState);
}
