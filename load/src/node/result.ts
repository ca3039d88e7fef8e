/** What one scenario's run yields: its figures, its verdict, and where its records are. */
import type { ScenarioName } from '../scenarios/fleet.ts';
import type { MetricSpec } from '../scenarios/metrics.ts';
import type { MetricResult, Recorder } from './metrics.ts';

export interface ScenarioResult {
  scenario: ScenarioName;
  /** The operator the run registered; its vehicles' devices are `deviceIds`. */
  operatorId: string;
  deviceIds: string[];
  /** The measured phase (ms): registration and the final checks are not in it. */
  elapsedMs: number;
  /** HTTP requests of the measured phase. */
  requests: number;
  /** The trend the report leads with (the scenario's latency). */
  headline: string;
  /** The rate metric whose true values are the scenario's errors. */
  errorsMetric: string;
  /** Counts worth printing beside the metrics (records sent, bookings…). */
  facts: Record<string, number>;
  metrics: MetricResult[];
  passed: boolean;
}

export function resultOf<S extends readonly MetricSpec[]>(
  fields: Omit<ScenarioResult, 'metrics' | 'passed'>,
  recorder: Recorder<S>,
): ScenarioResult {
  const metrics = recorder.results();
  return { ...fields, metrics, passed: metrics.every((m) => m.thresholds.every((t) => t.ok)) };
}
