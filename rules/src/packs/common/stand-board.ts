import type { MeterState } from '@vigia/core';
import type { Finding } from '../../engine/rule.js';
import type { StandRecord } from '../../registry/records.js';
import type { RuleId } from '../../violations/rule-ids.js';
import type { StandPresenceConfig } from './stand-config.js';
import type { BridgedGap, StandSignal } from './stand-presence.js';
import {
  byEntryOrder,
  decideOverflow,
  decideQueueJump,
  legalQueue,
  type StandMemberSnapshot,
  snapshotValue,
} from './stand-queue.js';

/**
 * The shared state of a pack's taxi stands: which taxi was where, when, with its meter in which
 * state — judged in event time (RULES.md "Late and buffered data").
 *
 * Vehicles' samples arrive interleaved and each vehicle's stream may lag the others, or come
 * hours later as one backlog. A decision about instant t (a hire: queue jump; a taxi that has
 * waited the minimum stay: overflow) is first taken once the pack's event-time watermark (the
 * latest sample time of any of its taxis — never the server's clock) has reached t +
 * `decisionDelayS` and every taxi known at the stand has reported past t, or, for a taxi that
 * stays silent, once the watermark is `presenceTimeoutS` further on. A silent taxi is then
 * taken as where its own data last put it. Decisions stay open to revision for
 * `general.backlogHorizonS`: when a taxi's data crosses an instant already decided at its stand
 * (a late backlog, a taxi unknown at the decision), the decision is taken again with it. The
 * decisions are monotone in what is known (stand-queue.ts), so a revision can only add or
 * confirm a violation; once every device's data is in, the violations are the same whatever
 * the order and the delay of its arrival.
 */

interface Interval {
  readonly vehicleId: string;
  readonly stand: StandRecord;
  /** One of the stand's queue (at a ponto fixo: a holder). */
  readonly entitled: boolean;
  readonly enteredMs: number;
  /** It may have arrived as early as this (first seen there after a silence). */
  readonly enteredFromMs: number;
  lastInsideMs: number;
  leftMs: number | null;
  lat: number;
  lon: number;
  /** Meter state changes while at the stand: [ms, state]. */
  readonly meterLog: Array<readonly [number, MeterState | null]>;
  /** Silences of its tracker bridged at the stand (its presence across them is inferred). */
  gaps: readonly BridgedGap[];
  /** Its hires at this stand: seen at `atMs`, happened after `fromMs` (its previous sample). */
  readonly hires: Array<{ readonly fromMs: number; readonly atMs: number }>;
  /** The overflow case of its current waiting streak, if any. */
  streak: OverflowCase | null;
}

interface CaseBase {
  readonly subject: Interval;
  /** The decision instant. */
  readonly atMs: number;
  decided: boolean;
  /** JSON of the last finding emitted for it (null: none). */
  emitted: string | null;
}

interface JumpCase extends CaseBase {
  readonly kind: 'jump';
  readonly viaMeter: boolean;
  /** The hire was seen only across a silence of the tracker. */
  readonly acrossGap: boolean;
  readonly lat: number;
  readonly lon: number;
}

interface OverflowCase extends CaseBase {
  readonly kind: 'overflow';
  /** When the entrant started waiting (free and stopped at the stand). */
  readonly sinceMs: number;
  /** The entrant's last sample of this waiting streak. */
  lastWaitingMs: number;
  /** The streak is over (hired, meter off, left, or the vehicle went silent). */
  ended: boolean;
  /** Flagged and still reported as ongoing. */
  flagged: boolean;
}

type StandCase = JumpCase | OverflowCase;

export interface StandBoardRules {
  readonly queueJump: RuleId;
  /** Null where the pack has no overflow rule (DF). */
  readonly overflow: { readonly ruleId: RuleId; readonly minStayS: number } | null;
}

/** How often (event time) a due decision that waits for a taxi's data is tried again. */
const RETRY_MS = 5000;

const isWaitingMeter = (state: MeterState | null): boolean => state === 'free' || state === null;

