/**
 * The metrics a scenario records, named and judged the same way by both runners: k6 creates a
 * custom metric per spec and passes `thresholds` to its options as they are; the Node runner
 * records the same names and evaluates the same expressions (load/src/node/metrics.ts), so a
 * run passes or fails for the same reasons whichever runner drove it.
 *
 * Plain TypeScript with no imports: k6 and Node both load this file.
 */

/** k6's metric types: a trend of values (latencies, in ms), a rate of true/false, a counter. */
export type MetricKind = 'trend' | 'rate' | 'counter';

export interface MetricSpec {
  name: string;
  kind: MetricKind;
  /** What one value is, for the reports and load/README.md. */
  description: string;
  /**
   * k6 threshold expressions (`p(95)<250`, `rate<0.01`, `count==0`, `count>0`). A trend's values
   * are milliseconds.
   */
  thresholds: readonly string[];
}

/** The `thresholds` option of a k6 script: every spec with at least one expression. */
export function k6Thresholds(specs: readonly MetricSpec[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const spec of specs) if (spec.thresholds.length > 0) out[spec.name] = [...spec.thresholds];
  return out;
}
