import type { MeterState } from '@vigia/core';
import type { Finding } from '../../engine/rule.js';
import type { StandRecord } from '../../registry/records.js';
import type { RuleId } from '../../violations/rule-ids.js';
import type { StandPresenceConfig } from './stand-config.js';
import type { StandSignal } from './stand-presence.js';
import { decideOverflow, decideQueueJump, type StandMemberSnapshot, snapshotValue } from './stand-queue.js';

/**
 * The shared state of a pack's taxi stands: which taxi was where, when, with its meter in which
 * state. Vehicles' samples arrive interleaved and each vehicle's stream may lag the others, so a
 * queue decision about instant t waits until every taxi involved has reported past t (or has
 * been silent for `presenceTimeoutS` by the pack's watermark — the latest sample time seen — and
 * is then taken as gone). The decision itself is a pure function (stand-queue.ts).
 */

interface Interval {
  readonly vehicleId: string;
  readonly stand: StandRecord;
  readonly enteredMs: number;
  lastInsideMs: number;
  leftMs: number | null;
  lat: number;
  lon: number;
  /** Meter state changes while at the stand: [ms, state]. */
  readonly meterLog: Array<readonly [number, MeterState | null]>;
}

interface PendingJump {
  readonly hired: Interval;
  readonly hireMs: number;
  readonly viaMeter: boolean;
  readonly lat: number;
  readonly lon: number;
}

interface PendingOverflow {
  readonly entrant: Interval;
  readonly checkMs: number;
}

interface FlaggedOverflow {
  readonly entrant: Interval;
  readonly finding: Finding;
}

export interface StandBoardRules {
  readonly queueJump: RuleId;
  /** Null where the pack has no overflow rule (DF). */
  readonly overflow: { readonly ruleId: RuleId; readonly minStayS: number } | null;
}

function meterAt(interval: Interval, ms: number): MeterState | null {
  let state: MeterState | null = null;
  for (const [at, s] of interval.meterLog) {
    if (at > ms) break;
    state = s;
  }
  return state;
}

export class StandBoard {
  private readonly byStand = new Map<string, Interval[]>();
  /** Recent presences per vehicle (for the hire lookback). */
  private readonly byVehicle = new Map<string, Interval[]>();
  private readonly open = new Map<string, Interval>();
  private readonly lastSeen = new Map<string, number>();
  private pendingJumps: PendingJump[] = [];
  private pendingOverflows: PendingOverflow[] = [];
  private readonly flagged = new Map<Interval, FlaggedOverflow>();
  private watermarkMs = 0;
  private prunedAtMs = 0;

  constructor(
    private readonly config: StandPresenceConfig,
    private readonly rules: StandBoardRules,
  ) {}

  /** Feed one vehicle's stand signal for its sample at `ms`; returns findings (for any vehicle). */
  update(vehicleId: string, ms: number, signal: StandSignal): Finding[] {
    this.lastSeen.set(vehicleId, ms);
    if (ms > this.watermarkMs) this.watermarkMs = ms;
    const findings: Finding[] = [];

    for (const p of signal.left) {
      const interval = this.open.get(openKey(vehicleId, p.stand.id));
      if (!interval) continue;
      interval.leftMs = ms;
      this.open.delete(openKey(vehicleId, p.stand.id));
      const flagged = this.flagged.get(interval);
      if (flagged) {
        findings.push({ ...flagged.finding, phase: 'final', endedAt: interval.lastInsideMs });
        this.flagged.delete(interval);
      }
    }
    for (const p of signal.present) {
      const key = openKey(vehicleId, p.stand.id);
      let interval = this.open.get(key);
      if (!interval) {
        interval = {
          vehicleId,
          stand: p.stand,
          enteredMs: p.enteredMs,
          lastInsideMs: p.lastInsideMs,
          leftMs: null,
          lat: p.lat,
          lon: p.lon,
          meterLog: [[ms, signal.meterState]],
        };
        this.open.set(key, interval);
        const list = this.byStand.get(p.stand.id);
        if (list) list.push(interval);
        else this.byStand.set(p.stand.id, [interval]);
        const own = this.byVehicle.get(vehicleId);
        if (own) own.push(interval);
        else this.byVehicle.set(vehicleId, [interval]);
        if (this.rules.overflow && p.stand.kind === 'livre') {
          this.pendingOverflows.push({ entrant: interval, checkMs: p.enteredMs + this.rules.overflow.minStayS * 1000 });
        }
      }
      interval.lastInsideMs = p.lastInsideMs;
      interval.lat = p.lat;
      interval.lon = p.lon;
      const lastLogged = interval.meterLog[interval.meterLog.length - 1];
      if (!lastLogged || lastLogged[1] !== signal.meterState) interval.meterLog.push([ms, signal.meterState]);
      const flagged = this.flagged.get(interval);
      if (flagged && ms > flagged.finding.endedAt) {
        const updated: Finding = { ...flagged.finding, endedAt: ms };
        this.flagged.set(interval, { entrant: interval, finding: updated });
        findings.push(updated);
      }
    }

    if (signal.hire) {
      const lookbackMs = this.config.hireLookbackS * 1000;
      for (const interval of this.byVehicle.get(vehicleId) ?? []) {
        const atStand = interval.leftMs === null || ms - interval.lastInsideMs <= lookbackMs;
        if (!atStand || interval.enteredMs > ms) continue;
        this.pendingJumps.push({
          hired: interval,
          hireMs: ms,
          viaMeter: signal.hire.viaMeter,
          lat: interval.lat,
          lon: interval.lon,
        });
      }
    }

    if (this.due()) findings.push(...this.resolve());
    else this.prune();
    return findings;
  }

