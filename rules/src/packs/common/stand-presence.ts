import type { MeterState } from '@vigia/core';
import type { SampleFacts } from '../../engine/sample-facts.js';
import { haversineM } from '../../geo/distance.js';
import type { StandRecord, VehicleRecord } from '../../registry/records.js';
import type { StandPresenceConfig } from './stand-config.js';

/**
 * Which stands a taxi is at, from its own samples (per-vehicle, pure). The shared stand board
 * (stand-board.ts) mirrors these presences to judge queues across taxis.
 */

/** Does the vehicle hold a place at the *ponto fixo* (itself, or through its cooperative/radio/association)? */
export function holdsPlace(stand: StandRecord, vehicle: VehicleRecord | null, vehicleId: string): boolean {
  if (stand.holderVehicleIds.includes(vehicleId)) return true;
  return vehicle?.operatorId != null && stand.holderOperatorIds.includes(vehicle.operatorId);
}

/**
 * Is the taxi entitled to the stand's queue? At a *ponto fixo* only its holders queue (Belém
 * Art. 3 XIV a; RULES.md DF_STAND_QUEUE_JUMP: "only taxis entitled to the stand form its
 * queue"); a *ponto livre* is open to every taxi of the pack.
 */
export function entitledTo(stand: StandRecord, vehicle: VehicleRecord | null, vehicleId: string): boolean {
  return stand.kind !== 'fixo' || holdsPlace(stand, vehicle, vehicleId);
}

/** A silence of the taxi's tracker while it was at the stand, across which its place was kept. */
export interface BridgedGap {
  /** Its last sample before the silence. */
  readonly fromMs: number;
  /** Its first sample after it (inside the stand). */
  readonly toMs: number;
}

export interface Presence {
  readonly stand: StandRecord;
  /** Is the taxi one of the stand's queue (entitledTo)? */
  readonly entitled: boolean;
  readonly enteredMs: number;
  /**
   * The taxi may have arrived as early as this: its previous sample, when it is first seen at
   * the stand after a silence longer than general.maxGapS (the silence hid its arrival); else
   * `enteredMs`.
   */
  readonly enteredFromMs: number;
  /** Last sample inside the area (or within the exit margin). */
  readonly lastInsideMs: number;
  /** Position of that sample. */
  readonly lat: number;
  readonly lon: number;
  /** Its reported accuracy (m) and speed (km/h, null when the device sent none). */
  readonly accuracyM: number | null;
  readonly speedKmh: number | null;
  /** Fixes outside in a row that the reported movement does not explain (towards leaving). */
  readonly outFixes: number;
  /** The first of them. */
  readonly firstOutMs: number | null;
  /** Silences bridged while at the stand (the presence across them is inferred). */
  readonly gaps: readonly BridgedGap[];
}

export interface StandSignal {
  readonly present: readonly Presence[];
  readonly entered: readonly Presence[];
  /**
   * Presences that ended at or before this sample, with the instant the taxi was last seen
   * inside. Repeated on the taxi's samples until one is more than `hireAfterLeavingS` past that
   * instant (that one included), so the stand board follows what it does just after leaving (a
   * meter started at the edge: a hire at the stand, and the hire order of the others).
   */
  readonly left: readonly Presence[];
  /**
   * The meter went to hired (or a passenger boarded with no meter data) at this sample, with the
   * stands within `hireEdgeM` of where it happened (distance 0: inside the area).
   */
  readonly hire: {
    readonly viaMeter: boolean;
    /** Seen only across a silence longer than general.maxGapS: when it happened is not known. */
    readonly acrossGap: boolean;
    /** It happened after this instant (the vehicle's previous sample; null: none). */
    readonly afterMs: number | null;
    readonly near: readonly { readonly standId: string; readonly distanceM: number }[];
  } | null;
  readonly meterState: MeterState | null;
}

