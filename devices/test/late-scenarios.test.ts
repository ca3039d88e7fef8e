import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSystem } from '../../api/test/support.js';
import { scenarios } from '../src/scenarios/index.js';
import {
  comparableViolations,
  createRegistry,
  judge,
  planRun,
  type RunOptions,
  runViolations,
  type ScenarioRun,
  sendTelemetry,
} from '../src/scenarios/runner.js';
import { localDateOf, localInstantMs } from '../src/scenarios/time.js';
import { startScenarioSystem } from './scenario-system.js';

/**
 * RULES.md "Late and buffered data" / issue 7 acceptance: every scenario of
 * `npm run scenario -- --all`, played live (time order, 200 samples a request) and 30 minutes
 * late (its telemetry withheld, then one upload per device of its whole backlog, devices in
 * reverse order), through the real HTTP ingest of one system, raises the same violations —
 * rule id, vehicle, confidence, start and measured values, instants counted from the run's
 * first sample. Every scenario is more than `general.idleCloseS` old when sent, so the
 * pipeline's periodic flush finishes both copies' events before they are compared: every
 * FLUSH_MS here (RULES_FLUSH_INTERVAL_MS; 30 s by default, which this test used to wait out).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LATE_MINUTES = 30;
const FLUSH_MS = 3000;

describe('judgement in event time: every scenario, live and 30 minutes late, through the HTTP ingest', () => {
  let sys: TestSystem;
  let opts: RunOptions;
  let stop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    ({ sys, stop } = await startScenarioSystem({ RULES_FLUSH_INTERVAL_MS: String(FLUSH_MS) }));
    opts = { apiUrl: sys.url, token: sys.adminToken };
  });
  afterAll(async () => {
    await stop();
  });

  it('RULES.md "Late and buffered data": a scenario replayed 30 minutes late raises exactly what it raises live, for every scenario', async () => {
    // Scenarios place themselves on local dates counted from their build time (a past ordinary
    // Tuesday, an inspection 610 days before it): the late copy, built 30 minutes earlier, must
    // fall on the same local day as the live one, so in the half hour after local midnight both
    // are built as of 23:59 the day before.
    const realNowMs = Date.now();
    const nowMs =
      localDateOf(realNowMs) === localDateOf(realNowMs - LATE_MINUTES * 60_000)
        ? realNowMs
        : localInstantMs(localDateOf(realNowMs), '00:00:00') - 60_000;
    const planned = scenarios.map((scenario) => ({
      scenario,
      live: planRun(scenario, { ...opts, nowMs }),
      late: planRun(scenario, { ...opts, nowMs, lateMinutes: LATE_MINUTES }),
    }));
    // Every registry first (one reload for all), then every live run, then every late backlog.
    for (const p of planned) {
      await createRegistry(p.live.plan, opts);
      await createRegistry(p.late.plan, opts);
    }
    await sleep(1500);
    const runs: { live: ScenarioRun; late: ScenarioRun }[] = [];
    for (const p of planned) runs.push({ live: await sendTelemetry(p.live, opts), late: p.late as ScenarioRun });
    for (const r of runs) r.late = await sendTelemetry(r.late, opts);
    // The same samples are stored either way (a plan may hold a repeated sample on purpose).
    for (const r of runs) {
      expect({ name: r.live.scenario.name, accepted: r.late.accepted }).toEqual({
        name: r.live.scenario.name,
        accepted: r.live.accepted,
      });
    }

    // Past the pipeline's next flush, then until both copies agree (or 45 s more).
    await sleep(FLUSH_MS + 1000);
    const deadline = Date.now() + 45_000;
    let rows: { name: string; live: string[]; late: string[]; problems: string[] }[] = [];
    for (;;) {
      rows = [];
      for (const { live, late } of runs) {
        const liveViolations = await runViolations(opts, live);
        const lateViolations = await runViolations(opts, late);
        const own = (run: ScenarioRun, vs: typeof liveViolations) =>
          vs.filter((v) => v.vehicleId === run.plan.vehicleId);
        rows.push({
          name: live.scenario.name,
          live: comparableViolations(live, liveViolations),
          late: comparableViolations(late, lateViolations),
          problems: [
            ...judge(live.scenario, own(live, liveViolations)).map((p) => `live: ${p}`),
            ...judge(late.scenario, own(late, lateViolations)).map((p) => `late: ${p}`),
          ],
        });
      }
      const settled = rows.every((r) => JSON.stringify(r.live) === JSON.stringify(r.late) && r.problems.length === 0);
      if (settled || Date.now() > deadline) break;
      await sleep(2000);
    }

    const lines = rows.map((r) => {
      const same = JSON.stringify(r.live) === JSON.stringify(r.late);
      return `  ${same && r.problems.length === 0 ? 'same' : 'DIFF'}  ${r.name.padEnd(48)} live ${String(r.live.length).padStart(2)}  late ${String(r.late.length).padStart(2)}${r.problems.length ? `  ${r.problems.join('; ')}` : ''}`;
    });
    const same = rows.filter((r) => JSON.stringify(r.live) === JSON.stringify(r.late)).length;
    console.log(
      `live vs ${LATE_MINUTES} min late, ${rows.length} scenarios: ${same} raise the same violations\n${lines.join('\n')}`,
    );
    for (const r of rows) {
      expect({ scenario: r.name, violations: r.late }).toEqual({ scenario: r.name, violations: r.live });
      expect({ scenario: r.name, problems: r.problems }).toEqual({ scenario: r.name, problems: [] });
    }
  }, 300_000);
});
