import { processCpuSeconds } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { formatBreakdown, type PlanNode, planParts, statementLabel } from '../src/bench/plan-breakdown.js';
import { storeBenchOptions } from '../src/bench/store-bench-options.js';

/**
 * `npm run bench:store`'s plumbing that could go wrong without the bench noticing: its knobs, the
 * backend CPU read from /proc, and the attribution of auto_explain's times to a statement's parts.
 * Pure functions (and this process's own /proc entry): no database.
 */

describe('the store bench knobs', () => {
  it('defaults to a short run', () => {
    expect(storeBenchOptions({})).toEqual({
      batches: 100,
      devices: 200,
      batchSize: 1000,
      warmUpBatches: 3,
      variantSqlPath: undefined,
    });
  });

  it('takes batches, devices and a variant', () => {
    const options = storeBenchOptions({
      BENCH_STORE_BATCHES: '20',
      BENCH_STORE_DEVICES: '50',
      BENCH_STORE_VARIANT_SQL: '/tmp/v.sql',
    });
    expect(options).toMatchObject({ batches: 20, devices: 50, variantSqlPath: '/tmp/v.sql' });
  });

  it.each([
    ['a batch count that is not a number', { BENCH_STORE_BATCHES: 'ten' }],
    ['too few batches for a median', { BENCH_STORE_BATCHES: '2' }],
    ['more devices than records in a batch', { BENCH_STORE_DEVICES: '1001' }],
    ['an empty variant path', { BENCH_STORE_VARIANT_SQL: '' }],
  ])('refuses %s', (_, env) => {
    expect(() => storeBenchOptions(env)).toThrow(/bench settings/);
  });
});

describe('a backend process CPU time', () => {
  it('reads a process of this machine (this one) from /proc', async () => {
    const seconds = processCpuSeconds(process.pid);
    expect(seconds).toBeGreaterThanOrEqual(0);
  });

  it('is undefined for a process that does not exist', async () => {
    expect(processCpuSeconds(2 ** 30)).toBeUndefined();
  });
});

const node = (type: string, ms: number, more: Partial<PlanNode> = {}): PlanNode => ({
  'Node Type': type,
  'Actual Total Time': ms,
  'Actual Loops': 1,
  ...more,
});

// WITH s AS (…), ins AS (INSERT … FROM s) SELECT … FROM ins WHERE (SELECT count(*) FROM s) >= 0
const plan = node('Aggregate', 10, {
  Plans: [
    node('Function Scan', 2, { 'Parent Relationship': 'InitPlan', 'Subplan Name': 'CTE s' }),
    node('ModifyTable', 7, {
      'Parent Relationship': 'InitPlan',
      'Subplan Name': 'CTE ins',
      'Relation Name': 'telemetry',
      Plans: [node('Sort', 3, { 'Parent Relationship': 'Outer', Plans: [node('CTE Scan', 2.5)] })],
    }),
    node('Aggregate', 1, {
      'Parent Relationship': 'InitPlan',
      'Subplan Name': 'InitPlan 3 (returns $3)',
      Plans: [node('CTE Scan', 0.5)],
    }),
    node('CTE Scan', 7.5, { 'Parent Relationship': 'Outer' }),
  ],
});

describe('the auto_explain breakdown', () => {
  it('gives each CTE its time less the CTEs it reads, and the main plan its own', () => {
    expect(planParts(plan)).toEqual([
      { name: 'CTE s: Function Scan', inclusiveMs: 2, ownMs: 2 },
      { name: 'CTE ins: ModifyTable on telemetry', inclusiveMs: 7, ownMs: 4.5 },
      { name: 'InitPlan 3 (returns $3): Aggregate', inclusiveMs: 1, ownMs: 0.5 },
      // 10 less the CTE Scan it reads (7.5) and the InitPlan it ran (1).
      { name: 'main: Aggregate', inclusiveMs: 10, ownMs: 1.5 },
    ]);
  });

  it('labels a statement by its first words, without comments', () => {
    expect(statementLabel('WITH s AS ( -- the records\n  SELECT 1\n) SELECT * FROM s', 20)).toBe('WITH s AS ( SELECT…');
  });

  it('prints one line per statement and per part', () => {
    const text = formatBreakdown([{ query: 'WITH s AS (SELECT 1) SELECT 1', durationMs: 10, plan }]);
    expect(text.split('\n')).toHaveLength(6);
    expect(text).toContain('CTE ins: ModifyTable on telemetry');
  });
});