export interface PresenceState {
  readonly present: readonly Presence[];
  readonly lastMeter: MeterState | null;
  readonly lastPassengers: number | null;
  /** The vehicle's previous sample (any position), ms. */
  readonly lastMs: number | null;
  /** Presences that ended less than `hireAfterLeavingS` before the previous sample (see `left`). */
  readonly departed: readonly Presence[];
}

const noPresences: readonly Presence[] = Object.freeze([]);

export const initialPresenceState: PresenceState = {
  present: [],
  lastMeter: null,
  lastPassengers: null,
  lastMs: null,
  departed: [],
};

function hireVia(state: PresenceState, ctx: SampleFacts): boolean | null {
  const s = ctx.sample;
  const hiredNow = s.meterState === 'hired' || s.meterState === 'stopped';
  if (hiredNow) {
    // Only a seen transition counts: a trace that starts already hired says nothing about when.
    const before = state.lastMeter;
    return before === 'free' || before === 'off' ? true : null;
  }
  if (s.meterState === null) {
    // No meter data: a passenger boarding an empty taxi is the only sign of a hire.
    const boarded = (s.boardings ?? 0) > 0 || (s.passengers ?? 0) > 0;
    if (boarded && state.lastPassengers === 0) return false;
  }
  return null;
}

function hireAt(
  state: PresenceState,
  lastMs: number | null,
  ctx: SampleFacts,
  config: StandPresenceConfig,
): StandSignal['hire'] {
  const viaMeter = hireVia(state, ctx);
  if (viaMeter === null) return null;
  // Where the hire happened, against every stand near it (a hire is rare: one more lookup).
  const near = ctx.registry
    .standsAt(ctx.sample.lat, ctx.sample.lon, ctx.ms, ctx.pack, config.hireEdgeM)
    .map((h) => ({ standId: h.stand.id, distanceM: h.distanceM }));
  return { viaMeter, acrossGap: ctx.gapBefore, afterMs: lastMs, near };
}

const reportedSpeed = (ctx: SampleFacts): number | null => (ctx.speedDerived ? null : ctx.speedKmh);

/** The presence goes on with this sample inside the stand. */
function inside(p: Presence, ctx: SampleFacts, gaps: readonly BridgedGap[] = p.gaps): Presence {
  const s = ctx.sample;
  return {
    ...p,
    lastInsideMs: ctx.ms,
    lat: s.lat,
    lon: s.lon,
    accuracyM: s.accuracyM,
    speedKmh: reportedSpeed(ctx),
    outFixes: 0,
    firstOutMs: null,
    gaps,
  };
}

/**
 * Does the movement the GPS reports explain this fix outside the stand (a taxi driving off),
 * rather than a jump of the fix (multipath)? Only a reported speed counts: one derived from
 * the positions would explain any jump.
 */
function movementExplains(p: Presence, ctx: SampleFacts, config: StandPresenceConfig): boolean {
  const now = reportedSpeed(ctx);
  if (now === null) return false;
  const speed = Math.max(now, p.speedKmh ?? 0);
  if (speed <= ctx.general.movingSpeedKmh) return false;
  const reach =
    (speed / 3.6) * ((ctx.ms - p.lastInsideMs) / 1000) +
    (p.accuracyM ?? 0) +
    (ctx.sample.accuracyM ?? 0) +
    config.exitMoveSlackM;
  return haversineM(p.lat, p.lon, ctx.sample.lat, ctx.sample.lon) <= reach;
}

