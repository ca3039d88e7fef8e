/**
 * k6 custom metrics made from a scenario's shared specs (load/src/scenarios/metrics.ts), so the
 * names the thresholds judge are the ones the script records. Init context only (module scope).
 */
import { Counter, Rate, Trend } from 'k6/metrics';
import type { MetricSpec } from '../../src/scenarios/metrics.ts';

type RecorderOf<K extends MetricSpec['kind']> = K extends 'trend' ? Trend : K extends 'rate' ? Rate : Counter;
export type Recorders<S extends readonly MetricSpec[]> = { [M in S[number] as M['name']]: RecorderOf<M['kind']> };

export function recordersOf<const S extends readonly MetricSpec[]>(specs: S): Recorders<S> {
  const out: Record<string, Trend | Rate | Counter> = {};
  for (const spec of specs) {
    // Trends are times: `true` makes k6 print them as durations.
    out[spec.name] =
      spec.kind === 'trend'
        ? new Trend(spec.name, true)
        : spec.kind === 'rate'
          ? new Rate(spec.name)
          : new Counter(spec.name);
  }
  return out as Recorders<S>;
}

/** What the end-of-test summary shows of each trend: the figures the Node runner prints. */
export const SUMMARY_TREND_STATS = ['avg', 'p(50)', 'p(95)', 'p(99)', 'max', 'count'];