function loggedMeterAt(interval: Interval, ms: number): MeterState | null {
  let state: MeterState | null = null;
  for (const [at, s] of interval.meterLog) {
    if (at > ms) break;
    state = s;
  }
  return state;
}

/**
 * The meter at `ms`. Inside a silence bridged at the stand it is known only when it reads the
 * same on both sides; otherwise it is taken as the side that is not waiting (free or unknown),
 * so a silence never makes a taxi look as if it still waited.
 */
function meterAt(interval: Interval, ms: number): MeterState | null {
  const before = loggedMeterAt(interval, ms);
  const gap = interval.gaps.find((g) => g.fromMs < ms && ms < g.toMs);
  if (!gap) return before;
  const after = loggedMeterAt(interval, gap.toMs);
  return isWaitingMeter(before) ? after : before;
}

/** Since when the taxi has been waiting (at the stand, meter free or unknown) at `ms`; null: not waiting. */
function waitingSince(interval: Interval, ms: number): number | null {
  if (interval.enteredMs > ms || interval.lastInsideMs < ms) return null;
  let since: number | null = null;
  for (const [at, state] of interval.meterLog) {
    if (at > ms) break;
    if (!isWaitingMeter(state)) since = null;
    else since ??= Math.max(at, interval.enteredMs);
  }
  return since;
}

interface StandBoardState {
  readonly byStand: Map<string, Interval[]>;
  readonly byVehicle: Map<string, Interval[]>;
  readonly open: Map<string, Interval>;
  readonly lastSeen: Map<string, number>;
  readonly cases: Map<string, StandCase[]>;
  readonly latestDecided: Map<string, number>;
  readonly pending: StandCase[];
  readonly pendingAt: Map<string, number>;
  readonly minPendingMs: number;
  readonly nextTryMs: number;
  readonly watermarkMs: number;
  readonly forcedMs: number;
  readonly prunedAtMs: number;
  readonly queueDirty: Set<string>;
  readonly reportedQueues: Map<string, string>;
}

function refill<K, V>(target: Map<K, V>, source: ReadonlyMap<K, V>): void {
  target.clear();
  for (const [k, v] of source) target.set(k, v);
}

export class StandBoard {
  private readonly byStand = new Map<string, Interval[]>();
  /** Recent presences per vehicle (to place a hire). */
  private readonly byVehicle = new Map<string, Interval[]>();
  private readonly open = new Map<string, Interval>();
  private readonly lastSeen = new Map<string, number>();
  private readonly cases = new Map<string, StandCase[]>();
  /** Per stand, the latest decision instant already decided (skips the revision scan). */
  private readonly latestDecided = new Map<string, number>();
  private pending: StandCase[] = [];
  /** How many pending decisions each stand has. */
  private readonly pendingAt = new Map<string, number>();
  /** The earliest decision instant among `pending`. */
  private minPendingMs = Number.POSITIVE_INFINITY;
  /** A due decision waiting for a taxi's data is not tried again before the watermark reaches this. */
  private nextTryMs = Number.NEGATIVE_INFINITY;
  private watermarkMs = Number.NEGATIVE_INFINITY;
  /** Shutdown: decide everything up to this instant, ready or not. */
  private forcedMs = Number.NEGATIVE_INFINITY;
  private prunedAtMs = Number.NEGATIVE_INFINITY;
  /** Stands where a taxi arrived, left, was hired or changed its meter since `takeQueueChanges`. */
  private readonly queueDirty = new Set<string>();
  /** Per stand, the queue last handed out by `takeQueueChanges` (vehicle@entry, in order). */
  private readonly reportedQueues = new Map<string, string>();

  constructor(
    private readonly config: StandPresenceConfig,
    private readonly rules: StandBoardRules,
    /** general.backlogHorizonS: how long decisions stay open to late data. */
    private readonly horizonS = 86_400,
  ) {}

