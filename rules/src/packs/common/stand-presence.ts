import type { MeterState } from '@vigia/core';
import type { SampleFacts } from '../../engine/sample-facts.js';
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

export interface Presence {
  readonly stand: StandRecord;
  /** Is the taxi one of the stand's queue (entitledTo)? */
  readonly entitled: boolean;
  readonly enteredMs: number;
  /** Last sample inside the area (or within the exit margin). */
  readonly lastInsideMs: number;
  readonly lat: number;
  readonly lon: number;
}

export interface StandSignal {
  readonly present: readonly Presence[];
  readonly entered: readonly Presence[];
  /** Presences that ended at or before this sample, with the instant the taxi was last seen inside. */
  readonly left: readonly Presence[];
  /**
   * The meter went to hired (or a passenger boarded with no meter data) at this sample, with the
   * stands within `hireEdgeM` of where it happened (distance 0: inside the area).
   */
  readonly hire: {
    readonly viaMeter: boolean;
    readonly near: readonly { readonly standId: string; readonly distanceM: number }[];
  } | null;
  readonly meterState: MeterState | null;
}

export interface PresenceState {
  readonly present: readonly Presence[];
  readonly lastMeter: MeterState | null;
  readonly lastPassengers: number | null;
}

export const initialPresenceState: PresenceState = { present: [], lastMeter: null, lastPassengers: null };

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

function hireAt(state: PresenceState, ctx: SampleFacts, config: StandPresenceConfig): StandSignal['hire'] {
  const viaMeter = hireVia(state, ctx);
  if (viaMeter === null) return null;
  // Where the hire happened, against every stand near it (a hire is rare: one more lookup).
  const near = ctx.registry
    .standsAt(ctx.sample.lat, ctx.sample.lon, ctx.ms, ctx.pack, config.hireEdgeM)
    .map((h) => ({ standId: h.stand.id, distanceM: h.distanceM }));
  return { viaMeter, near };
}

export function trackPresence(
  state: PresenceState,
  ctx: SampleFacts,
  config: StandPresenceConfig,
): { state: PresenceState; signal: StandSignal } {
  const s = ctx.sample;
  const hits = ctx.registry.standsAt(s.lat, s.lon, ctx.ms, ctx.pack, config.exitMarginM);
  const present: Presence[] = [];
  const entered: Presence[] = [];
  const left: Presence[] = [];
  const stale = (p: Presence): boolean => (ctx.ms - p.lastInsideMs) / 1000 > config.presenceTimeoutS;

  for (const p of state.present) {
    const hit = hits.find((h) => h.stand.id === p.stand.id);
    if (hit && !stale(p)) present.push({ ...p, lastInsideMs: ctx.ms, lat: s.lat, lon: s.lon });
    else left.push(p);
  }
  const slowEnough = ctx.speedKmh !== null && ctx.speedKmh <= config.maxEntrySpeedKmh;
  for (const hit of hits) {
    if (hit.distanceM > 0 || !slowEnough) continue;
    if (present.some((p) => p.stand.id === hit.stand.id)) continue;
    const p: Presence = {
      stand: hit.stand,
      entitled: entitledTo(hit.stand, ctx.vehicle, s.vehicleId),
      enteredMs: ctx.ms,
      lastInsideMs: ctx.ms,
      lat: s.lat,
      lon: s.lon,
    };
    present.push(p);
    entered.push(p);
  }
  return {
    state: {
      present,
      lastMeter: s.meterState ?? state.lastMeter,
      lastPassengers: s.passengers ?? state.lastPassengers,
    },
    signal: { present, entered, left, hire: hireAt(state, ctx, config), meterState: s.meterState },
  };
}