  /**
   * Is any pending decision old enough (by the watermark) to be tried? Decisions wait at least
   * `decisionDelayS`, so most samples need not look at the pending lists at all.
   */
  private due(): boolean {
    const delayMs = this.config.decisionDelayS * 1000;
    const first = this.pendingJumps[0];
    const firstOverflow = this.pendingOverflows[0];
    return (
      (first !== undefined && this.watermarkMs - first.hireMs >= delayMs) ||
      (firstOverflow !== undefined && this.watermarkMs - firstOverflow.checkMs >= delayMs)
    );
  }

  /** Does a sample at `ms` have anything to do on the board (pending decisions coming due)? */
  wantsTick(ms: number): boolean {
    if (ms > this.watermarkMs) this.watermarkMs = ms;
    return this.due();
  }

  /** A vehicle went silent: its open presences end where it was last seen inside. */
  vehicleGone(vehicleId: string): Finding[] {
    const findings: Finding[] = [];
    for (const [key, interval] of this.open) {
      if (interval.vehicleId !== vehicleId) continue;
      interval.leftMs = interval.lastInsideMs;
      this.open.delete(key);
      const flagged = this.flagged.get(interval);
      if (flagged) {
        findings.push({ ...flagged.finding, phase: 'final' });
        this.flagged.delete(interval);
      }
    }
    return findings;
  }

  /** Advance the watermark (no sample needed) and decide what can be decided. */
  flush(nowMs: number): Finding[] {
    if (nowMs > this.watermarkMs) this.watermarkMs = nowMs;
    return this.resolve();
  }

  /** Open presences per stand (for tests and the dashboard). */
  occupancy(standId: string): readonly { vehicleId: string; enteredMs: number }[] {
    return (this.byStand.get(standId) ?? [])
      .filter((i) => i.leftMs === null)
      .map((i) => ({ vehicleId: i.vehicleId, enteredMs: i.enteredMs }));
  }

  /** Is what `interval` did at `ms` known yet? */
  private known(interval: Interval, ms: number): boolean {
    if (interval.lastInsideMs >= ms || interval.leftMs !== null) return true;
    const seen = this.lastSeen.get(interval.vehicleId) ?? Number.NEGATIVE_INFINITY;
    if (seen >= ms) return true;
    return (this.watermarkMs - seen) / 1000 > this.config.presenceTimeoutS;
  }

  private snapshot(interval: Interval, ms: number): StandMemberSnapshot {
    return {
      vehicleId: interval.vehicleId,
      enteredMs: interval.enteredMs,
      presentAtT: interval.enteredMs <= ms && interval.lastInsideMs >= ms,
      meterAtT: meterAt(interval, ms),
    };
  }