  /**
   * The board's state as data, for a checkpoint (engine/checkpoint.ts). The maps share their
   * intervals and cases; v8.serialize keeps that sharing within one checkpoint.
   */
  exportState(): StandBoardState {
    return {
      byStand: this.byStand,
      byVehicle: this.byVehicle,
      open: this.open,
      lastSeen: this.lastSeen,
      cases: this.cases,
      latestDecided: this.latestDecided,
      pending: this.pending,
      pendingAt: this.pendingAt,
      minPendingMs: this.minPendingMs,
      nextTryMs: this.nextTryMs,
      watermarkMs: this.watermarkMs,
      forcedMs: this.forcedMs,
      prunedAtMs: this.prunedAtMs,
      queueDirty: this.queueDirty,
      reportedQueues: this.reportedQueues,
    };
  }

  /** Resume from `exportState`'s data (trusted: inside a versioned, checked checkpoint). */
  importState(saved: unknown): void {
    const s = saved as StandBoardState;
    refill(this.byStand, s.byStand);
    refill(this.byVehicle, s.byVehicle);
    refill(this.open, s.open);
    refill(this.lastSeen, s.lastSeen);
    refill(this.cases, s.cases);
    refill(this.latestDecided, s.latestDecided);
    this.pending = s.pending;
    refill(this.pendingAt, s.pendingAt);
    this.minPendingMs = s.minPendingMs;
    this.nextTryMs = s.nextTryMs;
    this.watermarkMs = s.watermarkMs;
    this.forcedMs = s.forcedMs;
    this.prunedAtMs = s.prunedAtMs;
    this.queueDirty.clear();
    for (const stand of s.queueDirty) this.queueDirty.add(stand);
    refill(this.reportedQueues, s.reportedQueues);
  }

  /** Feed one vehicle's stand signal for its sample at `ms`; returns findings (for any vehicle). */
  update(vehicleId: string, ms: number, signal: StandSignal): Finding[] {
    const prevSeen = this.lastSeen.get(vehicleId) ?? Number.NEGATIVE_INFINITY;
    this.lastSeen.set(vehicleId, ms);
    if (ms > this.watermarkMs) this.watermarkMs = ms;
    const findings: Finding[] = [];
    const touched = new Set<string>();
    /** Stands where what this taxi did before `ms` changed (it arrived, left, or its meter changed). */
    const changed = new Set<string>();

    for (const p of signal.left) {
      // (A presence that ended earlier is repeated for a few seconds: only its lastSeen matters.)
      touched.add(p.stand.id);
      const interval = this.open.get(openKey(vehicleId, p.stand.id));
      if (!interval || interval.enteredMs !== p.enteredMs) continue;
      changed.add(p.stand.id);
      interval.leftMs = ms;
      this.open.delete(openKey(vehicleId, p.stand.id));
      this.endStreak(interval, findings);
    }
    for (const p of signal.present) {
      touched.add(p.stand.id);
      const key = openKey(vehicleId, p.stand.id);
      let interval = this.open.get(key);
      if (!interval) {
        interval = {
          vehicleId,
          stand: p.stand,
          entitled: p.entitled,
          enteredMs: p.enteredMs,
          enteredFromMs: p.enteredFromMs,
          lastInsideMs: p.lastInsideMs,
          leftMs: null,
          lat: p.lat,
          lon: p.lon,
          meterLog: [[ms, signal.meterState]],
          gaps: p.gaps,
          hires: [],
          streak: null,
        };
        this.open.set(key, interval);
        push(this.byStand, p.stand.id, interval);
        push(this.byVehicle, vehicleId, interval);
        changed.add(p.stand.id);
      }
      interval.lastInsideMs = p.lastInsideMs;
      interval.gaps = p.gaps;
      interval.lat = p.lat;
      interval.lon = p.lon;
      const lastLogged = interval.meterLog[interval.meterLog.length - 1];
      if (!lastLogged || lastLogged[1] !== signal.meterState) {
        interval.meterLog.push([ms, signal.meterState]);
        changed.add(p.stand.id);
      }
      this.trackStreak(interval, ms, signal.meterState, findings);
    }

    if (signal.hire) {
      const afterMs = this.config.hireAfterLeavingS * 1000;
      for (const interval of this.byVehicle.get(vehicleId) ?? []) {
        // DF Art. 37 e: a taxi hailed away from the stand must stop; only a hire inside the
        // area, or at its edge while still there or just after leaving it, is a hire at the stand.
        // (A taxi whose last fix inside is older — uncertain or jumped fixes since — is not placed.)
        const near = signal.hire.near.some((n) => n.standId === interval.stand.id);
        const atStand = ms - interval.lastInsideMs <= afterMs;
        if (!near || !atStand || interval.enteredMs > ms) continue;
        touched.add(interval.stand.id);
        changed.add(interval.stand.id);
        interval.hires.push({ fromMs: signal.hire.afterMs ?? ms, atMs: ms });
        this.addCase({
          kind: 'jump',
          subject: interval,
          atMs: ms,
          viaMeter: signal.hire.viaMeter,
          acrossGap: signal.hire.acrossGap,
          lat: interval.lat,
          lon: interval.lon,
          decided: false,
          emitted: null,
        });
      }
    }

    // Late data about instants already decided at these stands (this taxi had not reported past
    // them): its data crosses the instant, or tells where it was before it — decide them again.
    // A queue jump also depends on what the others did up to hireOrderToleranceS after it.
    const orderMs = this.config.hireOrderToleranceS * 1000;
    for (const standId of touched) {
      if ((this.latestDecided.get(standId) ?? Number.NEGATIVE_INFINITY) + orderMs <= prevSeen) continue;
      for (const c of this.cases.get(standId) ?? []) {
        const reachMs = c.kind === 'jump' ? c.atMs + orderMs : c.atMs;
        if (c.decided && reachMs > prevSeen && (c.atMs <= ms || changed.has(standId))) this.decide(c, findings);
      }
    }

    for (const standId of changed) this.queueDirty.add(standId);
    if (this.due()) this.resolve(findings);
    else if (this.dueAt(touched)) this.resolve(findings, touched);
    else this.prune();
    return findings;
  }

