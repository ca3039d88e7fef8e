#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { findScenario, scenarios } from './scenarios/index.js';
import { awaitOutcome, playScenario, type RunOptions } from './scenarios/runner.js';
import type { Scenario } from './scenarios/types.js';

/**
 * `npm run scenario -- <name>|--list|--all`: plays regulatory scenarios against a running vigia
 * system through its public API (registry, `POST /v1/telemetry`, `POST /v1/dispatches`), then
 * polls `GET /v1/violations?vehicleId=` and prints what the rules said. Exit code 0 when every
 * expectation held, 1 when one did not, 2 on a usage error.
 */

const USAGE = `Usage: npm run scenario -- <name>... | --list | --all [options]

Plays regulatory scenarios (a firing sequence and a near miss per rule id) against a running
vigia system and checks the violations it raises.

Options:
  --list              list the scenarios
  --all               play every scenario (those needing pack configuration are reported, not failed)
  --api-url <url>     API base URL (default http://127.0.0.1:3000)
  --token <token>     admin token (default: the ADMIN_TOKEN environment variable)
  --timeout-ms <ms>   how long to wait for a violation that must fire (default 10000)
  --quiet-ms <ms>     how long a near miss must stay quiet (default 3000)
  -h, --help          show this help`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let parsed: ReturnType<
  typeof parseArgs<{
    options: {
      list: { type: 'boolean' };
      all: { type: 'boolean' };
      'api-url': { type: 'string' };
      token: { type: 'string' };
      'timeout-ms': { type: 'string' };
      'quiet-ms': { type: 'string' };
      help: { type: 'boolean'; short: 'h' };
    };
    allowPositionals: true;
  }>
>;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    strict: true,
    options: {
      list: { type: 'boolean' },
      all: { type: 'boolean' },
      'api-url': { type: 'string' },
      token: { type: 'string' },
      'timeout-ms': { type: 'string' },
      'quiet-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const { values, positionals } = parsed;

if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const out = (line: string) => process.stdout.write(`${line}\n`);

if (values.list) {
  for (const s of scenarios) {
    const note = s.requiresConfiguration ? '  (needs pack configuration)' : '';
    out(`${s.name.padEnd(44)} ${s.ruleId.padEnd(30)} ${s.expect.padEnd(5)} ${s.article}: ${s.summary}${note}`);
  }
  process.exit(0);
}

let chosen: Scenario[];
if (values.all) chosen = [...scenarios];
else {
  if (positionals.length === 0) fail('name a scenario, or --list / --all');
  chosen = positionals.map((name) => findScenario(name) ?? fail(`unknown scenario '${name}' (see --list)`));
}

const token = values.token ?? process.env.ADMIN_TOKEN;
if (!token) fail('an admin token is required: --token or ADMIN_TOKEN');
const number = (v: string | undefined, dflt: number, name: string): number => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) fail(`${name}: a whole number of milliseconds`);
  return n;
};
const apiUrl = values['api-url'] ?? 'http://127.0.0.1:3000';
if (!/^https?:\/\//.test(apiUrl)) fail('--api-url: an http(s) URL');
const opts: RunOptions & { timeoutMs: number; quietMs: number } = {
  apiUrl,
  token,
  timeoutMs: number(values['timeout-ms'], 10_000, '--timeout-ms'),
  quietMs: number(values['quiet-ms'], 3_000, '--quiet-ms'),
  registryReloadMs: 1500,
  log: out,
};

let failed = 0;
let notJudged = 0;
for (const scenario of chosen) {
  out(
    `\n${scenario.name}: ${scenario.ruleId} (${scenario.article}) must ${scenario.expect === 'fires' ? 'fire' : 'stay quiet'}`,
  );
  out(`  ${scenario.summary}`);
  try {
    const run = await playScenario(scenario, opts);
    out(`  vehicle   ${run.plan.vehicleId}, local time ${run.plan.when}`);
    const outcome = await awaitOutcome(run, opts);
    for (const v of outcome.violations) {
      out(
        `  violation ${v.ruleId} ${v.id} ${v.confidence}${v.variant ? ` ${v.variant}` : ''} [${v.legalBasis.join('; ')}]`,
      );
      out(`            measured ${JSON.stringify(v.measured)}`);
    }
    if (outcome.violations.length === 0) out(`  no ${scenario.ruleId} violation for ${run.plan.vehicleId}`);
    if (outcome.ok) {
      out(`  OK${outcome.latencyMs !== null ? ` (queryable ${outcome.latencyMs} ms after the last request)` : ''}`);
    } else if (scenario.requiresConfiguration && values.all) {
      notJudged++;
      out(`  NOT JUDGED: ${scenario.requiresConfiguration}`);
    } else {
      failed++;
      for (const p of outcome.problems) out(`  FAILED: ${p}`);
    }
  } catch (err) {
    failed++;
    out(`  FAILED: ${err instanceof Error ? err.message : String(err)}`);
  }
}
out(
  `\n${chosen.length - failed - notJudged} of ${chosen.length} scenario(s) held${notJudged ? `, ${notJudged} need pack configuration` : ''}${failed ? `, ${failed} FAILED` : ''}`,
);
process.exit(failed > 0 ? 1 : 0);
