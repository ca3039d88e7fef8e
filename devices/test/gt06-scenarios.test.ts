import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asGt06Plan, uncarriedFields } from '../src/emulators/gt06/gt06-scenario.js';
import { findScenario, scenarios } from '../src/scenarios/index.js';
import { awaitOutcome, planRun, playScenario, type RunOptions } from '../src/scenarios/runner.js';
import type { Scenario } from '../src/scenarios/types.js';
import { startScenarioSystem } from './scenario-system.js';
import { freePort } from './support.js';

/**
 * `npm run scenario -- --protocol gt06`: scenarios played by GT06 trackers through the system's
 * own GT06 gateway. Only scenarios whose samples a GT06 can carry (position, speed, course,
 * ignition, a taxi's door alarm) are judged over it: speeding and the registry facts; the rest
 * (taximeter, passengers, tachograph) are reported as not judged.
 */

/** Speeding in Belém (whole km/h over GT06, the tolerance kept), registry facts in Brasília and São Paulo. */
const PLAYED = [
  'bel-unsafe-driving',
  'bel-unsafe-driving-near-miss',
  'bel-unsafe-driving-tolerance-near-miss',
  'df-permit-expired',
  'fret-tachograph-missing',
];

describe('scenarios over GT06', () => {
  it('tells the scenarios a GT06 can carry from those it cannot', () => {
    const carried = scenarios.filter((s) => {
      const planned = planRun(s, { apiUrl: 'http://127.0.0.1', token: 't' });
      return uncarriedFields(asGt06Plan(planned.plan, planned.runId)).length === 0;
    });
    expect(carried.map((s) => s.name)).toEqual(expect.arrayContaining(PLAYED));
    // A taximeter scenario is not: its meter state cannot travel over GT06.
    const meter = scenarios.find((s) => s.ruleId === 'DF_RIDE_WITHOUT_METER') as Scenario;
    const planned = planRun(meter, { apiUrl: 'http://127.0.0.1', token: 't' });
    expect(uncarriedFields(asGt06Plan(planned.plan, planned.runId))).toContain('meter.state');
  });
});

describe('regulatory scenarios played by GT06 trackers', () => {
  let opts: RunOptions;
  let stop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    const port = await freePort();
    const started = await startScenarioSystem({ GT06_PORT: String(port) });
    stop = started.stop;
    opts = {
      apiUrl: started.sys.url,
      token: started.sys.adminToken,
      registryReloadMs: 800,
      gt06: { host: '127.0.0.1', port },
    };
  });
  afterAll(async () => {
    await stop();
  });

  for (const name of PLAYED) {
    it(`${name} holds over GT06`, async () => {
      const scenario = findScenario(name) as Scenario;
      const run = await playScenario(scenario, opts);
      expect(run.accepted).toBe(run.plan.samples.length);
      const outcome = await awaitOutcome(run, { ...opts, timeoutMs: 8000, quietMs: 1500 });
      expect(outcome.problems).toEqual([]);
      expect(outcome.ok).toBe(true);
      if (scenario.expect === 'fires') {
        expect(outcome.violations.some((v) => v.ruleId === scenario.ruleId)).toBe(true);
      }
    });
  }
});