  /** Does a sample at `ms` have anything to do on the board (pending decisions coming due)? */
  wantsTick(ms: number): boolean {
    if (ms > this.watermarkMs) this.watermarkMs = ms;
    return this.due();
  }

  /** The vehicle went silent in event time: its open presences end where it was last seen inside. */
  vehicleGone(vehicleId: string): Finding[] {
    const findings: Finding[] = [];
    for (const [key, interval] of this.open) {
      if (interval.vehicleId !== vehicleId) continue;
      interval.leftMs = interval.lastInsideMs;
      this.open.delete(key);
      this.queueDirty.add(interval.stand.id);
      this.endStreak(interval, findings);
    }
    return findings;
  }

  /** What vehicleGone would finish (flagged overflows), leaving the board as it is. */
  peekGone(vehicleId: string): Finding[] {
    const findings: Finding[] = [];
    for (const interval of this.open.values()) {
      const c = interval.vehicleId === vehicleId ? interval.streak : null;
      if (c?.flagged) {
        const f = this.overflowFinding(c, true);
        if (f) findings.push(f);
      }
    }
    return findings;
  }

  /**
   * Decide what the event-time watermark allows. `untilMs` (shutdown only) forces every decision
   * up to that instant; a wall clock must never be passed here.
   */
  flush(untilMs?: number): Finding[] {
    if (untilMs !== undefined && untilMs > this.forcedMs) this.forcedMs = untilMs;
    const findings: Finding[] = [];
    this.resolve(findings);
    return findings;
  }

  /**
   * The stand's legal queue as the board knows it now (the latest data of each taxi at it): the
   * taxis still there, of the queue, waiting for hire (`legalQueue`, the predicate the queue-jump
   * decision uses), first in line first. A taxi with no meter data that took a passenger since
   * it began waiting is no longer waiting.
   */
  queue(standId: string): { vehicleId: string; enteredMs: number }[] {
    const members = (this.byStand.get(standId) ?? []).filter((i) => i.leftMs === null).map(currentMember);
    return legalQueue(members).map((m) => ({ vehicleId: m.vehicleId, enteredMs: m.enteredMs }));
  }

