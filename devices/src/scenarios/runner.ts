import { pino } from 'pino';
import { asGt06Plan, type Gt06Plan, sendOverGt06 } from '../emulators/gt06/gt06-scenario.js';
import type { BuildContext, SampleInput, Scenario, ScenarioPlan } from './types.js';

/** Plays scenarios through the public HTTP API of a running system and checks what the rules said. */

export interface RunOptions {
  apiUrl: string;
  /** Admin token: creates the registry and sends for every device (a gateway may). */
  token: string;
  nowMs?: number;
  runId?: string;
  /** How long to wait after the registry changes for the rule engine to reload it (ms). */
  registryReloadMs?: number;
  /**
   * Play the scenario late: its telemetry stamped this many minutes further in the past, withheld,
   * then sent as one upload per device of its whole backlog, devices in reverse order (a fleet
   * coming back into coverage). The rules judge in event time, so it must raise what it raises live.
   */
  lateMinutes?: number;
  /** Play the devices as GT06 trackers through this gateway instead of `POST /v1/telemetry`. */
  gt06?: { host: string; port: number };
  log?: (line: string) => void;
}

export interface ViolationView {
  id: string;
  ruleId: string;
  pack: string;
  vehicleId: string;
  legalBasis: string[];
  confidence: string;
  measured: Record<string, unknown>;
  variant?: string | null;
  startedAt: string;
  detectedAt?: string;
  status?: string;
  place?: { id: string; kind: string; name: string } | null;
  [key: string]: unknown;
}

export interface ScenarioRun {
  scenario: Scenario;
  plan: ScenarioPlan;
  runId: string;
  /** Minutes late it was played (0: live). */
  lateMinutes: number;
  /** The `nowMs` the plan was built with (registry validity is counted from it). */
  builtAtMs: number;
  /** Wall time when the last sample/dispatch was answered. */
  sentAtMs: number;
  accepted: number;
}

export interface ScenarioOutcome {
  ok: boolean;
  problems: string[];
  /** Violations of the scenario's rule for its vehicle. */
  violations: ViolationView[];
  /** For `fires`: from the last answered request to the violation being queryable (ms). */
  latencyMs: number | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(opts: RunOptions, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${opts.apiUrl.replace(/\/+$/, '')}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

let plateSeq = 0;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A random Mercosul plate in the scenario series (SC?nLnn). */
function randomPlate(): string {
  plateSeq++;
  const r = Math.floor(Math.random() * 26 * 10 * 26 * 100);
  return `SC${LETTERS[r % 26]}${Math.floor(r / 26) % 10}${LETTERS[(Math.floor(r / 260) + plateSeq) % 26]}${String(Math.floor(r / 6760) % 100).padStart(2, '0')}`;
}

export function buildContext(nowMs = Date.now(), runId = Math.random().toString(36).slice(2, 8)): BuildContext {
  return { runId, nowMs, plate: randomPlate };
}

/**
 * A late copy plays this many degrees of longitude east of the live one: a pure translation
 * (every distance, bearing and time the same), so it never meets the stops, stands or zones of a
 * live run of the same scenario in the same system.
 */
export const LATE_SHIFT_LON = 2;

/** Moves every position of a plan (samples, dispatches, registry points and GeoJSON) `dLon` degrees east. */
export function shiftPlan(plan: ScenarioPlan, dLon: number): ScenarioPlan {
  // GeoJSON `coordinates` hold [lon, lat] pairs at any depth; records hold `lon` fields.
  const shiftCoordinates = (value: unknown): unknown => {
    if (!Array.isArray(value)) return value;
    if (typeof value[0] === 'number') return [value[0] + dLon, ...value.slice(1)];
    return value.map(shiftCoordinates);
  };
  const shift = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(shift);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        out[k] = k === 'coordinates' ? shiftCoordinates(v) : k === 'lon' && typeof v === 'number' ? v + dLon : shift(v);
      }
      return out;
    }
    return value;
  };
  return {
    ...plan,
    registry: plan.registry.map((step) => ({ ...step, body: shift(step.body) as Record<string, unknown> })),
    samples: plan.samples.map((x) => ({ ...x, lon: x.lon + dLon })),
    dispatches: plan.dispatches.map((d) => (d.lon === undefined ? d : { ...d, lon: d.lon + dLon })),
  };
}

/** Builds a scenario's plan for one run (late: placed `lateMinutes` further back, and shifted east). */
export function planRun(scenario: Scenario, opts: RunOptions): Omit<ScenarioRun, 'sentAtMs' | 'accepted'> {
  const late = opts.lateMinutes ?? 0;
  const ctx = buildContext((opts.nowMs ?? Date.now()) - late * 60_000, opts.runId);
  const plan = scenario.build(ctx);
  return {
    scenario,
    plan: late > 0 ? shiftPlan(plan, LATE_SHIFT_LON) : plan,
    runId: ctx.runId,
    lateMinutes: late,
    builtAtMs: ctx.nowMs,
  };
}

