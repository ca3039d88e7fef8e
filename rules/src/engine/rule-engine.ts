import type { Pack, Telemetry } from '@vigia/core';
import { HolidayCalendar } from '../calendar/holiday-calendar.js';
import { haversineM } from '../geo/distance.js';
import type { BelemConfigInput } from '../packs/belem-taxi/config.js';
import { createBelemTaxiPack } from '../packs/belem-taxi/pack.js';
import type { DfConfigInput } from '../packs/df-taxi/config.js';
import { createDfTaxiPack } from '../packs/df-taxi/pack.js';
import type { SpConfigInput } from '../packs/sp-fretamento/config.js';
import { createSpFretamentoPack } from '../packs/sp-fretamento/pack.js';
import { pricePenalty } from '../penalties/price.js';
import type { AssessedViolation, PriorViolation, RecidivismAssessment } from '../penalties/recidivism.js';
import type { VehicleRecord } from '../registry/records.js';
import type { RegistryView } from '../registry/registry-view.js';
import { formatLocalIso, type LocalDate, localDateOf, localDateTime } from '../time/local-time.js';
import type { Confidence, Penalty, Violation, ViolationEvent } from '../violations/violation.js';
import { type DispatchRecordInput, dispatchRecordSchema } from './dispatch.js';
import {
  emptyReading,
  initialOccupancyState,
  type OccupancyReading,
  type OccupancyState,
  readOccupancyInto,
} from './occupancy.js';
import type { PackRuntime, StandQueueChange, VehicleRules, VehicleRulesState } from './pack-runtime.js';
import type { CloseInfo, Finding } from './rule.js';
import type { SampleFacts, Writable } from './sample-facts.js';

/**
 * The rule engine: per-vehicle state machines fed in time order, the packs' shared stand state,
 * and the bookkeeping that turns rule findings into violation events (raised once, updated
 * while the event grows, final when it is over, withdrawn when a provisional alert is cleared).
 * No I/O and no clock: time is what the samples say, so a replay gives the same events.
 *
 * Late and repeated telemetry: a sample whose `ts` is not after the vehicle's last accepted
 * sample is counted (duplicate or late) and not judged — the rules only ever see a vehicle's
 * samples in increasing time. A silence longer than `general.maxGapS` between accepted samples
 * breaks every dwell, stretch and run, so dropping late samples can shorten an event but never
 * create one. Samples with GPS accuracy worse than `general.maxAccuracyM` are skipped the same way.
 */

export interface PackConfigs {
  readonly 'sp-fretamento'?: SpConfigInput;
  readonly 'df-taxi'?: DfConfigInput;
  readonly 'belem-taxi'?: BelemConfigInput;
}

export interface RuleEngineOptions {
  readonly registry: RegistryView;
  /** Per-pack configuration (validated with zod; defaults from RULES.md). */
  readonly packs?: PackConfigs;
  /** Packs to run (default: all three). */
  readonly enabledPacks?: readonly Pack[];
}

/** For a vehicle the registry has never heard of, the pipeline may say which pack its device belongs to. */
export interface IngestHint {
  readonly pack?: Pack;
}

export interface EngineStats {
  samples: number;
  judged: number;
  duplicates: number;
  late: number;
  inaccurate: number;
  /** Samples of vehicles with no pack (unknown to the registry, no hint). */
  unattributed: number;
  dispatches: number;
  raised: number;
  updated: number;
  withdrawn: number;
}

/** What `RuleEngine.exportState` gives (engine/checkpoint.ts wraps it, versioned and checked). */
export interface EngineState {
  readonly packs: readonly Pack[];
  readonly latestMs: number;
  readonly finalRevisions: ReadonlyMap<string, { revision: number; endedMs: number }>;
  /** Per pack, its cross-vehicle (stand board) state. */
  readonly shared: Readonly<Record<string, unknown>>;
  readonly vehicles: readonly SavedVehicle[];
}

