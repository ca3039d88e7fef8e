import { normaliseTelemetry, type Pack, telemetryInputSchema } from '@vigia/core';
import {
  createInMemoryRegistry,
  createRuleEngine,
  type RuleId,
  ruleIdsByPack,
  type Violation,
  type ViolationEvent,
} from '@vigia/rules';
import { Fleet } from '../fleet/fleet.js';
import { buildRoster, type Roster, type RosterEntry } from '../fleet/roster.js';
import { Random } from '../random.js';
import type { SimVehicle } from '../vehicles/sim-vehicle.js';
import { StandWaitActivity } from '../vehicles/stand-wait-activity.js';
import {
  addFaultCounts,
  emptyFaultCounts,
  type FaultCounts,
  type FaultEvent,
  type FaultModel,
  FaultyTracker,
  REALISTIC_FAULTS,
} from './faults.js';
import { fleetRegistry, simulatedTariffConfig } from './registry.js';
import { explainedRules, type ViceRule, viceRulesOf } from './vice-rules.js';

/**
 * The precision harness: one city's simulated fleet played for days of simulated time, as fast
 * as the machine goes, through the real rule engine, with every honest tracker's records passed
 * through realistic sensor and link faults (faults.ts) on their way, and the ingest pipeline's
 * habits reproduced — records judged in the order they arrive (a backlog after later live records
 * of other vehicles), `flush` called with the wall clock every 30 s meanwhile. Every violation an
 * honest vehicle raises is a false positive; every vicious vehicle whose vice did not raise its
 * rule is a miss.
 */

export const PRECISION_PACKS: readonly Pack[] = ['df-taxi', 'belem-taxi', 'sp-fretamento'];

export interface PrecisionOptions {
  /** Simulated days per city. */
  days: number;
  /** Fleet size the roster is built for (split over the cities as the demo splits it). */
  vehicles: number;
  /** Milliseconds between two records of one tracker while the ignition is on. */
  intervalMs: number;
  seed: number | string;
  /** First instant judged (the fleet starts then: no warm-up). */
  startMs: number;
  faults: FaultModel;
  /** Whether vicious vehicles' trackers have the faults too (default: yes). */
  faultyVicious: boolean;
  /** How often the pipeline's flush runs with the wall clock, ms. */
  flushEveryMs: number;
  /** Delay between a record's upload and its judgement, ms. */
  latencyMs: number;
  /** Called about once per simulated hour. */
  onProgress?: (pack: Pack, simulatedMs: number) => void;
}

/** Monday 9 March 2026, 00:00 in Brasília and São Paulo (UTC−3; Belém too): no holiday that week. */
export const DEFAULT_START = Date.parse('2026-03-09T00:00:00-03:00');

export const defaultPrecisionOptions = (): PrecisionOptions => ({
  days: 7,
  vehicles: 72,
  intervalMs: 2000,
  seed: 1,
  startMs: DEFAULT_START,
  faults: REALISTIC_FAULTS,
  faultyVicious: true,
  flushEveryMs: 30_000,
  latencyMs: 150,
});

/** A violation of a vehicle that did not commit it, with the faults its tracker injected around it. */
export interface FalsePositive {
  violation: Violation;
  /** The vehicle is honest (else: vicious, and no vice of its explains this rule). */
  honest: boolean;
  faults: FaultEvent[];
  /** What the vehicle (and any other vehicle the violation names) really did around it, and the others' faults. */
  truth: { vehicleId: string; steps: TruthStep[]; faults: FaultEvent[] }[];
}

/** One change of what a simulated vehicle really does (its activity), for diagnosis. */
export interface TruthStep {
  atMs: number;
  what: string;
}

/** Truth steps remembered per vehicle. */
const TRUTH_LOG_SIZE = 8000;

export interface ViceRecall {
  rule: ViceRule;
  vehicles: string[];
  caught: string[];
}

export interface CityResult {
  pack: Pack;
  vehicles: { honest: number; vicious: number };
  /** Ignition-on hours. */
  vehicleHours: { honest: number; vicious: number };
  /** Records the trackers produced, and those the engine was given (after dropouts). */
  /** Records the trackers produced, those uploaded to the engine (after dropouts), and the engine's count of those it judged. */
  samples: { produced: number; delivered: number; judged: number; late: number; inaccurate: number };
  faults: FaultCounts;
  stopsSource: string;
  /** Violations per rule id of the pack raised by honest vehicles (and not withdrawn). */
  honestByRule: Map<RuleId, number>;
  falsePositives: FalsePositive[];
  recall: ViceRecall[];
  /** Violations raised in all, per rule id (vicious vehicles included). */
  raisedByRule: Map<RuleId, number>;
  wallMs: number;
}

