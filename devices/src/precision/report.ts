import type { Pack } from '@vigia/core';
import type { FaultEvent } from './faults.js';
import type { CityResult, FalsePositive, PrecisionOptions } from './run.js';

/** The precision harness's report: plain text tables, as `npm run precision` prints them. */

const CITY: Readonly<Record<Pack, string>> = {
  'df-taxi': 'Brasília',
  'belem-taxi': 'Belém',
  'sp-fretamento': 'São Paulo',
};

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const pad = (s: string, n: number) => s.padEnd(n);
const lpad = (s: string, n: number) => s.padStart(n);

/** FP per 1,000 honest vehicle-hours of the rule's city. */
export function falsePositiveRate(city: CityResult, count: number): number {
  return city.vehicleHours.honest > 0 ? (count * 1000) / city.vehicleHours.honest : 0;
}

export function formatSummary(cities: readonly CityResult[], options: PrecisionOptions): string {
  const lines = [
    `precision harness — ${options.days} simulated day(s) per city from ${new Date(options.startMs).toISOString()}, ` +
      `roster of ${options.vehicles}, a record every ${options.intervalMs / 1000} s (parked: every minute), seed ${options.seed}`,
    '',
    `${pad('city', 26)}${lpad('vehicles', 10)}${lpad('honest', 8)}${lpad('veh-h honest', 14)}${lpad('veh-h vicious', 15)}${lpad('records', 12)}${lpad('delivered', 12)}${lpad('judged', 12)}${lpad('wall', 9)}`,
  ];
  for (const c of cities) {
    lines.push(
      `${pad(`${CITY[c.pack]} (${c.pack})`, 26)}${lpad(String(c.vehicles.honest + c.vehicles.vicious), 10)}${lpad(String(c.vehicles.honest), 8)}` +
        `${lpad(fmt(c.vehicleHours.honest), 14)}${lpad(fmt(c.vehicleHours.vicious), 15)}${lpad(String(c.samples.produced), 12)}` +
        `${lpad(String(c.samples.delivered), 12)}${lpad(String(c.samples.judged), 12)}${lpad(`${fmt(c.wallMs / 1000, 0)} s`, 9)}`,
    );
  }
  lines.push('', 'faults injected (all trackers):');
  for (const c of cities) {
    const f = c.faults;
    lines.push(
      `  ${pad(c.pack, 14)} canyon episodes ${f.canyonEpisodes}, standstill speeds ${f.standstillSpeeds} records, ` +
        `multipath jumps ${f.multipathJumps} (${f.multipathHonest} with honest accuracy), dropouts ${f.dropouts} ` +
        `(${f.droppedRecords} records lost), counter flickers ${f.counterFlickers}, door bounces ${f.doorBounces}, ` +
        `late backlogs ${f.backlogs} (${f.lateRecords} records); the engine left out ${c.samples.inaccurate} records ` +
        `as inaccurate and ${c.samples.late} as late or repeated; stops: ${c.stopsSource}`,
    );
  }
  return lines.join('\n');
}

export function formatFalsePositiveTable(cities: readonly CityResult[]): string {
  const lines = [
    'false positives of honest vehicles, per 1,000 honest vehicle-hours',
    `${pad('rule id', 32)}${lpad('violations', 11)}${lpad('confirmed', 11)}${lpad('vehicles', 10)}${lpad('per 1,000 veh-h', 17)}`,
  ];
  let total = 0;
  for (const c of cities) {
    for (const [ruleId, count] of c.honestByRule) {
      const fps = c.falsePositives.filter((f) => f.honest && f.violation.ruleId === ruleId);
      const confirmed = fps.filter((f) => f.violation.confidence === 'confirmed').length;
      const vehicles = new Set(fps.map((f) => f.violation.vehicleId)).size;
      total += count;
      lines.push(
        `${pad(ruleId, 32)}${lpad(String(count), 11)}${lpad(String(confirmed), 11)}${lpad(String(vehicles), 10)}${lpad(fmt(falsePositiveRate(c, count), 2), 17)}`,
      );
    }
  }
  lines.push(`${pad('all rules', 32)}${lpad(String(total), 11)}`);
  return lines.join('\n');
}