  /**
   * The queues that changed since the last call, each as it stands now; `asOfMs` is the pack's
   * event-time watermark. A stand is reported once with an empty queue when it empties (and on
   * its first change, so a queue stored by an earlier run of the process is overwritten).
   */
  takeQueueChanges(): { standId: string; asOfMs: number; items: { vehicleId: string; enteredMs: number }[] }[] {
    const out: { standId: string; asOfMs: number; items: { vehicleId: string; enteredMs: number }[] }[] = [];
    for (const standId of this.queueDirty) {
      const items = this.queue(standId);
      const key = items.map((i) => `${i.vehicleId}@${i.enteredMs}`).join(',');
      if (this.reportedQueues.get(standId) === key) continue;
      this.reportedQueues.set(standId, key);
      out.push({ standId, asOfMs: this.watermarkMs, items });
    }
    this.queueDirty.clear();
    return out;
  }

  /** Open presences per stand (for tests and the dashboard). */
  occupancy(standId: string): readonly { vehicleId: string; enteredMs: number }[] {
    return (this.byStand.get(standId) ?? [])
      .filter((i) => i.leftMs === null)
      .map((i) => ({ vehicleId: i.vehicleId, enteredMs: i.enteredMs }));
  }

  private addCase(c: StandCase): void {
    push(this.cases, c.subject.stand.id, c);
    this.pending.push(c);
    if (c.atMs < this.minPendingMs) this.minPendingMs = c.atMs;
    this.pendingAt.set(c.subject.stand.id, (this.pendingAt.get(c.subject.stand.id) ?? 0) + 1);
  }

  /** A waiting streak (meter free or unknown, at a ponto livre) starts, goes on or ends at this sample. */
  private trackStreak(interval: Interval, ms: number, meter: MeterState | null, findings: Finding[]): void {
    const overflow = this.rules.overflow;
    if (!overflow || interval.stand.kind !== 'livre') return;
    if (!isWaitingMeter(meter)) {
      this.endStreak(interval, findings);
      return;
    }
    const c = interval.streak;
    if (c === null) {
      const sinceMs = Math.max(ms, interval.enteredMs);
      const created: OverflowCase = {
        kind: 'overflow',
        subject: interval,
        atMs: sinceMs + overflow.minStayS * 1000,
        sinceMs,
        lastWaitingMs: ms,
        ended: false,
        flagged: false,
        decided: false,
        emitted: null,
      };
      interval.streak = created;
      this.addCase(created);
      return;
    }
    c.lastWaitingMs = ms;
    if (c.flagged) this.emit(c, this.overflowFinding(c, false), findings);
  }

  private endStreak(interval: Interval, findings: Finding[]): void {
    const c = interval.streak;
    if (!c) return;
    interval.streak = null;
    c.ended = true;
    if (c.flagged) {
      c.flagged = false;
      this.emit(c, this.overflowFinding(c, false), findings);
    }
  }

  /**
   * Is any pending decision old enough (by the watermark) to be tried? A decision that is due but
   * waits for a taxi's data is tried again when a taxi reports at its stand (dueAt), or at most
   * every RETRY_MS as the watermark moves (the outcome does not depend on when it is first taken:
   * late data revises it).
   */
  private due(): boolean {
    if (this.pending.length === 0) return false;
    if (this.forcedMs >= this.minPendingMs) return true;
    if (this.watermarkMs < this.nextTryMs) return false;
    return this.watermarkMs - this.minPendingMs >= this.config.decisionDelayS * 1000;
  }

  /** Is what `interval` did at `ms` known yet (its own data past `ms`, or it has left)? */
  private known(interval: Interval, ms: number): boolean {
    if (interval.lastInsideMs >= ms || interval.leftMs !== null) return true;
    return (this.lastSeen.get(interval.vehicleId) ?? Number.NEGATIVE_INFINITY) >= ms;
  }

  /**
   * Has the taxi's own data reached `ms`? Leaving is not enough: its meter started at the edge
   * just after leaving is a hire at the stand (the hire order). Past `hireAfterLeavingS` after
   * its last fix inside nothing it does is, so for a taxi that has left its data need reach no
   * further (the presence tracker repeats a departed presence that long, so the board sees it).
   */
  private reported(interval: Interval, ms: number): boolean {
    if (interval.lastInsideMs >= ms) return true;
    const needMs =
      interval.leftMs === null ? ms : Math.min(ms, interval.lastInsideMs + this.config.hireAfterLeavingS * 1000);
    return (this.lastSeen.get(interval.vehicleId) ?? Number.NEGATIVE_INFINITY) >= needMs;
  }

