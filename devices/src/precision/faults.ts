import type { TelemetryInput } from '@vigia/core';
import { offsetM } from '../geo.js';
import type { Random } from '../random.js';
import { round } from '../vehicles/gps-receiver.js';

/**
 * Realistic, bounded sensor and link faults of a tracker, applied to the records an honest
 * vehicle's tracker produces (what `SimVehicle.report` returns) before they are uploaded. Each
 * fault is a physical failure seen on real fleets, with a magnitude a reviewer can check against
 * the device's own reports; none makes the vehicle do anything it did not do. They are what the
 * rules must tell apart from a violation (issue 7: the precision harness).
 *
 * | fault            | model                                                                                        |
 * | ---------------- | -------------------------------------------------------------------------------------------- |
 * | GPS jitter       | the receiver's own error (3–15 m, within its reported accuracy, `GpsReceiver`), plus urban-    |
 * |                  | canyon episodes (~1 per 2 h, 1–5 min) where the reported accuracy degrades to 15–50 m and      |
 * |                  | every fix wanders, fix to fix, within it; and, on trackers without a static-navigation filter  |
 * |                  | (half of them), a Doppler speed of 0–3 km/h while the vehicle stands still                     |
 * | multipath jump   | ~1 per hour: one or two consecutive fixes 50–300 m off in one direction; half the receivers  |
 * |                  | report it honestly (accuracy 1–1.5 × the jump), half keep reporting their usual 3–15 m         |
 * | dropout          | ~1 per 3 h: the tracker loses 10 s–10 min of records (log-uniform; reboot, power dip)         |
 * | counter flicker  | ~1 per hour: the passenger count reads one more (or, with someone aboard, one fewer) for one   |
 * |                  | or two records with the door closed, then comes back; a bus's counter reports the phantom     |
 * |                  | boarding and its alighting (or the reverse) in its boardings / alightings                      |
 * | door bounce      | ~1 per hour: the door switch reads open for 1–2 s with the door closed; a record stamped in   |
 * |                  | that window says open                                                                          |
 * | clock skew       | the device clock is off by a constant −5…+5 s: every `ts` it stamps                          |
 * | late backlog     | ~1 per vehicle-day: a coverage gap of 5–40 min; records are buffered on the device and        |
 * |                  | uploaded in one burst when coverage returns, before the live ones                             |
 *
 * Rates are per hour of simulated time the tracker runs (parked vehicles report once a minute, so
 * most faults land on working hours). Every draw comes from the tracker's own random stream: the
 * same seed gives the same faults, and the faults never change what the vehicle does.
 */
export interface FaultModel {
  jitter: {
    /** Urban-canyon episodes per hour. */
    canyonPerHour: number;
    canyonDurationS: readonly [number, number];
    /** Reported accuracy during an episode, metres. */
    canyonAccuracyM: readonly [number, number];
    /** Share of trackers reporting a Doppler speed at a standstill (no static-navigation filter). */
    standstillSpeedShare: number;
    /** Largest speed such a tracker reports standing still, km/h (half-normal, sd a third of it). */
    standstillSpeedMaxKmh: number;
  };
  multipath: {
    perHour: number;
    jumpM: readonly [number, number];
    /** Consecutive fixes displaced. */
    fixes: readonly [number, number];
    /** Share of jumps whose reported accuracy covers the jump. */
    honestAccuracyShare: number;
  };
  dropout: { perHour: number; durationS: readonly [number, number] };
  counterFlicker: { perHour: number; records: readonly [number, number] };
  doorBounce: { perHour: number; durationS: readonly [number, number] };
  clockSkew: { maxS: number };
  backlog: { perDay: number; durationMin: readonly [number, number] };
}

/** The magnitudes above: what the precision harness plays. */
export const REALISTIC_FAULTS: FaultModel = {
  jitter: {
    canyonPerHour: 0.5,
    canyonDurationS: [60, 300],
    canyonAccuracyM: [15, 50],
    standstillSpeedShare: 0.5,
    standstillSpeedMaxKmh: 3,
  },
  multipath: { perHour: 1, jumpM: [50, 300], fixes: [1, 2], honestAccuracyShare: 0.5 },
  dropout: { perHour: 1 / 3, durationS: [10, 600] },
  counterFlicker: { perHour: 1, records: [1, 2] },
  doorBounce: { perHour: 1, durationS: [1, 2] },
  clockSkew: { maxS: 5 },
  backlog: { perDay: 1, durationMin: [5, 40] },
};