/** A vehicle's runtime without its pack's functions: its rules as data. */
export type SavedVehicle = Omit<VehicleRuntime, 'runtime' | 'rules'> & { readonly rules: VehicleRulesState };

/**
 * What the engine keeps of an event it has emitted and that may still change: the revision and
 * standing it was last stated at, not the violation record itself. The record goes to the caller;
 * kept here it lived until the event's next update and had to be promoted out of the young
 * generation — about a sixth of what the engine kept alive per sample.
 */
export interface OpenEvent {
  revision: number;
  confidence: Confidence;
  variant: string | null;
  latest: Finding;
  emittedEndMs: number;
  /** The final finding a provisional close (flush) emitted for it, as JSON; null when none is standing. */
  provisional: string | null;
  /** The vehicle resumed after a provisional close: the next finding is emitted at once (phase back to ongoing). */
  reopened: boolean;
}

export interface VehicleRuntime {
  readonly vehicleId: string;
  readonly pack: Pack;
  readonly runtime: PackRuntime;
  rules: VehicleRules;
  lastMs: number;
  prev: Telemetry | null;
  prevMoving: boolean;
  lateSinceAccepted: number;
  closed: boolean;
  /** flush(now) finished its events provisionally; its rules' state is kept for a late backlog. */
  provisional: boolean;
  deviceId: string | null;
  lastLat: number | null;
  lastLon: number | null;
  /** Door-gated passenger count (engine/occupancy.ts); absent until the vehicle's first judged sample. */
  occupancy?: OccupancyState;
  readonly open: Map<string, OpenEvent>;
}

/** A pack's facts object with its fixed fields; `RuleEngine.facts` writes the rest per sample. */
function newFacts(
  runtime: PackRuntime,
  sample: Telemetry,
  calendar: HolidayCalendar,
  registry: RegistryView,
): Writable<SampleFacts> {
  return {
    sample,
    ms: 0,
    prev: null,
    gapBefore: true,
    lateDropped: 0,
    dtS: 0,
    segmentM: 0,
    speedKmh: null,
    speedDerived: false,
    moving: false,
    movingBefore: false,
    // The pack's own reading, filled in place for each sample (`readOccupancyInto`) like the facts.
    occupancy: { ...emptyReading },
    local: localDateTime(0, runtime.timeZone),
    vehicle: null,
    operator: null,
    registry,
    calendar,
    pack: runtime.pack,
    timeZone: runtime.timeZone,
    general: runtime.general,
  };
}

/** Fines kept priced before the cache starts afresh (`RuleEngine.priced`). */
const pricedLimit = 4096;
const allPacks: readonly Pack[] = ['sp-fretamento', 'df-taxi', 'belem-taxi'];
/** The default hint, shared: a fresh `{}` per sample was garbage on the hottest path. */
const noHint: IngestHint = Object.freeze({});
/** What a sample that causes no event returns (most do), shared rather than a new empty list each time. */
const noEvents: readonly ViolationEvent[] = Object.freeze([]);

export class RuleEngine {
  private registry: RegistryView;
  private readonly runtimes = new Map<Pack, PackRuntime>();
  private readonly calendars = new Map<Pack, HolidayCalendar>();
  /**
   * One facts object per pack, rewritten for each sample rather than allocated: the rules read
   * it during their step and keep none of it (they keep values read from it), so a fresh object
   * per sample was only work for the young-generation collector.
   */
  private readonly factsByPack = new Map<Pack, Writable<SampleFacts>>();
  private readonly vehicles = new Map<string, VehicleRuntime>();
  /** Revisions of final cross-vehicle (stand) events, which late data may still revise. */
  private readonly finalRevisions = new Map<string, { revision: number; endedMs: number }>();
  /**
   * Fines already priced, by pack, rule, variant, units factor and local date: an event that grows
   * is restated every `updateIntervalS` with the same fine, and pricing it (the spec, the unit's
   * value in force that day, the spread into a new object) was a fortieth of the engine's time.
   * Frozen and shared between violations; emptied with a new registry (its unit values) and
   * when it grows past `pricedLimit` (one entry per rule, variant and day is a few hundred a day).
   */
  private readonly priced = new Map<string, Penalty>();
  /** The latest sample time judged (event time). */
  private latestMs = Number.NEGATIVE_INFINITY;
  private readonly counters: EngineStats = {
    samples: 0,
    judged: 0,
    duplicates: 0,
    late: 0,
    inaccurate: 0,
    unattributed: 0,
    dispatches: 0,
    raised: 0,
    updated: 0,
    withdrawn: 0,
  };

