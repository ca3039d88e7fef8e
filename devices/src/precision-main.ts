#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { Pack } from '@vigia/core';
import { formatReport } from './precision/report.js';
import { defaultPrecisionOptions, PRECISION_PACKS, type PrecisionOptions, runCity } from './precision/run.js';

/**
 * `npm run precision`: the precision harness (src/precision/). The simulated fleet of each city
 * for 7 simulated days, honest trackers with realistic sensor faults, through the real rule
 * engine; prints vehicle-hours and records per city, false positives per 1,000 honest
 * vehicle-hours for every rule id, recall per vice, and each false positive with the faults
 * around it. Exit code 0 when no honest vehicle raised anything, 1 otherwise, 2 on a usage error.
 */

const USAGE = `Usage: npm run precision [-- options]

Options:
  --days <n>          simulated days per city (default 7)
  --vehicles <n>      roster size, split over the cities as the demo splits it (default 72)
  --interval-ms <ms>  one record per vehicle per interval while the ignition is on (default 2000)
  --seed <seed>       simulation and fault seed (default 1)
  --pack <pack>       only this city (df-taxi, belem-taxi, sp-fretamento); repeatable
  --details <n>       false positives printed in full per rule id (default 5)
  -h, --help          show this help`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values: ReturnType<typeof parse>['values'];
function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      days: { type: 'string' },
      vehicles: { type: 'string' },
      'interval-ms': { type: 'string' },
      seed: { type: 'string' },
      pack: { type: 'string', multiple: true },
      details: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
try {
  values = parse().values;
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const positive = (v: string | undefined, name: string, integer: boolean): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) fail(`${name}: a positive number`);
  return n;
};
const defaults = defaultPrecisionOptions();
const options: PrecisionOptions = {
  ...defaults,
  days: positive(values.days, '--days', false) ?? defaults.days,
  vehicles: positive(values.vehicles, '--vehicles', true) ?? defaults.vehicles,
  intervalMs: positive(values['interval-ms'], '--interval-ms', true) ?? defaults.intervalMs,
  seed: values.seed ?? defaults.seed,
  onProgress: (pack, ms) => {
    if (ms % 86_400_000 < 3_600_000) process.stderr.write(`  ${pack}: day ${Math.round(ms / 86_400_000)} done\n`);
  },
};
const packs = (values.pack ?? PRECISION_PACKS) as Pack[];
for (const p of packs) if (!PRECISION_PACKS.includes(p)) fail(`--pack: one of ${PRECISION_PACKS.join(', ')}`);
const details = positive(values.details, '--details', true) ?? 5;

const results = packs.map((pack) => {
  process.stderr.write(`${pack}: ${options.days} simulated day(s)…\n`);
  return runCity(pack, options);
});
process.stdout.write(`${formatReport(results, options, details)}\n`);
const honest = results.reduce((n, c) => n + c.falsePositives.filter((f) => f.honest).length, 0);
process.exit(honest > 0 ? 1 : 0);
