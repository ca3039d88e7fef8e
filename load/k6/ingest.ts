/**
 * k6: the ingest scenario (load/src/scenarios/ingest.ts). `k6 run load/k6/ingest.ts` with
 * ADMIN_TOKEN, LOAD_API_URL and LOAD_INGEST_URL, or `docker compose --profile load run k6`
 * (load/README.md). Exit code 99 when a threshold fails.
 */
import { check } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import type { Options } from 'k6/options';
import { type FleetPlan, newRunTag, planFleet } from '../src/scenarios/fleet.ts';
import {
  INGEST_METRICS,
  ingestAnswerCorrect,
  ingestRequest,
  ingestWarmUpMs,
  type TelemetryAnswer,
  vehiclesNotLive,
} from '../src/scenarios/ingest.ts';
import { k6Thresholds } from '../src/scenarios/metrics.ts';
import { asTelemetryAnswer, jsonOf, listVehicles, params, registerFleet, warmUp } from './lib/api.ts';
import { adminToken, apiUrl, ingestUrl, sizesFromEnv } from './lib/env.ts';
import { recordersOf, SUMMARY_TREND_STATS } from './lib/metrics.ts';

const sizes = sizesFromEnv();
const metrics = recordersOf(INGEST_METRICS);

export const options: Options = {
  setupTimeout: '300s',
  teardownTimeout: '120s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  thresholds: k6Thresholds(INGEST_METRICS),
  scenarios: {
    // At LOAD_RATE requests a second with at most LOAD_CONCURRENCY in flight, or, with LOAD_RATE=0,
    // LOAD_CONCURRENCY clients each sending as soon as the previous answer came.
    ingest:
      sizes.ratePerS > 0
        ? {
            executor: 'constant-arrival-rate',
            exec: 'ingest',
            rate: sizes.ratePerS,
            timeUnit: '1s',
            duration: `${sizes.durationS}s`,
            preAllocatedVUs: sizes.concurrency,
            maxVUs: sizes.concurrency,
          }
        : { executor: 'constant-vus', exec: 'ingest', vus: sizes.concurrency, duration: `${sizes.durationS}s` },
  },
};

interface Setup {
  plan: FleetPlan;
  tokens: string[];
  startMs: number;
}

export function setup(): Setup {
  const startMs = Date.now();
  const plan = planFleet('ingest', newRunTag(startMs, Math.random), sizes.vehicles, Math.random() * 26 ** 3);
  const tokens = registerFleet(apiUrl(), adminToken(), plan, startMs);
  warmUp(ingestUrl(), plan, tokens, ingestWarmUpMs(startMs));
  return { plan, tokens, startMs };
}

export function ingest(data: Setup): void {
  const request = ingestRequest(data.plan, exec.scenario.iterationInTest, sizes.recordsPerRequest, data.startMs);
  const token = request.vehicleIndex === null ? adminToken() : data.tokens[request.vehicleIndex];
  if (!token) throw new Error(`no token for vehicle ${request.vehicleIndex}`);
  const res = http.post(
    `${ingestUrl()}/v1/telemetry`,
    JSON.stringify(request.vehicleIndex === null ? request.records : request.records[0]),
    params(token, 'POST /v1/telemetry'),
  );
  const answer: TelemetryAnswer | undefined = asTelemetryAnswer(jsonOf(res));
  const correct = ingestAnswerCorrect(res.status, answer, request.records.length);
  check(res, { 'every record accepted': () => correct });
  metrics.ingest_request_duration.add(res.timings.duration);
  metrics.ingest_errors.add(!correct);
  if (answer) metrics.ingest_records.add(answer.accepted);
}

/**
 * Every vehicle must show this run's samples as its live state. k6 does not tell the teardown how
 * many requests went out: a run shorter than one sample per vehicle counts the rest as missing.
 */
export function teardown(data: Setup): void {
  const listed = listVehicles(apiUrl(), adminToken(), data.plan);
  const missing = vehiclesNotLive(data.plan, listed, data.startMs, data.plan.vehicles.length);
  check(missing, { 'every vehicle has a live state from this run': (m) => m === 0 });
  metrics.ingest_vehicles_not_live.add(missing);
}