  constructor(options: RuleEngineOptions) {
    this.registry = options.registry;
    const enabled = options.enabledPacks ?? allPacks;
    const configs = options.packs ?? {};
    if (enabled.includes('sp-fretamento'))
      this.runtimes.set('sp-fretamento', createSpFretamentoPack(configs['sp-fretamento']));
    if (enabled.includes('df-taxi')) this.runtimes.set('df-taxi', createDfTaxiPack(configs['df-taxi']));
    if (enabled.includes('belem-taxi')) this.runtimes.set('belem-taxi', createBelemTaxiPack(configs['belem-taxi']));
    this.buildCalendars();
  }

  /** Swap in a new registry snapshot (after a registry change); vehicle state is kept. */
  setRegistry(registry: RegistryView): void {
    this.registry = registry;
    this.priced.clear();
    this.buildCalendars();
  }

  /** The pack runtime (configuration-bound rule metadata), e.g. for documentation or the store. */
  pack(pack: Pack): PackRuntime | undefined {
    return this.runtimes.get(pack);
  }

  calendar(pack: Pack): HolidayCalendar | undefined {
    return this.calendars.get(pack);
  }

  stats(): Readonly<EngineStats> & { vehicles: number; openEvents: number } {
    let openEvents = 0;
    for (const v of this.vehicles.values()) openEvents += v.open.size;
    return { ...this.counters, vehicles: this.vehicles.size, openEvents };
  }

  /**
   * Everything the engine remembers between samples, as data (no functions): each vehicle's
   * rules and open events, the packs' shared stand state, final stand revisions, the event-time
   * watermark. engine/checkpoint.ts serialises it; `importState` into an engine built with the
   * same packs resumes exactly where this one stands (the counters are not part of it).
   */
  exportState(): EngineState {
    const shared: Record<string, unknown> = {};
    for (const [pack, runtime] of this.runtimes) if (runtime.exportShared) shared[pack] = runtime.exportShared();
    return {
      packs: [...this.runtimes.keys()],
      latestMs: this.latestMs,
      finalRevisions: this.finalRevisions,
      shared,
      vehicles: [...this.vehicles.values()].map(({ runtime: _runtime, rules, ...v }) => ({
        ...v,
        rules: rules.exportState(),
      })),
    };
  }

  /**
   * Resume from `exportState`'s data, replacing what this engine holds. A vehicle of a pack this
   * engine does not run is dropped (and counted as such in the result).
   */
  importState(state: EngineState): { vehicles: number; dropped: number } {
    this.vehicles.clear();
    this.finalRevisions.clear();
    for (const [k, r] of state.finalRevisions) this.finalRevisions.set(k, r);
    this.latestMs = state.latestMs;
    for (const [pack, runtime] of this.runtimes) {
      if (pack in state.shared) runtime.importShared?.(state.shared[pack]);
    }
    let dropped = 0;
    for (const saved of state.vehicles) {
      const runtime = this.runtimes.get(saved.pack);
      if (!runtime) {
        dropped++;
        continue;
      }
      const rules = runtime.newVehicle();
      rules.importState(saved.rules);
      const { rules: _rules, ...rest } = saved;
      this.vehicles.set(saved.vehicleId, { ...rest, runtime, rules, open: new Map(saved.open) });
    }
    return { vehicles: this.vehicles.size, dropped };
  }