/**
 * Which stands a taxi is at, sample by sample, reading GPS faults as faults (issue 7: a taxi
 * first in the queue must not lose its place to its tracker):
 * - a fix within `exitMarginM` of the area is inside;
 * - a fix farther out whose reported accuracy reaches the margin is uncertain: it neither
 *   continues nor ends the presence (an urban canyon wandering around a stand);
 * - a fix clearly outside ends the presence at once when the reported movement explains it
 *   (`movementExplains`), else only as sustained absence (`exitConfirmFixes` such fixes in a
 *   row over `exitConfirmS`), at the last fix inside — one or two multipath fixes thrown
 *   tens of metres at a standstill are not a departure;
 * - a silence longer than general.maxGapS keeps the place when the taxi is found inside again
 *   (or uncertain), at most `gapStillM` from where it was, within `gapKeepsPlaceS` (the silence is
 *   recorded: the presence across it is inferred); found elsewhere, it has left at the last fix
 *   inside; a fix outside after it is judged as above (a multipath fix as the silence ends);
 *   a taxi first seen at a stand just after a silence may have arrived as early as its
 *   previous sample (`enteredFromMs`);
 * - no fix inside for `presenceTimeoutS` while the taxi keeps reporting ends it too.
 * A presence that ends is in `left` with its last fix inside; entering still needs a fix inside
 * the area itself at or below `maxEntrySpeedKmh`.
 *
 * The vehicle's previous sample (`lastMs`) is kept by the caller rather than in the state: the
 * state returned carries `state.lastMs` through unchanged, and is `state` itself when nothing else
 * changed — a taxi at no stand with the same meter state and count (most samples of most taxis)
 * then keeps its state object instead of replacing it on every sample. The taxi pack keeps the
 * previous sample beside it, and puts it back into the state it checkpoints (`lastMs`), so a
 * checkpoint has the shape it always had.
 */
export function stepPresence(
  state: PresenceState,
  lastMs: number | null,
  ctx: SampleFacts,
  config: StandPresenceConfig,
): { state: PresenceState; signal: StandSignal } {
  const s = ctx.sample;
  // While at a stand, look far enough to know how far out an uncertain fix is.
  const lookM =
    state.present.length > 0
      ? config.exitMarginM + Math.min(s.accuracyM ?? 0, ctx.general.maxAccuracyM)
      : config.exitMarginM;
  const hits = ctx.registry.standsAt(s.lat, s.lon, ctx.ms, ctx.pack, lookM);
  if (hits.length === 0 && state.present.length === 0 && state.departed.length === 0) {
    // At no stand and just left none (most samples of most taxis): what the general case below
    // would answer, without its three lists.
    return presenceStep(state, lastMs, ctx, config, noPresences, noPresences, noPresences, noPresences);
  }
  const present: Presence[] = [];
  const entered: Presence[] = [];
  // Still followed just after leaving (a departed presence is not re-entered by this: a new
  // presence at the same stand has its own entry time).
  const afterMs = config.hireAfterLeavingS * 1000;
  const left: Presence[] =
    state.departed.length === 0
      ? []
      : state.departed.filter((p) => !state.present.some((q) => q.stand.id === p.stand.id));

  for (const before of state.present) {
    let p = before;
    const hit = hits.find((h) => h.stand.id === p.stand.id);
    const isInside = hit !== undefined && hit.distanceM <= config.exitMarginM;
    if (ctx.gapBefore) {
      // A silence: the place is kept if the taxi is found again, not moved, soon enough.
      const fromMs = lastMs ?? p.lastInsideMs;
      if ((ctx.ms - fromMs) / 1000 > config.gapKeepsPlaceS) {
        left.push(p);
        continue;
      }
      const gaps = [...p.gaps, { fromMs, toMs: ctx.ms }];
      if (hit !== undefined) {
        // Found again: inside, or uncertain (its accuracy reaches the stand: a canyon fix).
        const still =
          haversineM(p.lat, p.lon, s.lat, s.lon) <= config.gapStillM + (p.accuracyM ?? 0) + (s.accuracyM ?? 0);
        if (still) present.push(inside(p, ctx, gaps));
        else left.push(p);
        continue;
      }
      // Outside: judged as any fix outside (a multipath fix just after the silence is not a
      // departure), the place across the silence kept meanwhile.
      p = { ...p, gaps };
    } else if (isInside) {
      present.push(inside(p, ctx));
      continue;
    } else {
      const lastGap = p.gaps[p.gaps.length - 1];
      const sinceMs = Math.max(p.lastInsideMs, lastGap?.toMs ?? Number.NEGATIVE_INFINITY);
      if ((ctx.ms - sinceMs) / 1000 > config.presenceTimeoutS) {
        left.push(p);
        continue;
      }
      if (hit !== undefined) {
        // Uncertain: the fix's own accuracy reaches the stand.
        present.push(p);
        continue;
      }
    }
    if (movementExplains(p, ctx, config)) {
      left.push(p);
      continue;
    }
    const firstOutMs = p.firstOutMs ?? ctx.ms;
    const outFixes = p.outFixes + 1;
    if (outFixes >= config.exitConfirmFixes && (ctx.ms - firstOutMs) / 1000 >= config.exitConfirmS) left.push(p);
    else present.push({ ...p, outFixes, firstOutMs });
  }
  const slowEnough = ctx.speedKmh !== null && ctx.speedKmh <= config.maxEntrySpeedKmh;
  for (const hit of hits) {
    if (hit.distanceM > 0 || !slowEnough) continue;
    if (present.some((p) => p.stand.id === hit.stand.id)) continue;
    const p: Presence = {
      stand: hit.stand,
      entitled: entitledTo(hit.stand, ctx.vehicle, s.vehicleId),
      enteredMs: ctx.ms,
      enteredFromMs: ctx.gapBefore && lastMs !== null ? lastMs : ctx.ms,
      lastInsideMs: ctx.ms,
      lat: s.lat,
      lon: s.lon,
      accuracyM: s.accuracyM,
      speedKmh: reportedSpeed(ctx),
      outFixes: 0,
      firstOutMs: null,
      gaps: [],
    };
    present.push(p);
    entered.push(p);
  }
  // Most taxis are at no stand: share one empty list rather than keep three new ones a sample.
  const leftNow = left.length === 0 ? noPresences : left;
  return presenceStep(
    state,
    lastMs,
    ctx,
    config,
    present.length === 0 ? noPresences : present,
    entered.length === 0 ? noPresences : entered,
    leftNow,
    leftNow.length === 0 ? noPresences : left.filter((p) => ctx.ms - p.lastInsideMs <= afterMs),
  );
}