interface Tracked {
  violation: Violation;
  withdrawn: boolean;
}

/** Plays one city. */
export function runCity(pack: Pack, options: PrecisionOptions): CityResult {
  const began = performance.now();
  const full = buildRoster(options.vehicles, options.startMs);
  const packOperators = new Set(full.operators.filter((o) => o.pack === pack).map((o) => o.id));
  const roster: Roster = {
    operators: full.operators.filter((o) => o.pack === pack),
    entries: full.entries.filter((e) => e.vehicle.pack === pack),
    dispatchers: full.dispatchers.filter((d) => d.operatorIds.some((id) => packOperators.has(id))),
  };
  const { records, stopsSource } = fleetRegistry(roster, pack);
  const engine = createRuleEngine({
    registry: createInMemoryRegistry(records),
    packs: simulatedTariffConfig(),
    enabledPacks: [pack],
  });
  // No warm-up: every vehicle starts its day at the first instant judged, so every trip the
  // rules see is seen from its start (a trip already under way when the rules start is a
  // deployment event, not a sensor fault).
  const fleet = new Fleet(roster, { seed: options.seed, startMs: options.startMs, warmUpMs: 0 });
  const entries = roster.entries;
  const byVehicle = new Map<string, RosterEntry>(entries.map((e) => [e.vehicle.id, e]));
  const trackers = entries.map((e) =>
    e.vices && !options.faultyVicious
      ? undefined
      : new FaultyTracker(Random.derive(options.seed, 'faults', e.vehicle.id), options.faults),
  );
  const trackerOf = new Map(entries.map((e, i) => [e.vehicle.id, trackers[i]]));
  const hours = entries.map(() => 0);
  const truth = entries.map((): TruthStep[] => []);
  const lastActivity: unknown[] = entries.map(() => undefined);
  const tracked = new Map<string, Tracked>();
  let produced = 0;
  let delivered = 0;

  const collect = (events: readonly ViolationEvent[]): void => {
    for (const e of events) {
      const t = tracked.get(e.violation.key);
      if (e.type === 'withdrawn') {
        if (t) t.withdrawn = true;
      } else if (t) {
        t.violation = e.violation;
        t.withdrawn = false;
      } else tracked.set(e.violation.key, { violation: e.violation, withdrawn: false });
    }
  };
  const deliver = (input: Parameters<typeof telemetryInputSchema.parse>[0], entry: RosterEntry, atMs: number) => {
    const parsed = telemetryInputSchema.parse(input);
    const sample = normaliseTelemetry(
      parsed,
      { deviceId: entry.device.id, vehicleId: entry.vehicle.id },
      new Date(atMs),
    );
    delivered++;
    collect(engine.ingest(sample, { pack }));
  };

  const n = fleet.vehicles.length;
  const interval = options.intervalMs;
  // Trackers are not in step: each reports at its own offset within the interval (as the live simulator).
  const phase = fleet.vehicles.map((_, i) => Math.floor((interval * i) / n));
  const endMs = options.startMs + options.days * 86_400_000;
  let nextFlush = options.startMs + options.flushEveryMs;
  let nextProgress = options.startMs + 3_600_000;
  for (let tick = options.startMs; tick < endMs; tick += interval) {
    for (let i = 0; i < n; i++) {
      const v = fleet.vehicles[i];
      const entry = entries[i];
      if (!v || !entry) continue;
      const t = tick + (phase[i] ?? 0);
      v.advanceTo(t);
      if (v.currentActivity !== lastActivity[i]) {
        lastActivity[i] = v.currentActivity;
        const log = truth[i];
        if (log) {
          log.push({ atMs: t, what: describeTruth(v) });
          if (log.length > TRUTH_LOG_SIZE) log.shift();
        }
      }
      if (v.state.ignition) hours[i] = (hours[i] ?? 0) + interval;
      if (!v.reportDue(t, interval)) continue;
      const record = v.report(t);
      produced++;
      const tracker = trackers[i];
      const uploads = tracker ? tracker.process(record, t) : [record];
      for (const u of uploads) deliver(u, entry, t + options.latencyMs);
    }
    if (tick >= nextFlush) {
      collect(engine.flush(tick));
      nextFlush += options.flushEveryMs;
    }
    if (tick >= nextProgress) {
      options.onProgress?.(pack, tick - options.startMs);
      nextProgress += 3_600_000;
    }
  }
  // Let time pass: the last trips end, the silent vehicles' events are finished, stand decisions taken.
  collect(engine.flush(endMs + 3_600_000));

  const honestByRule = new Map<RuleId, number>(ruleIdsByPack[pack].map((r) => [r, 0]));
  const raisedByRule = new Map<RuleId, number>(ruleIdsByPack[pack].map((r) => [r, 0]));
  const falsePositives: FalsePositive[] = [];
  const caught = new Map<string, Set<RuleId>>();
  for (const { violation, withdrawn } of tracked.values()) {
    if (withdrawn) continue;
    const entry = byVehicle.get(violation.vehicleId);
    raisedByRule.set(violation.ruleId, (raisedByRule.get(violation.ruleId) ?? 0) + 1);
    caught.set(violation.vehicleId, (caught.get(violation.vehicleId) ?? new Set()).add(violation.ruleId));
    const honest = !entry?.vices;
    if (honest) honestByRule.set(violation.ruleId, (honestByRule.get(violation.ruleId) ?? 0) + 1);
    if (honest || !explainedRules(pack, entry?.vices).has(violation.ruleId)) {
      const tracker = trackerOf.get(violation.vehicleId);
      const from = violation.startedAt.getTime() - 15 * 60_000;
      const to = violation.endedAt.getTime() + 60_000;
      const named = [violation.vehicleId, ...otherVehicles(violation.measured).filter((id) => byVehicle.has(id))];
      falsePositives.push({
        violation,
        honest,
        faults: tracker?.faultsBetween(from, to) ?? [],
        truth: named.map((vehicleId) => ({
          vehicleId,
          faults: vehicleId === violation.vehicleId ? [] : (trackerOf.get(vehicleId)?.faultsBetween(from, to) ?? []),
          steps: (truth[entries.findIndex((e) => e.vehicle.id === vehicleId)] ?? []).filter(
            (step, k, all) => step.atMs <= to && (all[k + 1]?.atMs ?? Number.POSITIVE_INFINITY) >= from,
          ),
        })),
      });
    }
  }
  falsePositives.sort((a, b) => a.violation.startedAt.getTime() - b.violation.startedAt.getTime());

  const recall: ViceRecall[] = [];
  for (const e of entries) {
    for (const rule of viceRulesOf(pack, e.vices)) {
      let row = recall.find((r) => r.rule === rule);
      if (!row) {
        row = { rule, vehicles: [], caught: [] };
        recall.push(row);
      }
      row.vehicles.push(e.device.identifier);
      if (caught.get(e.vehicle.id)?.has(rule.ruleId)) row.caught.push(e.device.identifier);
    }
  }

  const faults = emptyFaultCounts();
  for (const t of trackers) if (t) addFaultCounts(faults, t.counts);
  const vicious = entries.map((e) => e.vices !== undefined);
  const sumHours = (wantVicious: boolean) =>
    hours.reduce((s, h, i) => (vicious[i] === wantVicious ? s + h : s), 0) / 3_600_000;
  return {
    pack,
    vehicles: { honest: vicious.filter((x) => !x).length, vicious: vicious.filter((x) => x).length },
    vehicleHours: { honest: sumHours(false), vicious: sumHours(true) },
    samples: {
      produced,
      delivered,
      judged: engine.stats().judged,
      late: engine.stats().late + engine.stats().duplicates,
      inaccurate: engine.stats().inaccurate,
    },
    faults,
    stopsSource,
    honestByRule,
    falsePositives,
    recall,
    raisedByRule,
    wallMs: performance.now() - began,
  };
}