export function formatRecallTable(cities: readonly CityResult[]): string {
  const lines = [
    'recall per vice: vicious vehicles whose vice raised its rule',
    `${pad('city', 15)}${pad('vice', 40)}${pad('rule id', 28)}${lpad('caught', 8)}${lpad('recall', 8)}  missed`,
  ];
  for (const c of cities) {
    for (const r of c.recall) {
      const missed = r.vehicles.filter((v) => !r.caught.includes(v));
      const share = r.vehicles.length > 0 ? r.caught.length / r.vehicles.length : 0;
      lines.push(
        `${pad(c.pack, 15)}${pad(r.rule.label, 40)}${pad(r.rule.ruleId, 28)}${lpad(`${r.caught.length}/${r.vehicles.length}`, 8)}${lpad(`${fmt(share * 100, 0)} %`, 8)}  ${missed.join(', ') || '—'}`,
      );
    }
  }
  return lines.join('\n');
}

/** Long lists in measured values (a stand's queue history) keep their last entries. */
const LIST_KEEP = 6;
function shortLists(_key: string, value: unknown): unknown {
  if (!Array.isArray(value) || value.length <= LIST_KEEP) return value;
  return [`… ${value.length - LIST_KEEP} earlier`, ...value.slice(-LIST_KEEP)];
}

/** One false positive: rule id, vehicle, local time, confidence, measured values, and the faults around it. */
export function formatFalsePositive(fp: FalsePositive): string {
  const v = fp.violation;
  const who = fp.honest ? 'honest' : 'vicious, not its vice';
  const clock = new Intl.DateTimeFormat('en-GB', {
    timeZone: v.timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const list = (faults: readonly FaultEvent[]) =>
    faults.length > 0 ? faults.map((f) => `${clock.format(f.atMs)} ${f.kind} (${f.detail})`).join('; ') : 'none';
  return [
    `${v.ruleId} ${v.vehicleId} (${who}) ${v.localStartedAt} → ${v.localEndedAt.slice(11)} ${v.confidence}${v.variant ? ` ${v.variant}` : ''}`,
    `    measured ${JSON.stringify(v.measured, shortLists)}`,
    ...(v.place ? [`    place ${JSON.stringify(v.place)}`] : []),
    `    faults around it: ${list(fp.faults)}`,
    ...fp.truth.flatMap((t) => [
      ...(t.vehicleId === v.vehicleId ? [] : [`    faults of ${t.vehicleId}: ${list(t.faults)}`]),
      `    truth of ${t.vehicleId}: ${t.steps.map((step) => `${clock.format(step.atMs)} ${step.what}`).join('; ')}`,
    ]),
  ].join('\n');
}

/** Every false positive, the first `limit` per rule id in full. */
export function formatFalsePositives(cities: readonly CityResult[], limit = 5): string {
  const all = cities.flatMap((c) => c.falsePositives);
  if (all.length === 0) return 'no false positives';
  const lines: string[] = [];
  const byRule = new Map<string, FalsePositive[]>();
  for (const fp of all) byRule.set(fp.violation.ruleId, [...(byRule.get(fp.violation.ruleId) ?? []), fp]);
  for (const [ruleId, list] of byRule) {
    lines.push(`${ruleId}: ${list.length} (${list.filter((f) => f.honest).length} on honest vehicles)`);
    for (const fp of list.slice(0, limit)) lines.push(`  ${formatFalsePositive(fp)}`);
    if (list.length > limit) lines.push(`  … and ${list.length - limit} more`);
  }
  return lines.join('\n');
}

export function formatReport(cities: readonly CityResult[], options: PrecisionOptions, detailLimit = 5): string {
  return [
    formatSummary(cities, options),
    '',
    formatFalsePositiveTable(cities),
    '',
    formatRecallTable(cities),
    '',
    'false positives in detail (honest vehicles, and vicious ones on a rule no vice of theirs explains):',
    formatFalsePositives(cities, detailLimit),
  ].join('\n');
}