/** How many faults of each kind a tracker injected. */
export interface FaultCounts {
  canyonEpisodes: number;
  /** Records reporting a speed at a standstill. */
  standstillSpeeds: number;
  multipathJumps: number;
  /** Of which the reported accuracy covered the jump. */
  multipathHonest: number;
  dropouts: number;
  /** Records lost in dropouts. */
  droppedRecords: number;
  counterFlickers: number;
  doorBounces: number;
  backlogs: number;
  /** Records uploaded late, in backlogs. */
  lateRecords: number;
}

/** One injected fault, for the diagnosis of a violation raised near it. */
export interface FaultEvent {
  kind: 'canyon' | 'multipath' | 'dropout' | 'flicker' | 'door-bounce' | 'backlog';
  /** True instant it began, ms. */
  atMs: number;
  /** When it ended (dropouts, gaps, episodes), ms. */
  untilMs?: number;
  detail: string;
}

/** How many recent faults a tracker remembers (a week of them). */
const FAULT_LOG_SIZE = 5000;

export const emptyFaultCounts = (): FaultCounts => ({
  canyonEpisodes: 0,
  standstillSpeeds: 0,
  multipathJumps: 0,
  multipathHonest: 0,
  dropouts: 0,
  droppedRecords: 0,
  counterFlickers: 0,
  doorBounces: 0,
  backlogs: 0,
  lateRecords: 0,
});

export function addFaultCounts(into: FaultCounts, from: FaultCounts): void {
  for (const k of Object.keys(into) as (keyof FaultCounts)[]) into[k] += from[k];
}

const HOUR_MS = 3_600_000;

/**
 * One tracker's faults. Feed it every record the device produces, in time order, with the true
 * instant it was produced; it returns the records the device uploads at that instant (none while
 * a dropout or a coverage gap lasts, the whole backlog and the current record when coverage
 * returns). Usable by the live simulator as by the precision harness: wrap `SimVehicle.report`.
 */
export class FaultyTracker {
  readonly counts = emptyFaultCounts();
  private readonly skewMs: number;
  private readonly standstillSpeed: boolean;
  private started = false;

  private nextCanyonMs = 0;
  private canyonEndMs = Number.NEGATIVE_INFINITY;
  private canyonAccuracyM = 0;

  private nextJumpMs = 0;
  private jumpFixesLeft = 0;
  private jump = { northM: 0, eastM: 0, accuracyM: null as number | null };

  private nextDropoutMs = 0;
  private dropoutEndMs = Number.NEGATIVE_INFINITY;

  private nextFlickerMs = 0;
  private flickerLeft = 0;
  private flickerDelta = 0;
  /** A bus counter owes the reverse count of a flicker on the record after it. */
  private flickerOwed = 0;

  private nextBounceMs = 0;
  private bounceEndMs = Number.NEGATIVE_INFINITY;

  private nextGapMs = 0;
  private gapEndMs = Number.NEGATIVE_INFINITY;
  private readonly backlog: TelemetryInput[] = [];
  private readonly log: FaultEvent[] = [];

  constructor(
    private readonly rng: Random,
    private readonly model: FaultModel = REALISTIC_FAULTS,
  ) {
    this.skewMs = Math.round(rng.range(-model.clockSkew.maxS, model.clockSkew.maxS) * 1000);
    this.standstillSpeed = rng.chance(model.jitter.standstillSpeedShare);
  }

  /** The device clock's constant error, ms (added to every `ts`). */
  get clockSkewMs(): number {
    return this.skewMs;
  }

  /** The faults this tracker injected between `fromMs` and `toMs` (of the last few hundred). */
  faultsBetween(fromMs: number, toMs: number): FaultEvent[] {
    return this.log.filter((e) => (e.untilMs ?? e.atMs) >= fromMs && e.atMs <= toMs);
  }

  private note(event: FaultEvent): void {
    this.log.push(event);
    if (this.log.length > FAULT_LOG_SIZE) this.log.shift();
  }

  /** Records held on the device, waiting for coverage. */
  get buffered(): number {
    return this.backlog.length;
  }