  private others(c: StandCase): Interval[] {
    const bound = c.kind === 'jump' ? c.atMs : c.sinceMs;
    return (this.byStand.get(c.subject.stand.id) ?? [])
      .filter((i) => i.vehicleId !== c.subject.vehicleId && i.enteredMs <= bound)
      .sort(byEntryOrder);
  }

  private ready(c: StandCase): boolean {
    if (this.forcedMs >= c.atMs) return true;
    const waitedMs = this.watermarkMs - c.atMs;
    const delayMs = this.config.decisionDelayS * 1000;
    if (waitedMs < delayMs) return false;
    if (waitedMs >= delayMs + this.config.presenceTimeoutS * 1000) return true;
    if (c.kind === 'overflow' && !this.known(c.subject, c.atMs)) return false;
    if (c.kind === 'overflow') return this.others(c).every((i) => this.known(i, c.atMs));
    const reachMs = c.atMs + this.config.hireOrderToleranceS * 1000;
    // Only a taxi there at the instant can be jumped: its hire order must be known too.
    return this.others(c).every((i) => this.known(i, c.atMs) && (i.lastInsideMs < c.atMs || this.reported(i, reachMs)));
  }

  /** Has a pending decision at one of these stands waited `decisionDelayS` (by the watermark)? */
  private dueAt(stands: ReadonlySet<string>): boolean {
    let any = false;
    for (const id of stands) if ((this.pendingAt.get(id) ?? 0) > 0) any = true;
    if (!any) return false;
    const delayMs = this.config.decisionDelayS * 1000;
    return this.pending.some((c) => stands.has(c.subject.stand.id) && this.watermarkMs - c.atMs >= delayMs);
  }

  /** Take the pending decisions that are ready (only those at `only`, when given). */
  private resolve(findings: Finding[], only?: ReadonlySet<string>): void {
    const delayMs = this.config.decisionDelayS * 1000;
    let waiting = false;
    this.pending = this.pending.filter((c) => {
      if (only && !only.has(c.subject.stand.id)) {
        if (this.watermarkMs - c.atMs >= delayMs) waiting = true;
        return true;
      }
      if (!this.ready(c)) {
        if (this.watermarkMs - c.atMs >= delayMs) waiting = true;
        return true;
      }
      c.decided = true;
      const standId = c.subject.stand.id;
      const left = (this.pendingAt.get(standId) ?? 1) - 1;
      if (left > 0) this.pendingAt.set(standId, left);
      else this.pendingAt.delete(standId);
      if (c.atMs > (this.latestDecided.get(standId) ?? Number.NEGATIVE_INFINITY))
        this.latestDecided.set(standId, c.atMs);
      this.decide(c, findings);
      return false;
    });
    this.minPendingMs = Number.POSITIVE_INFINITY;
    for (const c of this.pending) if (c.atMs < this.minPendingMs) this.minPendingMs = c.atMs;
    this.nextTryMs = waiting ? this.watermarkMs + RETRY_MS : Number.NEGATIVE_INFINITY;
    this.prune();
  }

  /** (Re)take the decision of a case with what is known now; emit when the finding changed. */
  private decide(c: StandCase, findings: Finding[]): void {
    if (c.kind === 'jump') {
      this.emit(c, this.jumpFinding(c), findings);
      return;
    }
    const f = this.overflowFinding(c, false);
    if (f) c.flagged = f.phase === 'ongoing';
    this.emit(c, f, findings);
  }

  private emit(c: StandCase, f: Finding | null, findings: Finding[]): void {
    // Decisions are monotone: a revision never clears an emitted violation (see stand-queue.ts).
    if (f === null) return;
    const json = JSON.stringify(f);
    if (json === c.emitted) return;
    c.emitted = json;
    findings.push(f);
  }

