import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from '../../api/test/support.js';
import { scenarios } from '../src/scenarios/index.js';
import { awaitOutcome, playScenario, type RunOptions, type ViolationView } from '../src/scenarios/runner.js';
import type { Scenario } from '../src/scenarios/types.js';

/**
 * Every regulatory scenario through the real HTTP ingest: the registry created through the API
 * (back-dated with `validFrom`), the telemetry sent to `POST /v1/telemetry`, the verdict read
 * from `GET /v1/violations`. One system for the file: every scenario has its own vehicles,
 * stops, stands and contracts, each in its own spot.
 */
describe('regulatory scenarios through the HTTP ingest', () => {
  let sys: TestSystem;
  let opts: RunOptions;
  let configDir: string;
  const latencies: string[] = [];

  beforeAll(async () => {
    // The tariff tables are decree data the packs ship without (rules/README.md): configured here
    // as a regulator would, so the overcharge rules are judged too.
    configDir = await mkdtemp(join(tmpdir(), 'vigia-scenarios-'));
    const rulesConfig = join(configDir, 'rules.json');
    await writeFile(
      rulesConfig,
      JSON.stringify({
        'df-taxi': { tariff: { kmB1Ut: 1, waitingHourUt: 10 } },
        'belem-taxi': { tariff: { bandeiradaCents: 600, kmB1Cents: 400, kmB2Cents: 600, waitingHourCents: 3000 } },
      }),
    );
    sys = await startTestSystem('pglite', {
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      RULES_CONFIG_FILE: rulesConfig,
    });
    // The DF tariff is stated in UT (Unidade Taximétrica): its BRL value is registry data.
    const ut = await api(sys, 'POST', '/v1/unit-values', { unit: 'UT', valueBrl: 3, validFrom: '2020-01-01' });
    expect(ut.status).toBe(201);
    opts = { apiUrl: sys.url, token: sys.adminToken, registryReloadMs: 800 };
  });
  afterAll(async () => {
    if (latencies.length > 0) console.log(`scenario latencies:\n${latencies.join('\n')}`);
    await sys?.stop();
    await rm(configDir, { recursive: true, force: true });
  });

  const title = (s: Scenario) =>
    `${s.ruleId} (${s.article}) ${s.expect === 'fires' ? 'fires' : 'stays quiet'}: ${s.summary} [${s.name}]`;

  for (const scenario of scenarios) {
    it(title(scenario), async () => {
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