  process(record: TelemetryInput, nowMs: number): TelemetryInput[] {
    if (!this.started) this.start(nowMs);
    const m = this.model;

    // Link: a dropout loses records; a coverage gap holds them for later.
    if (nowMs >= this.nextDropoutMs && nowMs >= this.gapEndMs) {
      this.counts.dropouts++;
      this.dropoutEndMs = nowMs + this.logUniform(m.dropout.durationS) * 1000;
      this.note({
        kind: 'dropout',
        atMs: nowMs,
        untilMs: this.dropoutEndMs,
        detail: `${secs(this.dropoutEndMs - nowMs)} lost`,
      });
      this.nextDropoutMs = this.dropoutEndMs + this.every(m.dropout.perHour);
    }
    if (nowMs < this.dropoutEndMs) {
      this.counts.droppedRecords++;
      // A multipath jump is a matter of seconds: it does not outlast the dropout.
      this.jumpFixesLeft = 0;
      return [];
    }
    if (nowMs >= this.nextGapMs && nowMs >= this.gapEndMs) {
      this.counts.backlogs++;
      this.gapEndMs = nowMs + this.rng.range(m.backlog.durationMin[0], m.backlog.durationMin[1]) * 60_000;
      this.note({
        kind: 'backlog',
        atMs: nowMs,
        untilMs: this.gapEndMs,
        detail: `${secs(this.gapEndMs - nowMs)} uploaded late`,
      });
      this.nextGapMs = this.gapEndMs + this.every(m.backlog.perDay / 24);
    }

    const out = this.sensors(record, nowMs);
    if (nowMs < this.gapEndMs) {
      this.backlog.push(out);
      return [];
    }
    if (this.backlog.length > 0) {
      this.counts.lateRecords += this.backlog.length;
      const late = this.backlog.splice(0);
      late.push(out);
      return late;
    }
    return [out];
  }

  private start(nowMs: number): void {
    this.started = true;
    const m = this.model;
    this.nextCanyonMs = nowMs + this.every(m.jitter.canyonPerHour);
    this.nextJumpMs = nowMs + this.every(m.multipath.perHour);
    this.nextDropoutMs = nowMs + this.every(m.dropout.perHour);
    this.nextFlickerMs = nowMs + this.every(m.counterFlicker.perHour);
    this.nextBounceMs = nowMs + this.every(m.doorBounce.perHour);
    this.nextGapMs = nowMs + this.every(m.backlog.perDay / 24);
  }