  /** Judge one telemetry sample; returns the violation events it caused (often none). */
  ingest(sample: Telemetry, hint: IngestHint = noHint): readonly ViolationEvent[] {
    this.counters.samples++;
    const ms = sample.ts.getTime();
    let v = this.vehicles.get(sample.vehicleId);
    if (v && ms <= v.lastMs) {
      if (ms === v.lastMs) this.counters.duplicates++;
      else {
        this.counters.late++;
        v.lateSinceAccepted++;
      }
      return noEvents;
    }
    const record = this.registry.vehicle(sample.vehicleId, ms);
    const pack = record?.pack ?? this.lastKnownVersion(sample.vehicleId, ms)?.pack ?? hint.pack ?? v?.pack ?? null;
    const runtime = pack === null ? undefined : this.runtimes.get(pack);
    if (pack === null || !runtime) {
      this.counters.unattributed++;
      return noEvents;
    }
    if (sample.accuracyM !== null && sample.accuracyM > runtime.general.maxAccuracyM) {
      this.counters.inaccurate++;
      return noEvents;
    }
    // Made only when there is something to say: most samples cause no event.
    let events: ViolationEvent[] | null = null;
    if (v && v.pack !== pack) {
      events = this.closeVehicle(v, 'pack-changed');
      this.vehicles.delete(v.vehicleId);
      v = undefined;
    }
    if (!v) {
      v = {
        vehicleId: sample.vehicleId,
        pack,
        runtime,
        rules: runtime.newVehicle(),
        lastMs: Number.NEGATIVE_INFINITY,
        prev: null,
        prevMoving: false,
        lateSinceAccepted: 0,
        closed: false,
        provisional: false,
        deviceId: null,
        lastLat: null,
        lastLon: null,
        open: new Map(),
      };
      this.vehicles.set(sample.vehicleId, v);
    }
    if (!v.closed && (ms - v.lastMs) / 1000 > runtime.general.idleCloseS) {
      // Idle close in event time: the vehicle was silent longer than idleCloseS before this
      // sample, whenever the sample arrives (live, or in a backlog uploaded hours later).
      const closed = this.closeVehicle(v, 'idle', sample.receivedAt);
      events = events === null ? closed : [...events, ...closed];
    } else if (v.provisional) {
      // Contiguous with what came before a provisional close: resume as if no flush had happened.
      v.provisional = false;
      for (const open of v.open.values()) {
        if (open.provisional !== null) {
          open.provisional = null;
          open.reopened = true;
        }
      }
    }
    if (v.closed) {
      v.rules = runtime.newVehicle();
      v.closed = false;
    }

    const facts = this.facts(v, runtime, sample, ms, record);
    this.counters.judged++;
    const findings = v.rules.step(facts);
    v.lastMs = ms;
    if (ms > this.latestMs) this.latestMs = ms;
    v.prev = sample;
    v.prevMoving = facts.moving;
    v.lateSinceAccepted = 0;
    v.deviceId = sample.deviceId;
    v.lastLat = sample.lat;
    v.lastLon = sample.lon;
    for (const f of findings) {
      const produced = this.materialize(runtime, f, sample.vehicleId, sample.receivedAt);
      if (produced.length === 0) continue;
      events ??= [];
      events.push(...produced);
    }
    return events ?? noEvents;
  }

  /** Judge a radio dispatch record (Belém Art. 42–44). */
  ingestDispatch(input: DispatchRecordInput, hint: IngestHint = noHint): ViolationEvent[] {
    this.counters.dispatches++;
    const record = dispatchRecordSchema.parse(input);
    const ms = record.ts.getTime();
    const pack =
      this.registry.vehicle(record.vehicleId, ms)?.pack ??
      this.lastKnownVersion(record.vehicleId, ms)?.pack ??
      hint.pack ??
      'belem-taxi';
    const runtime = this.runtimes.get(pack);
    if (!runtime) return [];
    return runtime
      .dispatch(record, this.registry)
      .flatMap((f) => this.materialize(runtime, f, record.vehicleId, record.ts));
  }

