#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { configSchema } from '@vigia/core';
import { asGt06Plan, uncarriedFields } from './emulators/gt06/gt06-scenario.js';
import { hostPortSchema } from './emulators/host-port.js';
import { findScenario, scenarios } from './scenarios/index.js';
import {
  awaitOutcome,
  comparableViolations,
  planRun,
  playScenario,
  type RunOptions,
  runViolations,
  type ScenarioRun,
} from './scenarios/runner.js';
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
  --late <minutes>    also replay each scenario late: stamped <minutes> further back, its telemetry
                      withheld and sent as one upload per device of its whole backlog (devices in
                      reverse order, 2° of longitude east so it meets no live run); after a settle
                      wait, each late run must raise exactly what its live run raised
  --settle-ms <ms>    with --late: wait before comparing, past the engine's periodic flush (default 35000)
  --protocol <name>   native (POST /v1/telemetry, the default) or gt06: the scenario's devices are
                      registered as GT06 (Concox) trackers and send through the GT06 gateway; a
                      scenario whose samples carry what a GT06 cannot (taximeter, passengers,
                      tachograph, accuracy) is reported, not judged
  --gt06 <host:port>  GT06 gateway (default: the API host, port ${configSchema.shape.GT06_PORT.parse(undefined)} as GT06_PORT)
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
      late: { type: 'string' };
      'settle-ms': { type: 'string' };
      protocol: { type: 'string' };
      gt06: { type: 'string' };
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
      late: { type: 'string' },
      'settle-ms': { type: 'string' },
      protocol: { type: 'string' },
      gt06: { type: 'string' },
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
const protocol = values.protocol ?? 'native';
if (protocol !== 'native' && protocol !== 'gt06') fail('--protocol: native or gt06');
if (values.gt06 !== undefined && protocol !== 'gt06') fail('--gt06 needs --protocol gt06');
const gt06Gateway = hostPortSchema.safeParse(
  values.gt06 ?? `${new URL(apiUrl).host.replace(/:\d+$/, '')}:${configSchema.shape.GT06_PORT.parse(undefined)}`,
);
if (!gt06Gateway.success) fail('--gt06: host:port');
const opts: RunOptions & { timeoutMs: number; quietMs: number } = {
  apiUrl,
  token,
  ...(protocol === 'gt06' ? { gt06: gt06Gateway.data } : {}),
  timeoutMs: number(values['timeout-ms'], 10_000, '--timeout-ms'),
  quietMs: number(values['quiet-ms'], 3_000, '--quiet-ms'),
  registryReloadMs: 1500,
  log: out,
};

const lateMinutes = values.late === undefined ? 0 : Number(values.late);
if (!Number.isInteger(lateMinutes) || lateMinutes < 0) fail('--late: a whole number of minutes');
const settleMs = number(values['settle-ms'], 35_000, '--settle-ms');
const pairs: { live: ScenarioRun; late: ScenarioRun }[] = [];

let failed = 0;
let notJudged = 0;
let notCarried = 0;
for (const scenario of chosen) {
  out(
    `\n${scenario.name}: ${scenario.ruleId} (${scenario.article}) must ${scenario.expect === 'fires' ? 'fire' : 'stay quiet'}`,
  );
  out(`  ${scenario.summary}`);
  if (opts.gt06) {
    const planned = planRun(scenario, opts);
    const uncarried = uncarriedFields(asGt06Plan(planned.plan, planned.runId));
    if (uncarried.length > 0) {
      notCarried++;
      out(`  NOT JUDGED over GT06: its samples carry ${uncarried.join(', ')}, which a GT06 tracker cannot send`);
      continue;
    }
  }
  try {
    const run = await playScenario(scenario, opts);
    out(`  vehicle   ${run.plan.vehicleId}, local time ${run.plan.when}`);
    let outcome = await awaitOutcome(run, opts);
    if (lateMinutes > 0) {
      out(`  replayed ${lateMinutes} min late:`);
      const late = await playScenario(scenario, { ...opts, lateMinutes });
      const lateOutcome = await awaitOutcome(late, opts);
      pairs.push({ live: run, late });
      if (!lateOutcome.ok) outcome = { ...lateOutcome, problems: lateOutcome.problems.map((p) => `late: ${p}`) };
    }
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
let differ = 0;
if (pairs.length > 0) {
  out(`\nwaiting ${settleMs} ms for the engine's periodic flush, then comparing live and ${lateMinutes} min late:`);
  await new Promise((r) => setTimeout(r, settleMs));
  for (const { live, late } of pairs) {
    const a = comparableViolations(live, await runViolations(opts, live));
    const b = comparableViolations(late, await runViolations(opts, late));
    const same = JSON.stringify(a) === JSON.stringify(b);
    if (!same) differ++;
    out(`  ${same ? 'same' : 'DIFF'}  ${live.scenario.name.padEnd(48)} live ${a.length}  late ${b.length}`);
    if (!same) {
      for (const x of a.filter((v) => !b.includes(v))) out(`        live only: ${x}`);
      for (const x of b.filter((v) => !a.includes(v))) out(`        late only: ${x}`);
    }
  }
}
out(
  `\n${chosen.length - failed - notJudged - notCarried} of ${chosen.length} scenario(s) held${notJudged ? `, ${notJudged} need pack configuration` : ''}${notCarried ? `, ${notCarried} need fields a GT06 cannot carry` : ''}${failed ? `, ${failed} FAILED` : ''}${pairs.length > 0 ? `; late replay: ${pairs.length - differ} of ${pairs.length} raised what they raised live` : ''}`,
);
process.exit(failed > 0 || differ > 0 ? 1 : 0);
