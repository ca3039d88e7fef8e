/**
 * `npm run load`: the k6 scenarios of load/k6 run from Node, CI-sized by default, against
 * LOAD_API_URL with ADMIN_TOKEN or, without a URL, against a system it starts itself. Prints each
 * scenario's figures and threshold verdicts (with LOAD_JSON=1 also one JSON line); exits 1 when a
 * threshold fails, 2 when the run could not be made. Settings: load/README.md.
 */
import type { ScenarioName } from '../scenarios/fleet.ts';
import type { Sizes } from '../scenarios/sizes.ts';
import { loadConfigFrom } from './config.ts';
import type { Target } from './http.ts';
import { type OwnSystem, startOwnSystem } from './own-system.ts';
import { formatResult } from './report.ts';
import type { ScenarioResult } from './result.ts';
import { runDispatch } from './run-dispatch.ts';
import { runIngest } from './run-ingest.ts';
import { runLive } from './run-live.ts';

const runners: Record<ScenarioName, (target: Target, sizes: Sizes) => Promise<ScenarioResult>> = {
  ingest: runIngest,
  live: runLive,
  dispatch: runDispatch,
};

async function main(): Promise<number> {
  const config = loadConfigFrom(process.env);
  let own: OwnSystem | undefined;
  if (!config.target) {
    console.log('load: starting a system of its own (api/dist/main.js on embedded PGlite, DEMO off)');
    own = await startOwnSystem();
  }
  const target = config.target ?? own;
  if (!target) throw new Error('no system to load');
  console.log(
    `load: ${config.scenarios.join(', ')} against ${target.apiUrl}` +
      (target.ingestUrl === target.apiUrl ? '' : ` (ingest ${target.ingestUrl})`) +
      `; sizes ${JSON.stringify(config.sizes)}`,
  );
  const results: ScenarioResult[] = [];
  try {
    for (const scenario of config.scenarios) {
      const result = await runners[scenario](target, config.sizes);
      console.log(formatResult(result));
      results.push(result);
    }
  } finally {
    await own?.stop();
  }
  const passed = results.every((r) => r.passed);
  console.log(`load: ${passed ? 'PASS' : 'FAIL'}`);
  if (config.json) console.log(JSON.stringify({ load: { passed, scenarios: results } }));
  return passed ? 0 : 1;
}

main().then(
  // Exit at once: kept-alive HTTP connections would hold the process for their idle timeout.
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`load: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
