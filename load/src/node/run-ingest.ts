/** The ingest scenario (load/src/scenarios/ingest.ts) driven from Node. */
import { newRunTag, planFleet } from '../scenarios/fleet.ts';
import {
  INGEST_METRICS,
  ingestAnswerCorrect,
  ingestRequest,
  ingestWarmUpMs,
  vehiclesNotLive,
} from '../scenarios/ingest.ts';
import type { Sizes } from '../scenarios/sizes.ts';
import { telemetryAnswerSchema } from './answers.ts';
import { call, type Target } from './http.ts';
import { Recorder } from './metrics.ts';
import { pace } from './pace.ts';
import { listVehicles, registerFleet, warmUp } from './register.ts';
import { resultOf, type ScenarioResult } from './result.ts';

export async function runIngest(target: Target, sizes: Sizes): Promise<ScenarioResult> {
  const startMs = Date.now();
  const plan = planFleet('ingest', newRunTag(startMs, Math.random), sizes.vehicles, Math.random() * 26 ** 3);
  const tokens = await registerFleet(target, plan, startMs);
  await warmUp(target, plan, tokens, ingestWarmUpMs(startMs));
  const recorder = new Recorder(INGEST_METRICS);
  let recordsSent = 0;
  let recordsAccepted = 0;

  const run = await pace({
    concurrency: sizes.concurrency,
    ratePerS: sizes.ratePerS,
    durationMs: sizes.durationS * 1000,
    async task(seq) {
      const request = ingestRequest(plan, seq, sizes.recordsPerRequest, startMs);
      const token = request.vehicleIndex === null ? target.adminToken : tokens[request.vehicleIndex];
      if (!token) throw new Error(`no token for vehicle ${request.vehicleIndex}`);
      recordsSent += request.records.length;
      // One record goes as an object, as a tracker sends it; a gateway's batch as an array.
      const body = request.vehicleIndex === null ? request.records : request.records[0];
      const answer = await call(telemetryAnswerSchema, 'POST', `${target.ingestUrl}/v1/telemetry`, token, body);
      recorder.add('ingest_request_duration', answer.ms);
      recorder.add('ingest_errors', !ingestAnswerCorrect(answer.status, answer.body, request.records.length));
      if (answer.body) {
        recorder.add('ingest_records', answer.body.accepted);
        recordsAccepted += answer.body.accepted;
      }
    },
  });

  const listed = await listVehicles(target, plan);
  recorder.add('ingest_vehicles_not_live', vehiclesNotLive(plan, listed, startMs, recordsSent));
  return resultOf(
    {
      scenario: 'ingest',
      operatorId: plan.operatorId,
      deviceIds: plan.vehicles.map((v) => v.deviceId),
      elapsedMs: run.elapsedMs,
      requests: run.started,
      headline: 'ingest_request_duration',
      errorsMetric: 'ingest_errors',
      facts: {
        vehicles: plan.vehicles.length,
        warmUpSamples: plan.vehicles.length,
        recordsSent,
        recordsAccepted,
        lateStarts: run.late,
      },
    },
    recorder,
  );
}
