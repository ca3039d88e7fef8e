/** The run's figures as text: per scenario requests/s, latency percentiles, errors and each threshold's verdict. */
import type { MetricResult, TrendStats } from './metrics.ts';
import type { ScenarioResult } from './result.ts';

const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : '–');
const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(3));

function isTrend(value: MetricResult['value']): value is TrendStats {
  return 'p95' in value;
}

export function formatResult(r: ScenarioResult): string {
  const seconds = r.elapsedMs / 1000;
  const headline = r.metrics.find((m) => m.name === r.headline)?.value;
  const errors = r.metrics.find((m) => m.name === r.errorsMetric)?.value;
  const errorCount = errors && 'trues' in errors ? errors.trues : 0;
  const lines = [
    `${r.scenario.padEnd(9)} ${r.passed ? 'PASS' : 'FAIL'}  ${r.requests} requests in ${seconds.toFixed(1)} s = ${(r.requests / seconds).toFixed(1)} requests/s; ` +
      (headline && isTrend(headline)
        ? `${r.headline} p50 ${ms(headline.p50)}, p95 ${ms(headline.p95)}, p99 ${ms(headline.p99)}; `
        : '') +
      `${errorCount} errors`,
    `          ${Object.entries(r.facts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ];
  lines.push(...formatMetrics(r.metrics));
  return lines.join('\n');
}

/** One line per metric: its figures and each threshold's verdict. */
export function formatMetrics(metrics: readonly MetricResult[]): string[] {
  return metrics.map((m) => {
    const figures = isTrend(m.value)
      ? `count ${m.value.count}, p50 ${ms(m.value.p50)}, p95 ${ms(m.value.p95)}, p99 ${ms(m.value.p99)}, max ${ms(m.value.max)}`
      : 'rate' in m.value
        ? `rate ${num(m.value.rate)} (${m.value.trues} of ${m.value.total})`
        : `count ${m.value.count}`;
    const verdicts = m.thresholds.map((t) => `${t.ok ? '✓' : '✗'} ${t.expression}`).join('  ');
    return `  ${m.name.padEnd(28)} ${figures}  ${verdicts}`;
  });
}