  private snapshot(interval: Interval, ms: number, withWaiting: boolean): StandMemberSnapshot {
    return {
      vehicleId: interval.vehicleId,
      enteredMs: interval.enteredMs,
      presentAtT: interval.enteredMs <= ms && interval.lastInsideMs >= ms,
      meterAtT: meterAt(interval, ms),
      lastInsideMs: interval.lastInsideMs,
      ...(interval.entitled ? {} : { inQueue: false }),
      ...(withWaiting ? { waitingSinceMs: waitingSince(interval, ms) } : {}),
    };
  }

  /**
   * A queue member as a queue-jump decision at `atMs` sees it: was it itself hired, or gone from
   * the stand, at the same time (within hireOrderToleranceS after: a silence that may hide such
   * a hire included; or not yet known), and does its presence rest on a bridged silence?
   */
  private queueSnapshot(interval: Interval, atMs: number): StandMemberSnapshot {
    const snapshot = this.snapshot(interval, atMs, false);
    if (!snapshot.presentAtT) return snapshot;
    const untilMs = atMs + this.config.hireOrderToleranceS * 1000;
    const sameTime =
      !this.reported(interval, untilMs) ||
      interval.lastInsideMs < untilMs ||
      interval.hires.some((h) => h.atMs > atMs && h.fromMs <= untilMs);
    const inferred = interval.gaps.some((g) => g.fromMs < atMs);
    return {
      ...snapshot,
      ...(sameTime ? { hiredOrLeftAtSameTime: true } : {}),
      ...(inferred ? { inferred: true } : {}),
    };
  }

  private jumpFinding(c: JumpCase): Finding | null {
    const hired = c.subject;
    const snapshots = this.others(c).map((i) => this.queueSnapshot(i, c.atMs));
    const decision = decideQueueJump(
      { enteredMs: hired.enteredFromMs, viaMeter: c.viaMeter, acrossGap: c.acrossGap },
      snapshots,
      this.config.queueToleranceS,
    );
    if (!decision) return null;
    return {
      ruleId: this.rules.queueJump,
      vehicleId: hired.vehicleId,
      eventId: `${hired.stand.id}:${c.atMs}`,
      phase: 'final',
      startedAt: hired.enteredMs,
      endedAt: c.atMs,
      lat: c.lat,
      lon: c.lon,
      place: { id: hired.stand.id, kind: 'stand', name: hired.stand.name },
      measured: {
        hiredAt: new Date(c.atMs).toISOString(),
        hiredVia: c.viaMeter ? 'meter' : 'passenger-count',
        ...(c.acrossGap ? { hireSeenAcrossSilence: true } : {}),
        hiredTaxiEnteredAt: new Date(hired.enteredMs).toISOString(),
        ...(hired.enteredFromMs < hired.enteredMs
          ? { hiredTaxiArrivalHiddenSince: new Date(hired.enteredFromMs).toISOString() }
          : {}),
        standKind: hired.stand.kind,
        jumpedOver: decision.jumpedOver.map((o) => o.vehicleId),
        longestWaitS: Math.round(Math.max(...decision.jumpedOver.map((o) => (c.atMs - o.enteredMs) / 1000))),
        queueToleranceS: this.config.queueToleranceS,
        hireOrderToleranceS: this.config.hireOrderToleranceS,
        queueSnapshot: snapshotValue(
          [...snapshots, { ...this.snapshot(hired, c.atMs, false), presentAtT: true }],
          c.atMs,
          this.config.presenceTimeoutS * 1000,
        ),
      },
      confidence: decision.confidence,
      variant: null,
    };
  }

