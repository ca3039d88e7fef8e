import type { MeterState } from '@vigia/core';
import type { Confidence, MeasuredValue } from '../../violations/violation.js';

/**
 * The two cross-taxi stand decisions, as pure functions of a snapshot of the stand at one
 * instant. The stand board (stand-board.ts) gathers the snapshot once every taxi involved has
 * reported past that instant, so late telemetry from one taxi cannot make another look guilty.
 * Both decisions are monotone in the snapshot: adding a taxi can add a jump or an overflow, or
 * make one confirmed, never clear one; so a decision the board revises when a late backlog
 * arrives only ever grows.
 */

/** One taxi at the stand, as known at the decision instant. */
export interface StandMemberSnapshot {
  readonly vehicleId: string;
  readonly enteredMs: number;
  /** Was it at the stand at the instant (a sample inside at or after it, none outside before)? */
  readonly presentAtT: boolean;
  /** Its meter at the instant (null: no meter data). */
  readonly meterAtT: MeterState | null;
  /** Its last sample inside the stand (evidence only: how long ago a taxi gone by the instant left). */
  readonly lastInsideMs?: number;
  /** Is it one of the stand's queue (at a *ponto fixo*, a holder)? Default true. */
  readonly inQueue?: boolean;
  /** Overflow: since when it has been waiting (free and stopped at the stand) at the instant; null: not waiting. */
  readonly waitingSinceMs?: number | null;
  /**
   * Queue jump: was it itself hired, or gone from the stand, within
   * `stands.hireOrderToleranceS` after the instant (or may a silence of its tracker hide such a
   * hire, or has its data not yet reached that far)? Then it was boarding, or leaving, at the
   * same time: not jumped. Default false.
   */
  readonly hiredOrLeftAtSameTime?: boolean;
  /** Does its presence at the instant rest on a silence of its tracker bridged at the stand? Default false. */
  readonly inferred?: boolean;
}

/**
 * A taxi of the queue waiting for a passenger: meter free, or unknown (then only a suspicion).
 * The one predicate of who is in line: the queue-jump decision and the legal queue dispatch
 * reads (`legalQueue`) both use it.
 */
export const waitingForHire = (m: StandMemberSnapshot): boolean =>
  m.inQueue !== false &&
  m.presentAtT &&
  m.hiredOrLeftAtSameTime !== true &&
  (m.meterAtT === 'free' || m.meterAtT === null);

/** First in line first: earlier entry, then vehicle id (the order the board keeps). */
export const byEntryOrder = (
  a: { readonly enteredMs: number; readonly vehicleId: string },
  b: { readonly enteredMs: number; readonly vehicleId: string },
): number => a.enteredMs - b.enteredMs || (a.vehicleId < b.vehicleId ? -1 : a.vehicleId > b.vehicleId ? 1 : 0);

/**
 * The stand's legal queue at the instant of the snapshot (DF Art. 37 m; Belém Art. 3 XIV): the
 * taxis there, of the queue (at a *ponto fixo* only holders) and waiting for hire, first in
 * line first. Exactly the taxis a hire at that instant would jump, tolerance aside.
 */
export function legalQueue<M extends StandMemberSnapshot>(members: readonly M[]): M[] {
  return members.filter(waitingForHire).sort(byEntryOrder);
}

export interface QueueJumpDecision {
  readonly jumpedOver: readonly StandMemberSnapshot[];
  readonly confidence: Confidence;
}

/**
 * DF Art. 37 m, n / Belém Art. 3 XIV, Art. 58 item 3.1: taxi H was hired at the stand at instant
 * t while a taxi of the queue (at a *ponto fixo*: a holder) that had entered at least
 * `toleranceS` before H (as early as H may have arrived) was still there and free, and was
 * not itself hired, nor gone, at the same time (`hiredOrLeftAtSameTime`). A taxi outside the queue is never jumped. Confirmed only when every
 * input was measured: the hire seen on the meter (not across a silence of H's tracker) and a
 * jumped taxi whose meter read free and whose presence rests on no bridged silence.
 */
export function decideQueueJump(
  hired: { readonly enteredMs: number; readonly viaMeter: boolean; readonly acrossGap?: boolean },
  others: readonly StandMemberSnapshot[],
  toleranceS: number,
): QueueJumpDecision | null {
  const jumpedOver = others.filter((o) => o.enteredMs <= hired.enteredMs - toleranceS * 1000 && waitingForHire(o));
  if (jumpedOver.length === 0) return null;
  const certain =
    hired.viaMeter && hired.acrossGap !== true && jumpedOver.some((o) => o.meterAtT === 'free' && o.inferred !== true);
  return { jumpedOver, confidence: certain ? 'confirmed' : 'suspected' };
}

export interface OverflowDecision {
  readonly ahead: readonly StandMemberSnapshot[];
  readonly confidence: Confidence;
}

/**
 * Belém Art. 3 XIV b: a *ponto livre* takes any taxi up to its places. Only WAITING taxis
 * count — free (meter free, or unknown: then suspected) and stopped at the stand for the
 * minimum stay. Judged when taxi C has waited the minimum stay (`checkMs`): if at least
 * `places` other taxis that started waiting before C are still waiting then, C started
 * waiting at a full stand. A taxi that started waiting before the stand was full is never
 * flagged; a place freed before C's minimum stay clears C; a hired taxi stopping to drop a
 * passenger off is neither counted nor flagged (it is not waiting).
 */
export function decideOverflow(
  entrant: { readonly waitingSinceMs: number | null; readonly meterAtCheck: MeterState | null },
  others: readonly StandMemberSnapshot[],
  places: number,
): OverflowDecision | null {
  const since = entrant.waitingSinceMs;
  if (since === null) return null;
  const ahead = others.filter(
    (o) => o.presentAtT && o.waitingSinceMs !== undefined && o.waitingSinceMs !== null && o.waitingSinceMs < since,
  );
  if (ahead.length < places) return null;
  const certain = entrant.meterAtCheck === 'free' && ahead.filter((o) => o.meterAtT === 'free').length >= places;
  return { ahead, confidence: certain ? 'confirmed' : 'suspected' };
}

/**
 * The queue as evidence: the taxis at the stand at the decision instant, first in line first,
 * and those that left it within `recentMs` before (shown as not present). The board remembers a
 * stand's presences for the whole backlog horizon (late data may still concern them); older ones
 * decided nothing and would only bury the queue in a day's history.
 */
export function snapshotValue(members: readonly StandMemberSnapshot[], atMs: number, recentMs: number): MeasuredValue {
  return members
    .filter((m) => m.presentAtT || m.lastInsideMs === undefined || atMs - m.lastInsideMs <= recentMs)
    .sort(byEntryOrder)
    .map((m) => ({
      vehicleId: m.vehicleId,
      enteredAt: new Date(m.enteredMs).toISOString(),
      waitedS: Math.round((atMs - m.enteredMs) / 1000),
      meterState: m.meterAtT,
      present: m.presentAtT,
      ...(m.inQueue === false ? { inQueue: false } : {}),
      ...(m.inferred === true ? { presenceAcrossSilence: true } : {}),
      ...(m.hiredOrLeftAtSameTime === true ? { hiredOrLeftAtSameTime: true } : {}),
      ...(m.waitingSinceMs !== undefined
        ? { waitingSince: m.waitingSinceMs === null ? null : new Date(m.waitingSinceMs).toISOString() }
        : {}),
    }));
}
