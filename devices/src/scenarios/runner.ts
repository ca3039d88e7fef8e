import type { BuildContext, Scenario, ScenarioPlan } from './types.js';

/** Plays scenarios through the public HTTP API of a running system and checks what the rules said. */

export interface RunOptions {
  apiUrl: string;
  /** Admin token: creates the registry and sends for every device (a gateway may). */
  token: string;
  nowMs?: number;
  runId?: string;
  /** How long to wait after the registry changes for the rule engine to reload it (ms). */
  registryReloadMs?: number;
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

/** Creates the scenario's registry, then sends its telemetry (in time order) and dispatches. */
export async function playScenario(scenario: Scenario, opts: RunOptions): Promise<ScenarioRun> {
  const log = opts.log ?? (() => {});
  const plan = scenario.build(buildContext(opts.nowMs, opts.runId));
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
  await sleep(opts.registryReloadMs ?? 1000);
  let accepted = 0;
  for (let i = 0; i < plan.samples.length; i += 200) {
    const batch = plan.samples.slice(i, i + 200);
    const res = await call(opts, 'POST', '/v1/telemetry', batch);
    const body = res.body as { accepted?: number; rejected?: unknown[] } | undefined;
    if (res.status !== 200 || (body?.rejected?.length ?? 0) > 0) {
      throw new Error(`POST /v1/telemetry: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    }
    accepted += body?.accepted ?? 0;
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
  return { scenario, plan, sentAtMs: Date.now(), accepted };
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