  /**
   * Let time pass without a sample (call it periodically with the pipeline's clock). A vehicle
   * silent for `idleCloseS` has its events finished **provisionally**: the close findings are
   * emitted as final, but its rules' state and open events are kept, so a late backlog that is
   * contiguous in event time resumes it exactly as if no flush had happened (the stored
   * violation is then updated by its key, at a higher revision). Only a vehicle silent past
   * `backlogHorizonS` is closed for good. `now` never moves the stand boards' clocks: stand
   * decisions follow the packs' event-time watermarks.
   */
  flush(now: Date | number): ViolationEvent[] {
    const nowMs = typeof now === 'number' ? now : now.getTime();
    const at = new Date(nowMs);
    const events: ViolationEvent[] = [];
    for (const v of this.vehicles.values()) {
      if (v.closed) continue;
      const silentS = (nowMs - v.lastMs) / 1000;
      if (silentS > v.runtime.general.backlogHorizonS) events.push(...this.closeVehicle(v, 'idle', at));
      else if (silentS > v.runtime.general.idleCloseS && !v.provisional) events.push(...this.provisionalClose(v, at));
    }
    for (const runtime of this.runtimes.values()) {
      for (const f of runtime.flush()) events.push(...this.materialize(runtime, f, f.vehicleId ?? '', at));
    }
    return events;
  }

  /** Finish everything (shutdown): every open event becomes final. */
  close(now?: Date): ViolationEvent[] {
    const events: ViolationEvent[] = [];
    let latest = 0;
    for (const v of this.vehicles.values()) {
      latest = Math.max(latest, v.lastMs);
      if (!v.closed) events.push(...this.closeVehicle(v, 'shutdown', now));
    }
    const farFuture = latest + 365 * 86_400_000;
    for (const runtime of this.runtimes.values()) {
      for (const f of runtime.flush(farFuture)) {
        events.push(...this.materialize(runtime, f, f.vehicleId ?? '', now ?? new Date(latest)));
      }
    }
    return events;
  }

  /**
   * The stand queues that changed since the last call, across the packs, each as its stand board
   * sees it now (the legal queue: present, of the queue, waiting for hire, first in line first).
   * The pipeline stores them for dispatch after each batch.
   */
  standQueueChanges(): StandQueueChange[] {
    const changes: StandQueueChange[] = [];
    for (const runtime of this.runtimes.values()) changes.push(...(runtime.standQueueChanges?.() ?? []));
    return changes;
  }

  /** Recidivism and escalation of a violation given the earlier ones (the store supplies them). */
  assessRecidivism(violation: AssessedViolation, priors: readonly PriorViolation[]): RecidivismAssessment {
    const runtime = this.runtimes.get(violation.pack);
    if (!runtime) throw new Error(`Pack ${violation.pack} is not enabled`);
    return runtime.assessRecidivism(violation, priors);
  }

  private buildCalendars(): void {
    this.calendars.clear();
    for (const [pack, runtime] of this.runtimes) {
      this.calendars.set(
        pack,
        new HolidayCalendar({
          timeZone: runtime.timeZone,
          state: runtime.holidays.state,
          countedTypes: runtime.holidays.countedTypes,
          fixedHolidays: runtime.holidays.fixed,
          overrides: this.registry.holidayOverrides(pack),
        }),
      );
    }
  }

  private lastKnownVersion(vehicleId: string, ms: number): VehicleRecord | null {
    const history = this.registry.vehicleHistory(vehicleId);
    let found: VehicleRecord | null = null;
    for (const h of history) if (h.validFrom.getTime() <= ms) found = h;
    return found ?? history[0] ?? null;
  }