/** The step's new state and signal from its lists of presences. */
function presenceStep(
  state: PresenceState,
  lastMs: number | null,
  ctx: SampleFacts,
  config: StandPresenceConfig,
  present: readonly Presence[],
  entered: readonly Presence[],
  left: readonly Presence[],
  departed: readonly Presence[],
): { state: PresenceState; signal: StandSignal } {
  const s = ctx.sample;
  const hire = hireAt(state, lastMs, ctx, config);
  const idle = present === noPresences && entered === noPresences && left === noPresences && hire === null;
  const lastMeter = s.meterState ?? state.lastMeter;
  const lastPassengers = s.passengers ?? state.lastPassengers;
  const unchanged =
    present === state.present &&
    departed === state.departed &&
    lastMeter === state.lastMeter &&
    lastPassengers === state.lastPassengers;
  return {
    state: unchanged ? state : { present, lastMeter, lastPassengers, lastMs: state.lastMs, departed },
    signal: idle ? idleSignal(s.meterState) : { present, entered, left, hire, meterState: s.meterState },
  };
}

const idleSignalOf = (meterState: MeterState | null): StandSignal =>
  Object.freeze({ present: noPresences, entered: noPresences, left: noPresences, hire: null, meterState });
const idleSignals = {
  free: idleSignalOf('free'),
  hired: idleSignalOf('hired'),
  stopped: idleSignalOf('stopped'),
  off: idleSignalOf('off'),
  none: idleSignalOf(null),
};

/**
 * The signal of a taxi at no stand, just left none and not hired here (most samples of most
 * taxis): one shared, frozen answer per meter state instead of a new one per sample.
 */
function idleSignal(meterState: MeterState | null): StandSignal {
  switch (meterState) {
    case 'free':
      return idleSignals.free;
    case 'hired':
      return idleSignals.hired;
    case 'stopped':
      return idleSignals.stopped;
    case 'off':
      return idleSignals.off;
    case null:
      return idleSignals.none;
    default:
      return idleSignalOf(meterState);
  }
}