/** What a simulated vehicle is doing, in a few words. */
function describeTruth(v: SimVehicle): string {
  const a = v.currentActivity;
  const s = v.state;
  const where = `${s.position.lat.toFixed(5)},${s.position.lon.toFixed(5)}`;
  const stand = a instanceof StandWaitActivity ? ` at ${a.stand.place.id} (queue ${a.stand.waiting})` : '';
  const meter = v.meter ? ` meter ${v.meter.state}` : '';
  return `${a?.kind ?? 'idle'}${stand} @${where} ign ${s.ignition ? 'on' : 'off'}${meter} pax ${s.passengers}`;
}

/** Vehicle ids a violation's measured values name at their top level (e.g. the taxis a queue jump went past). */
function otherVehicles(measured: unknown): string[] {
  if (measured === null || typeof measured !== 'object') return [];
  const out = new Set<string>();
  for (const [k, value] of Object.entries(measured)) {
    if (typeof value === 'string' && /vehicle/i.test(k)) out.add(value);
    else if (Array.isArray(value) && /jumped|vehicles/i.test(k))
      for (const id of value) if (typeof id === 'string') out.add(id);
  }
  return [...out];
}

/** Plays every city in turn. */
export function runPrecision(options: PrecisionOptions, packs: readonly Pack[] = PRECISION_PACKS): CityResult[] {
  return packs.map((pack) => runCity(pack, options));
}
