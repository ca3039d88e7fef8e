/**
 * The soak's metrics and what each must show (issue 12, item 7): a sample on every dashboard
 * within a second at p99, nothing accepted lost, every vehicle and every violation seen, and
 * memory flat. Thresholds are k6 expressions, evaluated by the load runner's Recorder; memory is
 * judged beside them (its figures are not milliseconds).
 */
import type { MetricSpec } from '../scenarios/metrics.ts';

export const SOAK_METRICS = [
  {
    name: 'soak_live_delivery',
    kind: 'trend',
    description: 'a sample sent to its fleet update received on /live (ms), per dashboard',
    thresholds: ['p(99)<1000'],
  },
  {
    name: 'soak_violation_delivery',
    kind: 'trend',
    description: 'a ride’s completing sample sent to its DF_OVER_CAPACITY received on /live (ms), per dashboard',
    thresholds: ['count>0'],
  },
  {
    name: 'soak_send_duration',
    kind: 'trend',
    description: 'one POST /v1/telemetry of a vehicle with its own token, sent to answered (ms)',
    thresholds: ['p(95)<250'],
  },
  {
    name: 'soak_send_errors',
    kind: 'rate',
    description: 'a sample not answered 200 with its record accepted',
    thresholds: ['rate<0.01'],
  },
  {
    name: 'soak_records_lost',
    kind: 'counter',
    description: 'records answered as accepted that the database does not hold at the end',
    thresholds: ['count==0'],
  },
  {
    name: 'soak_vehicles_unseen',
    kind: 'counter',
    description: 'vehicles of the run a dashboard never received an update of, summed over dashboards',
    thresholds: ['count==0'],
  },
  {
    name: 'soak_violations_unseen',
    kind: 'counter',
    description: 'stored DF_OVER_CAPACITY events of the violators a dashboard was not pushed, summed over dashboards',
    thresholds: ['count==0'],
  },
] as const satisfies readonly MetricSpec[];

/**
 * Memory is flat when no process's median resident memory over the second half of the run (after
 * its first minute: caches filled, every vehicle seen) is this much above the first half's (%).
 */
export const MEMORY_GROWTH_LIMIT_PCT = 25;