  private resolve(): Finding[] {
    const findings: Finding[] = [];
    const waitLimitMs = 2 * this.config.presenceTimeoutS * 1000;
    const delayMs = this.config.decisionDelayS * 1000;

    this.pendingJumps = this.pendingJumps.filter((p) => {
      if (this.watermarkMs - p.hireMs < delayMs) return true;
      const others = (this.byStand.get(p.hired.stand.id) ?? []).filter(
        (i) => i.vehicleId !== p.hired.vehicleId && i.enteredMs <= p.hireMs,
      );
      const ready = others.every((i) => this.known(i, p.hireMs)) || this.watermarkMs - p.hireMs > waitLimitMs;
      if (!ready) return true;
      const snapshots = others.map((i) => this.snapshot(i, p.hireMs));
      const decision = decideQueueJump(
        { enteredMs: p.hired.enteredMs, viaMeter: p.viaMeter },
        snapshots,
        this.config.queueToleranceS,
      );
      if (decision) {
        findings.push({
          ruleId: this.rules.queueJump,
          vehicleId: p.hired.vehicleId,
          eventId: `${p.hired.stand.id}:${p.hireMs}`,
          phase: 'final',
          startedAt: p.hired.enteredMs,
          endedAt: p.hireMs,
          lat: p.lat,
          lon: p.lon,
          place: { id: p.hired.stand.id, kind: 'stand', name: p.hired.stand.name },
          measured: {
            hiredAt: new Date(p.hireMs).toISOString(),
            hiredVia: p.viaMeter ? 'meter' : 'passenger-count',
            hiredTaxiEnteredAt: new Date(p.hired.enteredMs).toISOString(),
            jumpedOver: decision.jumpedOver.map((o) => o.vehicleId),
            longestWaitS: Math.round(Math.max(...decision.jumpedOver.map((o) => (p.hireMs - o.enteredMs) / 1000))),
            queueToleranceS: this.config.queueToleranceS,
            queueSnapshot: snapshotValue(
              [...snapshots, { ...this.snapshot(p.hired, p.hireMs), presentAtT: true }],
              p.hireMs,
            ),
          },
          confidence: decision.confidence,
          variant: null,
        });
      }
      return false;
    });

    const overflow = this.rules.overflow;
    if (overflow) {
      this.pendingOverflows = this.pendingOverflows.filter((p) => {
        if (this.watermarkMs - p.checkMs < delayMs) return true;
        const others = (this.byStand.get(p.entrant.stand.id) ?? []).filter(
          (i) => i !== p.entrant && i.enteredMs < p.entrant.enteredMs,
        );
        const ready =
          (this.known(p.entrant, p.checkMs) && others.every((i) => this.known(i, p.checkMs))) ||
          this.watermarkMs - p.checkMs > waitLimitMs;
        if (!ready) return true;
        const snapshots = others.map((i) => this.snapshot(i, p.checkMs));
        const decision = decideOverflow(
          { presentAtCheck: p.entrant.lastInsideMs >= p.checkMs, enteredMs: p.entrant.enteredMs },
          snapshots,
          p.entrant.stand.places,
        );
        if (decision) {
          const stillThere = p.entrant.leftMs === null;
          const finding: Finding = {
            ruleId: overflow.ruleId,
            vehicleId: p.entrant.vehicleId,
            eventId: `${p.entrant.stand.id}:${p.entrant.enteredMs}`,
            phase: stillThere ? 'ongoing' : 'final',
            startedAt: p.entrant.enteredMs,
            endedAt: p.entrant.lastInsideMs,
            lat: p.entrant.lat,
            lon: p.entrant.lon,
            place: { id: p.entrant.stand.id, kind: 'stand', name: p.entrant.stand.name },
            measured: {
              places: p.entrant.stand.places,
              waitingAheadAtCheck: decision.ahead.length,
              checkedAt: new Date(p.checkMs).toISOString(),
              minStayS: overflow.minStayS,
              queueSnapshot: snapshotValue(
                [...snapshots, { ...this.snapshot(p.entrant, p.checkMs), presentAtT: true }],
                p.checkMs,
              ),
            },
            confidence: decision.confidence,
            variant: null,
          };
          findings.push(finding);
          if (stillThere) this.flagged.set(p.entrant, { entrant: p.entrant, finding });
        }
        return false;
      });
    }

    this.prune();
    return findings;
  }

  /** Forget presences nobody can ask about any more. */
  private prune(): void {
    // Cheap to call on every sample: does the work once per simulated minute.
    if (this.watermarkMs - this.prunedAtMs < 60_000) return;
    this.prunedAtMs = this.watermarkMs;
    const horizon = this.watermarkMs - (3 * this.config.presenceTimeoutS + this.config.hireLookbackS) * 1000;
    for (const [standId, list] of this.byStand) {
      const kept = list.filter(
        (i) =>
          i.leftMs === null ||
          i.leftMs >= horizon ||
          this.pendingJumps.some((p) => p.hired === i) ||
          this.pendingOverflows.some((p) => p.entrant === i),
      );
      if (kept.length === 0) this.byStand.delete(standId);
      else if (kept.length !== list.length) this.byStand.set(standId, kept);
    }
    const live = new Set<Interval>();
    for (const list of this.byStand.values()) for (const i of list) live.add(i);
    for (const [vehicleId, list] of this.byVehicle) {
      const kept = list.filter((i) => live.has(i));
      if (kept.length === 0) this.byVehicle.delete(vehicleId);
      else if (kept.length !== list.length) this.byVehicle.set(vehicleId, kept);
    }
  }
}

const openKey = (vehicleId: string, standId: string): string => `${vehicleId}\u0000${standId}`;
