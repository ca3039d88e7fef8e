import type { MeterState } from '@vigia/core';
import type { Confidence, MeasuredValue } from '../../violations/violation.js';

/**
 * The two cross-taxi stand decisions, as pure functions of a snapshot of the stand at one
 * instant. The stand board (stand-board.ts) gathers the snapshot once every taxi involved has
 * reported past that instant, so late telemetry from one taxi cannot make another look guilty.
 */

/** One taxi at the stand, as known at the decision instant. */
export interface StandMemberSnapshot {
  readonly vehicleId: string;
  readonly enteredMs: number;
  /** Was it at the stand at the instant (a sample inside at or after it, none outside before)? */
  readonly presentAtT: boolean;
  /** Its meter at the instant (null: no meter data). */
  readonly meterAtT: MeterState | null;
}

/** A taxi waiting for a passenger: meter free, or unknown (then only a suspicion). */
const waitingForHire = (m: StandMemberSnapshot): boolean =>
  m.presentAtT && (m.meterAtT === 'free' || m.meterAtT === null);

export interface QueueJumpDecision {
  readonly jumpedOver: readonly StandMemberSnapshot[];
  readonly confidence: Confidence;
}

/**
 * DF Art. 37 m, n / Belém Art. 58 item 1.5: taxi H was hired at the stand at instant t while a
 * taxi that had entered at least `toleranceS` before H was still there and free.
 */
export function decideQueueJump(
  hired: { readonly enteredMs: number; readonly viaMeter: boolean },
  others: readonly StandMemberSnapshot[],
  toleranceS: number,
): QueueJumpDecision | null {
  const jumpedOver = others.filter((o) => o.enteredMs <= hired.enteredMs - toleranceS * 1000 && waitingForHire(o));
  if (jumpedOver.length === 0) return null;
  const certain = hired.viaMeter && jumpedOver.some((o) => o.meterAtT === 'free');
  return { jumpedOver, confidence: certain ? 'confirmed' : 'suspected' };
}

export interface OverflowDecision {
  readonly ahead: readonly StandMemberSnapshot[];
  readonly confidence: Confidence;
}

/**
 * Belém Art. 3 XIV b: a *ponto livre* takes any taxi up to its places. Judged at
 * `minStay` after taxi C entered: if C is still there and at least `places` taxis that entered
 * before it are still waiting (not hired), C entered a full stand. Taxis that entered before it
 * was full are never flagged; a place freed within `minStay` clears C.
 */
export function decideOverflow(
  entrant: { readonly presentAtCheck: boolean; readonly enteredMs: number },
  others: readonly StandMemberSnapshot[],
  places: number,
): OverflowDecision | null {
  if (!entrant.presentAtCheck) return null;
  const ahead = others.filter(
    (o) => o.enteredMs < entrant.enteredMs && o.presentAtT && o.meterAtT !== 'hired' && o.meterAtT !== 'stopped',
  );
  if (ahead.length < places) return null;
  return { ahead, confidence: 'confirmed' };
}

export function snapshotValue(members: readonly StandMemberSnapshot[], atMs: number): MeasuredValue {
  return [...members]
    .sort((a, b) => a.enteredMs - b.enteredMs)
    .map((m) => ({
      vehicleId: m.vehicleId,
      enteredAt: new Date(m.enteredMs).toISOString(),
      waitedS: Math.round((atMs - m.enteredMs) / 1000),
      meterState: m.meterAtT,
      present: m.presentAtT,
    }));
}
