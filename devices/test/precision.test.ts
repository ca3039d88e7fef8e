import type { Pack } from '@vigia/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  formatFalsePositives,
  formatFalsePositiveTable,
  formatRecallTable,
  formatReport,
} from '../src/precision/report.js';
import { type CityResult, defaultPrecisionOptions, PRECISION_PACKS, runCity } from '../src/precision/run.js';

/**
 * The precision harness (src/precision/) as a test: the simulated fleet of each city — the demo's
 * 72-vehicle roster, a record every 2 s — with realistic sensor and link faults on every tracker,
 * through the real rule engine as the ingest pipeline feeds it (arrival order, a flush every 30 s
 * of wall clock). Honest vehicles must raise nothing; every vice must be caught.
 *
 * Why one simulated day and not seven: a day of the three cities takes about a minute on one core
 * (seven take six or seven), and the suite runs on a shared two-core machine. The full week per
 * city is `npm run precision`, which prints the same tables and exits non-zero on a false positive.
 */

const options = { ...defaultPrecisionOptions(), days: 1 };
const results = new Map<Pack, CityResult>();

describe('precision harness: one simulated day per city, honest trackers with realistic faults', () => {
  beforeAll(() => {
    for (const pack of PRECISION_PACKS) results.set(pack, runCity(pack, options));
    console.info(formatReport([...results.values()], options, 3));
  }, 900_000);

  const city = (pack: Pack): CityResult => {
    const c = results.get(pack);
    if (!c) throw new Error(`no result for ${pack}`);
    return c;
  };

  it.each(PRECISION_PACKS)('%s: the day was played with every kind of fault', (pack) => {
    const c = city(pack);
    expect(c.vehicleHours.honest).toBeGreaterThan(150);
    expect(c.samples.judged).toBeGreaterThan(100_000);
    expect(c.samples.delivered).toBeLessThan(c.samples.produced);
    const f = c.faults;
    for (const [kind, n] of Object.entries(f)) expect(n, kind).toBeGreaterThan(0);
  });

  it.each(PRECISION_PACKS)(
    '%s: honest vehicles raise no violation of any rule id (0 per 1,000 vehicle-hours)',
    (pack) => {
      const c = city(pack);
      const honest = c.falsePositives.filter((fp) => fp.honest);
      if (honest.length > 0)
        console.error(
          `${formatFalsePositiveTable([c])}\n\n${formatFalsePositives([{ ...c, falsePositives: honest }], 10)}`,
        );
      expect(
        honest.map(
          ({ violation: v }) =>
            `${v.ruleId} ${v.vehicleId} ${v.localStartedAt} ${v.confidence} ${JSON.stringify(v.measured)}`,
        ),
      ).toEqual([]);
    },
  );

  it.each(PRECISION_PACKS)('%s: every vicious vehicle is caught by the rule its vice breaks', (pack) => {
    const c = city(pack);
    expect(c.recall.length).toBeGreaterThan(0);
    const missed = c.recall.flatMap((r) =>
      r.vehicles.filter((v) => !r.caught.includes(v)).map((v) => `${r.rule.ruleId} ${v}`),
    );
    if (missed.length > 0) console.error(formatRecallTable([c]));
    expect(missed).toEqual([]);
  });
});