/** Creates the scenario's registry, then sends its telemetry (live: in time order; late: per device) and dispatches. */
export async function playScenario(scenario: Scenario, opts: RunOptions): Promise<ScenarioRun> {
  const planned = planRun(scenario, opts);
  const gt06 = opts.gt06 ? asGt06Plan(planned.plan, planned.runId) : undefined;
  await createRegistry(gt06?.plan ?? planned.plan, opts);
  await sleep(opts.registryReloadMs ?? 1000);
  return sendTelemetry(planned, opts, gt06);
}

/** Creates a plan's registry records through the API. */
export async function createRegistry(plan: ScenarioPlan, opts: RunOptions): Promise<void> {
  const log = opts.log ?? (() => {});
  for (const step of plan.registry) {
    let res = await call(opts, 'POST', `/v1/${step.collection}`, step.body);
    for (let retry = 0; res.status === 409 && step.collection === 'vehicles' && retry < 5; retry++) {
      step.body.plate = randomPlate(); // a plate already taken by an earlier run
      res = await call(opts, 'POST', `/v1/${step.collection}`, step.body);
    }
    if (res.status !== 201) {
      throw new Error(`POST /v1/${step.collection} ${String(step.body.id)}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    log(`  registry  ${step.collection.padEnd(9)} ${String(step.body.id)}`);
  }
}

/**
 * Sends a planned run's telemetry and dispatches. Live: in time order, 200 samples a request.
 * Late: each device's whole backlog in one request, the devices in reverse order of appearance.
 */
export async function sendTelemetry(
  planned: Omit<ScenarioRun, 'sentAtMs' | 'accepted'>,
  opts: RunOptions,
  /** The plan's devices as GT06 trackers (`asGt06Plan`): the samples go through `opts.gt06`. */
  gt06?: Gt06Plan,
): Promise<ScenarioRun> {
  const log = opts.log ?? (() => {});
  const { plan } = planned;
  const post = async (batch: readonly SampleInput[]): Promise<number> => {
    const res = await call(opts, 'POST', '/v1/telemetry', batch);
    const body = res.body as { accepted?: number; rejected?: unknown[] } | undefined;
    if (res.status !== 200 || (body?.rejected?.length ?? 0) > 0) {
      throw new Error(`POST /v1/telemetry: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    }
    return body?.accepted ?? 0;
  };
  let accepted = 0;
  if (gt06 && opts.gt06) {
    const late = planned.lateMinutes > 0;
    const order = [...new Set(plan.samples.map((x) => x.deviceId))].reverse();
    accepted = await sendOverGt06(gt06, opts.gt06, pino({ level: 'silent' }), { late, deviceOrder: order });
    log(`  gt06      ${gt06.devices.size} tracker(s) through ${opts.gt06.host}:${opts.gt06.port}`);
  } else if (planned.lateMinutes > 0) {
    const byDevice = new Map<string, SampleInput[]>();
    for (const x of plan.samples) {
      const list = byDevice.get(x.deviceId);
      if (list) list.push(x);
      else byDevice.set(x.deviceId, [x]);
    }
    for (const [deviceId, backlog] of [...byDevice].reverse()) {
      accepted += await post(backlog);
      log(`  backlog   ${deviceId}: ${backlog.length} samples in one upload, ${planned.lateMinutes} min late`);
    }
  } else {
    for (let i = 0; i < plan.samples.length; i += 200) accepted += await post(plan.samples.slice(i, i + 200));
  }
  const first = plan.samples[0];
  const last = plan.samples.at(-1);
  if (first && last) {
    const devices = new Set(plan.samples.map((s) => s.deviceId)).size;
    log(
      `  telemetry ${plan.samples.length} samples of ${devices} device(s), ${first.ts} … ${last.ts}: ${accepted} accepted`,
    );
  }
  if (plan.dispatches.length > 0) {
    const res = await call(opts, 'POST', '/v1/dispatches', plan.dispatches);
    if (res.status >= 300) throw new Error(`POST /v1/dispatches: ${res.status} ${JSON.stringify(res.body)}`);
    log(`  dispatch  ${plan.dispatches.length} record(s)`);
  }
  return { ...planned, sentAtMs: Date.now(), accepted };
}

/** The vehicles a plan registers. */
export function planVehicleIds(plan: ScenarioPlan): string[] {
  return plan.registry.filter((s) => s.collection === 'vehicles').map((s) => String(s.body.id));
}

/** Every violation (not dismissed) of every vehicle of the run. */
export async function runViolations(opts: RunOptions, run: ScenarioRun): Promise<ViolationView[]> {
  const all: ViolationView[] = [];
  for (const vehicleId of planVehicleIds(run.plan)) all.push(...(await listViolations(opts, vehicleId)));
  return all.filter((v) => v.status !== 'dismissed');
}

/** A scenario id of another run (`scn-<runId>-…`; run ids are a few lower-case letters and digits). */
const OTHER_RUN_ID = /scn-[a-z0-9]{4,8}-/g;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A run's violations in a form comparable across runs (live and late): rule id, vehicle,
 * confidence, start and measured values, with the run id replaced and every instant written as
 * seconds from the run's first sample — or, for instants more than a day away from its
 * telemetry (registry validity, counted from the build), from the instant the plan was built.
 * Sorted. Scenarios sit at fixed sites, so a system that has played them before holds earlier
 * runs' stops and stands at the same spots: a violation at another run's place is left out (it
 * judged different inputs), and another run's id in the evidence is written as `<other>`. Which
 * of two coincident stops a boarding names is still arbitrary there: compare on a fresh system
 * (as devices/test/late-scenarios.test.ts does) for an exact verdict.
 */
export function comparableViolations(run: ScenarioRun, violations: readonly ViolationView[]): string[] {
  const times = run.plan.samples.map((x) => Date.parse(x.ts));
  const firstMs = Math.min(...times);
  const lastMs = Math.max(...times);
  const relative = (ms: number): string => {
    const near = ms >= firstMs - 86_400_000 && ms <= lastMs + 86_400_000;
    const s = (ms - (near ? firstMs : run.builtAtMs)) / 1000;
    return `${near ? 't' : 'build'}${s >= 0 ? '+' : ''}${s}s`;
  };
  const norm = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (ISO_INSTANT.test(value)) return relative(Date.parse(value));
      return value.split(run.runId).join('<run>').replace(OTHER_RUN_ID, 'scn-<other>-');
    }
    if (Array.isArray(value)) return value.map(norm);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, norm(v)]));
    }
    return value;
  };
  const otherRunsPlace = (v: ViolationView) => v.place?.id.startsWith('scn-') && !v.place.id.includes(run.runId);
  return violations
    .filter((v) => !otherRunsPlace(v))
    .map((v) => JSON.stringify([v.ruleId, norm(v.vehicleId), v.confidence, norm(v.startedAt), norm(v.measured)]))
    .sort();
}