  private facts(
    v: VehicleRuntime,
    runtime: PackRuntime,
    sample: Telemetry,
    ms: number,
    record: VehicleRecord | null,
  ): SampleFacts {
    const general = runtime.general;
    const gapS = (ms - v.lastMs) / 1000;
    const prev = v.prev && gapS <= general.maxGapS ? v.prev : null;
    const dtS = prev ? gapS : 0;
    let segmentM = 0;
    if (prev) {
      const stationary =
        prev.speedKmh !== null && sample.speedKmh !== null && prev.speedKmh <= 1 && sample.speedKmh <= 1;
      segmentM = stationary ? 0 : haversineM(prev.lat, prev.lon, sample.lat, sample.lon);
    }
    let speedKmh = sample.speedKmh;
    let speedDerived = false;
    if (speedKmh === null && prev && dtS > 0) {
      speedKmh = (segmentM / dtS) * 3.6;
      speedDerived = true;
    }
    const calendar = this.calendars.get(runtime.pack);
    if (!calendar) throw new Error(`No calendar for ${runtime.pack}`);
    const operatorId = record?.operatorId ?? null;
    let facts = this.factsByPack.get(runtime.pack);
    if (!facts) {
      facts = newFacts(runtime, sample, calendar, this.registry);
      this.factsByPack.set(runtime.pack, facts);
    }
    v.occupancy = readOccupancyInto(
      v.occupancy ?? initialOccupancyState,
      sample,
      ms,
      prev === null,
      general.occupancySettleS,
      facts.occupancy as Writable<OccupancyReading>,
    );
    facts.sample = sample;
    facts.ms = ms;
    facts.prev = prev;
    facts.gapBefore = prev === null;
    facts.lateDropped = v.lateSinceAccepted;
    facts.dtS = dtS;
    facts.segmentM = segmentM;
    facts.speedKmh = speedKmh;
    facts.speedDerived = speedDerived;
    facts.moving = speedKmh !== null && speedKmh > general.movingSpeedKmh;
    facts.movingBefore = prev !== null && v.prevMoving;
    facts.local = localDateTime(ms, runtime.timeZone);
    facts.vehicle = record;
    facts.operator = operatorId === null ? null : this.registry.operator(operatorId, ms);
    facts.registry = this.registry;
    facts.calendar = calendar;
    return facts;
  }

  private closeVehicle(v: VehicleRuntime, reason: CloseInfo['reason'], at?: Date): ViolationEvent[] {
    const detectedAt = at ?? new Date(v.lastMs);
    const events: ViolationEvent[] = [];
    const findings = [...v.rules.close({ lastMs: v.lastMs, reason }), ...v.runtime.vehicleGone(v.vehicleId)];
    for (const f of findings) {
      // Already emitted, identical, by a provisional close: nothing new to say.
      if (this.standsProvisionally(v, f)) v.open.delete(this.keyOf(v.runtime, f, v.vehicleId));
      else events.push(...this.materialize(v.runtime, f, v.vehicleId, detectedAt));
    }
    // Anything a rule left open is finished as it last stood.
    for (const open of [...v.open.values()]) {
      const f: Finding = { ...open.latest, phase: 'final' };
      if (!this.standsProvisionally(v, f)) events.push(...this.materialize(v.runtime, f, v.vehicleId, detectedAt));
    }
    v.open.clear();
    v.closed = true;
    v.provisional = false;
    v.prev = null;
    return events;
  }

  /**
   * flush(now) found the vehicle silent for `idleCloseS` by the server's clock: emit what a close
   * would (every open event final), but keep the rules' state and the open events, so samples
   * that arrive later and are contiguous in event time carry on as if nothing had happened. A
   * provisional withdrawal is not emitted: only the real close (in event time) withdraws.
   */
  private provisionalClose(v: VehicleRuntime, at: Date): ViolationEvent[] {
    const events: ViolationEvent[] = [];
    const findings = [...v.rules.peekClose({ lastMs: v.lastMs, reason: 'idle' }), ...v.runtime.peekGone(v.vehicleId)];
    const covered = new Set<string>();
    for (const f of findings) {
      if (f.phase === 'withdrawn') continue;
      const key = this.keyOf(v.runtime, f, v.vehicleId);
      covered.add(key);
      events.push(...this.materializeProvisional(v, { ...f, phase: 'final' }, key, at));
    }
    for (const [key, open] of [...v.open]) {
      if (covered.has(key)) continue;
      events.push(...this.materializeProvisional(v, { ...open.latest, phase: 'final' }, key, at));
    }
    v.provisional = true;
    return events;
  }