  /** The sensor faults of one record (a copy; the input is left as it was). */
  private sensors(input: TelemetryInput, nowMs: number): TelemetryInput {
    const m = this.model;
    const r: TelemetryInput = { ...input };
    if (this.skewMs !== 0) r.ts = new Date(toMs(input.ts) + this.skewMs).toISOString();

    // GPS jitter: an urban canyon degrades the fix, every fix wandering within the reported accuracy.
    if (nowMs >= this.nextCanyonMs) {
      this.counts.canyonEpisodes++;
      const durationMs = this.rng.range(m.jitter.canyonDurationS[0], m.jitter.canyonDurationS[1]) * 1000;
      this.canyonEndMs = nowMs + durationMs;
      this.canyonAccuracyM = this.rng.range(m.jitter.canyonAccuracyM[0], m.jitter.canyonAccuracyM[1]);
      this.note({
        kind: 'canyon',
        atMs: nowMs,
        untilMs: this.canyonEndMs,
        detail: `accuracy ${Math.round(this.canyonAccuracyM)} m for ${secs(durationMs)}`,
      });
      this.nextCanyonMs = this.canyonEndMs + this.every(m.jitter.canyonPerHour);
    }
    if (nowMs < this.canyonEndMs) {
      const base = r.accuracyM ?? 0;
      const accuracy = Math.max(base, this.canyonAccuracyM);
      // The receiver's own error is within `base`: the extra wander keeps the sum within `accuracy`.
      const extra = this.rng.range(0, accuracy - base);
      const angle = this.rng.range(0, 2 * Math.PI);
      this.move(r, extra * Math.cos(angle), extra * Math.sin(angle));
      r.accuracyM = round(accuracy, 1);
    }
    if (this.standstillSpeed && r.speedKmh === 0 && r.ignition !== false) {
      const max = m.jitter.standstillSpeedMaxKmh;
      const v = Math.min(max, Math.abs(this.rng.normal(0, max / 3)));
      r.speedKmh = round(v, 1);
      if (r.speedKmh > 0) this.counts.standstillSpeeds++;
    }

    // Multipath: one or two fixes thrown 50–300 m, the reported accuracy honest about it or not.
    if (this.jumpFixesLeft === 0 && nowMs >= this.nextJumpMs) {
      this.counts.multipathJumps++;
      this.jumpFixesLeft = this.rng.int(m.multipath.fixes[0], m.multipath.fixes[1]);
      const size = this.rng.range(m.multipath.jumpM[0], m.multipath.jumpM[1]);
      const angle = this.rng.range(0, 2 * Math.PI);
      const honest = this.rng.chance(m.multipath.honestAccuracyShare);
      if (honest) this.counts.multipathHonest++;
      this.jump = {
        northM: size * Math.cos(angle),
        eastM: size * Math.sin(angle),
        accuracyM: honest ? round(size * this.rng.range(1, 1.5), 1) : null,
      };
      this.nextJumpMs = nowMs + this.every(m.multipath.perHour);
      this.note({
        kind: 'multipath',
        atMs: nowMs,
        detail: `${Math.round(size)} m × ${this.jumpFixesLeft} fix(es), accuracy ${honest ? 'honest' : 'not'}`,
      });
    }
    if (this.jumpFixesLeft > 0) {
      this.jumpFixesLeft--;
      this.move(r, this.jump.northM, this.jump.eastM);
      if (this.jump.accuracyM !== null) r.accuracyM = Math.max(r.accuracyM ?? 0, this.jump.accuracyM);
    }

    // Passenger counter flicker: ±1 for one or two records, door closed, then back.
    const doorClosed = input.doorOpen === false;
    const bus = input.boardings !== undefined || input.alightings !== undefined;
    if (this.flickerOwed !== 0 && this.flickerLeft === 0) {
      // The counter comes back: a bus counter reports the reverse movement.
      if (bus) this.count(r, -this.flickerOwed);
      this.flickerOwed = 0;
    }
    if (this.flickerLeft === 0 && nowMs >= this.nextFlickerMs && doorClosed && input.passengers !== undefined) {
      this.counts.counterFlickers++;
      this.flickerLeft = this.rng.int(m.counterFlicker.records[0], m.counterFlicker.records[1]);
      this.flickerDelta = input.passengers > 0 && this.rng.chance(0.5) ? -1 : 1;
      this.nextFlickerMs = nowMs + this.every(m.counterFlicker.perHour);
      if (bus) this.count(r, this.flickerDelta);
      this.flickerOwed = this.flickerDelta;
      this.note({
        kind: 'flicker',
        atMs: nowMs,
        detail: `passengers ${input.passengers}→${input.passengers + this.flickerDelta} × ${this.flickerLeft} record(s)`,
      });
    }
    if (this.flickerLeft > 0) {
      if (!doorClosed || input.passengers === undefined) {
        // A real door movement resets the counter's phantom.
        this.flickerLeft = 0;
        this.flickerOwed = 0;
      } else {
        this.flickerLeft--;
        r.passengers = Math.max(0, input.passengers + this.flickerDelta);
      }
    }

    // Door bounce: the switch reads open for 1–2 s; a record stamped then says open.
    if (nowMs >= this.nextBounceMs) {
      const durationMs = this.rng.range(m.doorBounce.durationS[0], m.doorBounce.durationS[1]) * 1000;
      this.bounceEndMs = this.nextBounceMs + durationMs;
      this.nextBounceMs = this.nextBounceMs + this.every(m.doorBounce.perHour);
      if (nowMs <= this.bounceEndMs && doorClosed) {
        this.counts.doorBounces++;
        r.doorOpen = true;
        this.note({ kind: 'door-bounce', atMs: nowMs, detail: `${secs(durationMs)} open, door closed` });
      }
    }
    return r;
  }

  private move(r: TelemetryInput, northM: number, eastM: number): void {
    const p = offsetM({ lat: r.lat, lon: r.lon }, northM, eastM);
    r.lat = round(p.lat, 6);
    r.lon = round(p.lon, 6);
  }

  /** A bus counter's boardings (+) or alightings (−) of a phantom movement, on top of the real ones. */
  private count(r: TelemetryInput, delta: number): void {
    if (delta > 0) r.boardings = (r.boardings ?? 0) + delta;
    else r.alightings = (r.alightings ?? 0) - delta;
  }

  /** Time to the next event of a Poisson process, ms. */
  private every(perHour: number): number {
    return perHour > 0 ? this.rng.exponential(HOUR_MS / perHour) : Number.POSITIVE_INFINITY;
  }

  private logUniform([min, max]: readonly [number, number]): number {
    return Math.exp(this.rng.range(Math.log(min), Math.log(max)));
  }
}

const secs = (ms: number): string => (ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`);

function toMs(ts: TelemetryInput['ts']): number {
  return typeof ts === 'number' ? ts : Date.parse(ts);
}