export async function listViolations(opts: RunOptions, vehicleId: string, ruleId?: string): Promise<ViolationView[]> {
  const q = new URLSearchParams({ vehicleId, ...(ruleId ? { ruleId } : {}) });
  const res = await call(opts, 'GET', `/v1/violations?${q}`);
  if (res.status !== 200) throw new Error(`GET /v1/violations: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { items: ViolationView[] }).items;
}

/** Is `expected` a deep subset of `actual`? (arrays: same length, element-wise) */
export function matchesSubset(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return Object.is(actual, expected);
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => matchesSubset(actual[i], e))
    );
  }
  if (actual === null || typeof actual !== 'object') return false;
  return Object.entries(expected).every(([k, v]) => matchesSubset((actual as Record<string, unknown>)[k], v));
}

/** What is wrong with these violations for the scenario's expectation (empty: it holds). */
export function judge(scenario: Scenario, violations: readonly ViolationView[]): string[] {
  const mine = violations.filter((v) => v.ruleId === scenario.ruleId && v.status !== 'dismissed');
  if (scenario.expect === 'quiet') {
    return mine.map((v) => `unexpected ${v.ruleId} ${v.id} (${v.confidence}) ${JSON.stringify(v.measured)}`);
  }
  if (mine.length === 0) return [`no ${scenario.ruleId} violation`];
  const best = mine.find(
    (v) =>
      v.legalBasis.some((b) => b.includes(scenario.article)) &&
      (!scenario.confidence || v.confidence === scenario.confidence) &&
      (!scenario.measured || matchesSubset(v.measured, scenario.measured)),
  );
  if (best) return [];
  const v = mine[0] as ViolationView;
  const problems: string[] = [];
  if (!v.legalBasis.some((b) => b.includes(scenario.article)))
    problems.push(`legal basis ${JSON.stringify(v.legalBasis)} lacks '${scenario.article}'`);
  if (scenario.confidence && v.confidence !== scenario.confidence)
    problems.push(`confidence ${v.confidence}, expected ${scenario.confidence}`);
  if (scenario.measured && !matchesSubset(v.measured, scenario.measured))
    problems.push(`measured ${JSON.stringify(v.measured)} does not match ${JSON.stringify(scenario.measured)}`);
  return problems;
}

/**
 * Polls `GET /v1/violations?vehicleId=` until the expectation holds (`fires`, up to
 * `timeoutMs`) or for `quietMs` (`quiet`: nothing may appear in that time).
 */
export async function awaitOutcome(
  run: ScenarioRun,
  opts: RunOptions & { timeoutMs?: number; quietMs?: number },
): Promise<ScenarioOutcome> {
  const { scenario, plan } = run;
  const deadline = run.sentAtMs + (scenario.expect === 'fires' ? (opts.timeoutMs ?? 10_000) : (opts.quietMs ?? 2_000));
  for (;;) {
    const violations = await listViolations(opts, plan.vehicleId, scenario.ruleId);
    const problems = judge(scenario, violations);
    const done = Date.now() >= deadline;
    if (scenario.expect === 'fires' && problems.length === 0) {
      return { ok: true, problems, violations, latencyMs: Date.now() - run.sentAtMs };
    }
    if (scenario.expect === 'quiet' && problems.length > 0) return { ok: false, problems, violations, latencyMs: null };
    if (done) return { ok: problems.length === 0, problems, violations, latencyMs: null };
    await sleep(100);
  }
}