  private materializeProvisional(v: VehicleRuntime, f: Finding, key: string, detectedAt: Date): ViolationEvent[] {
    const json = JSON.stringify(f);
    const open = v.open.get(key);
    if (open?.provisional === json) return [];
    const revision = open ? open.revision + 1 : 1;
    const violation = this.build(v.runtime, f, f.vehicleId ?? v.vehicleId, key, detectedAt, revision, 'final');
    this.keepOpen(v, key, open, revision, f, json);
    if (open) this.counters.updated++;
    else this.counters.raised++;
    return [{ type: open ? 'updated' : 'raised', violation, reason: null }];
  }

  /**
   * What the engine keeps of an event it just stated and that may still change (`OpenEvent`): its
   * own record, updated where it is when the event was open already rather than replaced.
   */
  private keepOpen(
    v: VehicleRuntime,
    key: string,
    open: OpenEvent | undefined,
    revision: number,
    f: Finding,
    provisional: string | null,
  ): void {
    if (!open) {
      v.open.set(key, {
        revision,
        confidence: f.confidence,
        variant: f.variant,
        latest: f,
        emittedEndMs: f.endedAt,
        provisional,
        reopened: false,
      });
      return;
    }
    open.revision = revision;
    open.confidence = f.confidence;
    open.variant = f.variant;
    open.latest = f;
    open.emittedEndMs = f.endedAt;
    open.provisional = provisional;
    open.reopened = false;
  }

  private standsProvisionally(v: VehicleRuntime, f: Finding): boolean {
    const open = v.open.get(this.keyOf(v.runtime, f, v.vehicleId));
    return open?.provisional != null && open.provisional === JSON.stringify({ ...f, phase: 'final' });
  }

  private keyOf(runtime: PackRuntime, f: Finding, defaultVehicleId: string): string {
    return `${runtime.pack}:${f.ruleId}:${f.vehicleId ?? defaultVehicleId}:${f.eventId}`;
  }

  private materialize(
    runtime: PackRuntime,
    f: Finding,
    defaultVehicleId: string,
    detectedAt: Date,
  ): readonly ViolationEvent[] {
    const vehicleId = f.vehicleId ?? defaultVehicleId;
    const v = this.vehicles.get(vehicleId);
    const key = this.keyOf(runtime, f, defaultVehicleId);
    const open = v?.open.get(key);

    if (f.phase === 'withdrawn') {
      if (!open || !v) return noEvents;
      v.open.delete(key);
      this.counters.withdrawn++;
      const violation = this.build(runtime, f, vehicleId, key, detectedAt, open.revision + 1, 'final');
      return [{ type: 'withdrawn', violation, reason: f.reason ?? null }];
    }

    if (f.phase === 'ongoing' && open) {
      open.latest = f;
      const sameStanding = !open.reopened && open.confidence === f.confidence && open.variant === f.variant;
      const intervalMs = runtime.general.updateIntervalS * 1000;
      if (sameStanding && f.endedAt - open.emittedEndMs < intervalMs) return noEvents;
    }

    // A cross-vehicle (stand) decision revised by late data after it was final: same key, next revision.
    const earlier = open ? open.revision : (this.finalRevisions.get(key)?.revision ?? 0);
    const revision = earlier + 1;
    const violation = this.build(
      runtime,
      f,
      vehicleId,
      key,
      detectedAt,
      revision,
      f.phase === 'final' ? 'final' : 'ongoing',
    );
    if (f.phase === 'final') {
      v?.open.delete(key);
      if (f.vehicleId !== undefined) this.rememberFinal(key, revision, f.endedAt, runtime);
    } else if (v) this.keepOpen(v, key, open, revision, f, null);
    if (earlier > 0) this.counters.updated++;
    else this.counters.raised++;
    return [{ type: earlier > 0 ? 'updated' : 'raised', violation, reason: null }];
  }