  /** The overflow finding of a case as things stand (null: not an overflow); `ending` finishes it. */
  private overflowFinding(c: OverflowCase, ending: boolean): Finding | null {
    const overflow = this.rules.overflow;
    if (!overflow) return null;
    const entrant = c.subject;
    if (waitingSince(entrant, c.atMs) !== c.sinceMs) return null;
    const snapshots = this.others(c).map((i) => this.snapshot(i, c.atMs, true));
    const decision = decideOverflow(
      { waitingSinceMs: c.sinceMs, meterAtCheck: meterAt(entrant, c.atMs) },
      snapshots,
      entrant.stand.places,
    );
    if (!decision) return null;
    return {
      ruleId: overflow.ruleId,
      vehicleId: entrant.vehicleId,
      eventId: `${entrant.stand.id}:${c.sinceMs}`,
      phase: c.ended || ending ? 'final' : 'ongoing',
      startedAt: c.sinceMs,
      endedAt: c.lastWaitingMs,
      lat: entrant.lat,
      lon: entrant.lon,
      place: { id: entrant.stand.id, kind: 'stand', name: entrant.stand.name },
      measured: {
        places: entrant.stand.places,
        waitingAheadAtCheck: decision.ahead.length,
        waitingSince: new Date(c.sinceMs).toISOString(),
        checkedAt: new Date(c.atMs).toISOString(),
        minStayS: overflow.minStayS,
        queueSnapshot: snapshotValue(
          [...snapshots, { ...this.snapshot(entrant, c.atMs, true), presentAtT: true }],
          c.atMs,
          this.config.presenceTimeoutS * 1000,
        ),
      },
      confidence: decision.confidence,
      variant: null,
    };
  }

  /** Forget presences and decisions older than the backlog horizon (no late data may revise them). */
  private prune(): void {
    // Cheap to call on every sample: does the work once per simulated minute.
    if (this.watermarkMs - this.prunedAtMs < 60_000) return;
    this.prunedAtMs = this.watermarkMs;
    const horizon = this.watermarkMs - this.horizonS * 1000;
    const keptCases = new Set<Interval>();
    for (const [standId, list] of this.cases) {
      const kept = list.filter(
        (c) => !c.decided || c.atMs >= horizon || (c.kind === 'overflow' && !c.ended) || c.subject.leftMs === null,
      );
      for (const c of kept) keptCases.add(c.subject);
      if (kept.length === 0) this.cases.delete(standId);
      else if (kept.length !== list.length) this.cases.set(standId, kept);
    }
    for (const [standId, list] of this.byStand) {
      const kept = list.filter((i) => i.leftMs === null || i.lastInsideMs >= horizon || keptCases.has(i));
      if (kept.length === 0) this.byStand.delete(standId);
      else if (kept.length !== list.length) this.byStand.set(standId, kept);
    }
    const afterMs = this.config.hireAfterLeavingS * 1000;
    for (const [vehicleId, list] of this.byVehicle) {
      // Only presences a hire could still be placed at, by the vehicle's own clock (its data is in order).
      const recentMs = (this.lastSeen.get(vehicleId) ?? Number.NEGATIVE_INFINITY) - afterMs;
      const kept = list.filter((i) => i.leftMs === null || i.lastInsideMs >= recentMs);
      if (kept.length === 0) this.byVehicle.delete(vehicleId);
      else if (kept.length !== list.length) this.byVehicle.set(vehicleId, kept);
    }
    for (const [vehicleId, seen] of this.lastSeen) if (seen < horizon) this.lastSeen.delete(vehicleId);
  }
}

/** An open presence as of the taxi's latest data at the stand (for the legal queue now). */
function currentMember(interval: Interval): StandMemberSnapshot {
  let since: number | null = null;
  for (const [at, state] of interval.meterLog) {
    if (!isWaitingMeter(state)) since = null;
    else since ??= at;
  }
  const meter = interval.meterLog[interval.meterLog.length - 1]?.[1] ?? null;
  // Hired (meter, or a passenger boarding with no meter data) since it began waiting: not waiting.
  const waitingFrom = since;
  const hired = waitingFrom === null || interval.hires.some((h) => h.atMs >= waitingFrom);
  return {
    vehicleId: interval.vehicleId,
    enteredMs: interval.enteredMs,
    presentAtT: true,
    meterAtT: meter,
    lastInsideMs: interval.lastInsideMs,
    ...(interval.entitled ? {} : { inQueue: false }),
    ...(hired ? { hiredOrLeftAtSameTime: true } : {}),
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

const openKey = (vehicleId: string, standId: string): string => `${vehicleId}\u0000${standId}`;
