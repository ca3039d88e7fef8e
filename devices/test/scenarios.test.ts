import { afterAll, beforeAll, describe, it } from 'vitest';
import { api, type TestSystem } from '../../api/test/support.js';
import { scenarios } from '../src/scenarios/index.js';
import { awaitOutcome, playScenario, type RunOptions, type ViolationView } from '../src/scenarios/runner.js';
import type { Scenario } from '../src/scenarios/types.js';
import { startScenarioSystem } from './scenario-system.js';

/**
 * Every regulatory scenario through the real HTTP ingest: the registry created through the API
 * (back-dated with `validFrom`), the telemetry sent to `POST /v1/telemetry`, the verdict read
 * from `GET /v1/violations`. One system for the file: every scenario has its own vehicles,
 * stops, stands and contracts, each in its own spot.
 */
describe('regulatory scenarios through the HTTP ingest', () => {
  let sys: TestSystem;
  let opts: RunOptions;
  let stop: () => Promise<void> = async () => {};
  const latencies: string[] = [];

  beforeAll(async () => {
    ({ sys, stop } = await startScenarioSystem());
    // No pause between a scenario's registry and its telemetry: the embedded bus marks the rules'
    // registry stale before the registry write answers, and the rule pipeline reloads a stale
    // registry before it judges the next batch (ingest/src/rules/rule-pipeline.ts). A pause
    // would only hide a regression of that guarantee.
    opts = { apiUrl: sys.url, token: sys.adminToken, registryReloadMs: 0 };
  });
  afterAll(async () => {
    if (latencies.length > 0) console.log(`scenario latencies:\n${latencies.join('\n')}`);
    await stop();
  });

  const title = (s: Scenario) =>
    `${s.ruleId} (${s.article}) ${s.expect === 'fires' ? 'fires' : 'stays quiet'}: ${s.summary} [${s.name}]`;

  // Scenarios are isolated by construction (own vehicles and places, each in its own spot), and
  // each mostly waits for its verdict to settle: a few at a time keeps the file's time down.
  for (const scenario of scenarios) {
    it.concurrent(title(scenario), async ({ expect }) => {
      const run = await playScenario(scenario, opts);
      expect(run.accepted).toBe(run.plan.samples.length);
      const outcome = await awaitOutcome(run, { ...opts, timeoutMs: 8000, quietMs: 1500 });
      if (scenario.expect === 'fires') {
        const found = outcome.violations.find((v) => v.ruleId === scenario.ruleId) as ViolationView;
        if (!outcome.ok) console.log(scenario.name, JSON.stringify(outcome.violations, null, 1), outcome.problems);
        expect(found).toBeDefined();
        expect(found).toMatchObject({
          ruleId: scenario.ruleId,
          vehicleId: run.plan.vehicleId,
          legalBasis: expect.arrayContaining([expect.stringContaining(scenario.article)]),
          ...(scenario.confidence ? { confidence: scenario.confidence } : {}),
        });
        if (scenario.measured) expect(found.measured).toMatchObject(scenario.measured);
        expect(outcome.problems).toEqual([]);
        latencies.push(`  ${scenario.ruleId}: ${outcome.latencyMs} ms after the last request`);
      } else {
        // After the decision point: every sample (trailing ones included) has been answered.
        const all = await api<{ items: ViolationView[] }>(
          sys,
          'GET',
          `/v1/violations?vehicleId=${run.plan.vehicleId}&ruleId=${scenario.ruleId}`,
        );
        expect(all.body.items.filter((v) => v.status !== 'dismissed')).toEqual([]);
        expect(outcome.ok).toBe(true);
      }
    });
  }
});