  /** Keeps a final cross-vehicle event's revision while late data may still revise it (backlogHorizonS). */
  private rememberFinal(key: string, revision: number, endedMs: number, runtime: PackRuntime): void {
    this.finalRevisions.set(key, { revision, endedMs });
    if (this.finalRevisions.size % 1024 !== 0) return;
    const horizonMs = this.latestMs - runtime.general.backlogHorizonS * 1000;
    for (const [k, r] of this.finalRevisions) if (r.endedMs < horizonMs) this.finalRevisions.delete(k);
  }

  /** `pricePenalty` of the finding's fine on its local date, priced once per pack, rule, variant, factor and date. */
  private price(runtime: PackRuntime, f: Finding, date: LocalDate): Penalty {
    const unitsFactor = f.unitsFactor ?? 1;
    // NUL-separated; a null variant is spelled apart from any string a rule could name.
    const key = `${runtime.pack}\0${f.ruleId}\0${f.variant === null ? '\u0001' : f.variant}\0${unitsFactor}\0${date}`;
    const known = this.priced.get(key);
    if (known !== undefined) return known;
    const penalty = Object.freeze(
      pricePenalty(runtime.penalty(f.ruleId, f.variant), unitsFactor, this.registry, runtime.pack, date),
    );
    if (this.priced.size >= pricedLimit) this.priced.clear();
    this.priced.set(key, penalty);
    return penalty;
  }

  private build(
    runtime: PackRuntime,
    f: Finding,
    vehicleId: string,
    key: string,
    detectedAt: Date,
    revision: number,
    phase: 'ongoing' | 'final',
  ): Violation {
    const record = this.registry.vehicle(vehicleId, f.startedAt) ?? this.lastKnownVersion(vehicleId, f.startedAt);
    const v = this.vehicles.get(vehicleId);
    const tz = runtime.timeZone;
    const marginMs = runtime.general.evidenceMarginS * 1000;
    const from = (f.trip?.startedAt ?? f.startedAt) - marginMs;
    const to = (f.trip?.endedAt ?? f.endedAt) + marginMs;
    return {
      key,
      ruleId: f.ruleId,
      pack: runtime.pack,
      legalBasis: runtime.legalBasis(f.ruleId),
      description: runtime.description(f.ruleId),
      variant: f.variant,
      vehicleId,
      plate: record?.plate ?? null,
      make: record?.make ?? null,
      colour: record?.colour ?? null,
      permitNumber: record?.permitNumber ?? null,
      operatorId: record?.operatorId ?? null,
      driverId: f.driverId ?? null,
      startedAt: new Date(f.startedAt),
      endedAt: new Date(f.endedAt),
      localStartedAt: formatLocalIso(f.startedAt, tz),
      localEndedAt: formatLocalIso(f.endedAt, tz),
      timeZone: tz,
      detectedAt,
      lat: f.lat ?? v?.lastLat ?? null,
      lon: f.lon ?? v?.lastLon ?? null,
      place: f.place,
      measured: f.measured,
      confidence: f.confidence,
      evidence: {
        vehicleId,
        deviceId: v?.deviceId ?? null,
        from: new Date(from),
        to: new Date(to),
        scope: f.trip ? 'whole-trip' : 'around-event',
        tripId: f.trip?.id ?? null,
      },
      penalty: this.price(runtime, f, localDateOf(f.startedAt, tz)),
      phase,
      revision,
    };
  }
}

export function createRuleEngine(options: RuleEngineOptions): RuleEngine {
  return new RuleEngine(options);
}
