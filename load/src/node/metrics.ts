/**
 * The Node runner's metrics: the shared specs recorded by name and their k6 threshold
 * expressions evaluated the way k6 does (percentiles interpolated between the closest ranks of
 * every value, a rate as the share of true values, a counter as its sum), so `npm run load` and k6 pass or fail on the
 * same terms.
 */
import type { MetricSpec } from '../scenarios/metrics.ts';

export interface TrendStats {
  count: number;
  avg: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface MetricResult {
  name: string;
  kind: MetricSpec['kind'];
  /** Trend figures, the rate's share of true values, or the counter's sum. */
  value: TrendStats | { rate: number; trues: number; total: number } | { count: number };
  thresholds: { expression: string; observed: number; ok: boolean }[];
}

/** k6's percentile of sorted values (linear interpolation between closest ranks). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (rank - lo);
}

const THRESHOLD =
  /^\s*(p\((\d+(?:\.\d+)?)\)|avg|min|max|med|rate|count)\s*(<=|>=|<|>|==|!=|===)\s*(-?\d+(?:\.\d+)?)\s*$/;

function compare(observed: number, op: string, limit: number): boolean {
  switch (op) {
    case '<':
      return observed < limit;
    case '<=':
      return observed <= limit;
    case '>':
      return observed > limit;
    case '>=':
      return observed >= limit;
    case '!=':
      return observed !== limit;
    default:
      return observed === limit;
  }
}

/** Values recorded for a scenario's metrics, by name. */
export class Recorder<S extends readonly MetricSpec[]> {
  private readonly values = new Map<string, number[]>();

  constructor(private readonly specs: S) {
    for (const spec of specs) this.values.set(spec.name, []);
  }

  /** A trend's value (ms), a rate's outcome (an `*_errors` rate records true for an error), a counter's increment. */
  add(name: S[number]['name'], value: number | boolean): void {
    const list = this.values.get(name);
    if (!list) throw new Error(`no metric ${name}`);
    list.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
  }

  trend(name: S[number]['name']): TrendStats {
    const sorted = [...(this.values.get(name) ?? [])].sort((a, b) => a - b);
    return {
      count: sorted.length,
      avg: sorted.length === 0 ? Number.NaN : sorted.reduce((s, v) => s + v, 0) / sorted.length,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? Number.NaN,
    };
  }

  results(): MetricResult[] {
    return this.specs.map((spec) => {
      const values = this.values.get(spec.name) ?? [];
      const sorted = [...values].sort((a, b) => a - b);
      const sum = values.reduce((s, v) => s + v, 0);
      const observe = (stat: string, p: string | undefined): number => {
        // k6's sinks read 0 with no values (a latency threshold of an empty trend passes there):
        // the scenarios' `count>0` thresholds are what fail a run that measured nothing.
        if (values.length === 0) return 0;
        if (stat === 'rate') return sum / values.length;
        if (stat === 'count') return spec.kind === 'counter' ? sum : values.length;
        if (p !== undefined) return percentile(sorted, Number(p));
        if (stat === 'avg') return sum / values.length;
        if (stat === 'min') return sorted[0] ?? Number.NaN;
        if (stat === 'max') return sorted[sorted.length - 1] ?? Number.NaN;
        return percentile(sorted, 50);
      };
      const thresholds = spec.thresholds.map((expression) => {
        const m = THRESHOLD.exec(expression);
        if (!m) throw new Error(`threshold ${expression} of ${spec.name} is not one the Node runner knows`);
        const [, stat = '', p, op = '', limit = ''] = m;
        const observed = observe(stat.startsWith('p(') ? 'p' : stat, p);
        return { expression, observed, ok: compare(observed, op, Number(limit)) };
      });
      const value: MetricResult['value'] =
        spec.kind === 'trend'
          ? this.trend(spec.name)
          : spec.kind === 'rate'
            ? { rate: values.length === 0 ? 0 : sum / values.length, trues: sum, total: values.length }
            : { count: sum };
      return { name: spec.name, kind: spec.kind, value, thresholds };
    });
  }
}
