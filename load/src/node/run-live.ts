/** The live scenario (load/src/scenarios/live.ts) driven from Node, the subscribers with socket.io-client. */
import { io, type Socket } from 'socket.io-client';
import { newRunTag, planFleet } from '../scenarios/fleet.ts';
import { ingestAnswerCorrect } from '../scenarios/ingest.ts';
import {
  FLEET_EVENT,
  LIVE_CONNECT_TIMEOUT_MS,
  LIVE_DRAIN_MS,
  LIVE_METRICS,
  LIVE_NAMESPACE,
  liveRatePerS,
  liveSample,
  readFleetEvent,
} from '../scenarios/live.ts';
import type { Sizes } from '../scenarios/sizes.ts';
import { fleetEventSchema, telemetryAnswerSchema } from './answers.ts';
import { call, type Target } from './http.ts';
import { Recorder } from './metrics.ts';
import { pace } from './pace.ts';
import { registerFleet, warmUp } from './register.ts';
import { resultOf, type ScenarioResult } from './result.ts';

type LiveRecorder = Recorder<typeof LIVE_METRICS>;

interface Subscriber {
  socket: Socket;
  admitted: boolean;
  /** When it was admitted: earlier samples do not count (see readFleetEvent). */
  admittedMs: number;
  seen: Set<string>;
  /** `fleet` events that did not match the contract's FleetUpdate. */
  malformed: number;
}

/** One dashboard on `/live`, resolved once admitted or refused (a refusal is counted, not thrown). */
function subscribe(target: Target, vehicleIds: ReadonlySet<string>, recorder: LiveRecorder): Promise<Subscriber> {
  const socket = io(`${target.apiUrl}${LIVE_NAMESPACE}`, {
    auth: { token: target.adminToken },
    transports: ['websocket'],
    reconnection: false,
    timeout: LIVE_CONNECT_TIMEOUT_MS,
  });
  const sub: Subscriber = {
    socket,
    admitted: false,
    admittedMs: Number.POSITIVE_INFINITY,
    seen: new Set(),
    malformed: 0,
  };
  socket.on(FLEET_EVENT, (payload: unknown) => {
    const receivedMs = Date.now();
    const updates = fleetEventSchema.safeParse(payload);
    if (!updates.success) {
      sub.malformed++;
      return;
    }
    const { delaysMs, vehicles } = readFleetEvent(vehicleIds, updates.data, receivedMs, sub.admittedMs);
    for (const d of delaysMs) recorder.add('live_delivery', d);
    for (const v of vehicles) sub.seen.add(v);
    if (vehicles.length > 0) recorder.add('live_updates', vehicles.length);
  });
  return new Promise((resolve) => {
    socket.once('connect', () => {
      sub.admitted = true;
      sub.admittedMs = Date.now();
      resolve(sub);
    });
    socket.once('connect_error', () => {
      recorder.add('live_connect_errors', 1);
      socket.close();
      resolve(sub);
    });
  });
}

export async function runLive(target: Target, sizes: Sizes): Promise<ScenarioResult> {
  const now = Date.now();
  const plan = planFleet('live', newRunTag(now, Math.random), sizes.vehicles, Math.random() * 26 ** 3);
  const tokens = await registerFleet(target, plan, now);
  await warmUp(target, plan, tokens, Date.now());
  const recorder = new Recorder(LIVE_METRICS);
  const vehicleIds = new Set(plan.vehicles.map((v) => v.vehicleId));
  // Every subscriber is admitted (or refused) before the first sample: k6 gives them a head start instead.
  const subscribers = await Promise.all(
    Array.from({ length: sizes.subscribers }, () => subscribe(target, vehicleIds, recorder)),
  );
  try {
    const run = await pace({
      concurrency: sizes.concurrency,
      ratePerS: liveRatePerS(plan.vehicles.length, sizes.liveIntervalMs),
      durationMs: sizes.durationS * 1000,
      async task(seq) {
        const { record, vehicleIndex } = liveSample(plan, seq, Date.now());
        const token = tokens[vehicleIndex];
        if (!token) throw new Error(`no token for vehicle ${vehicleIndex}`);
        const answer = await call(telemetryAnswerSchema, 'POST', `${target.ingestUrl}/v1/telemetry`, token, record);
        recorder.add('live_send_duration', answer.ms);
        recorder.add('live_send_errors', !ingestAnswerCorrect(answer.status, answer.body, 1));
      },
    });
    await new Promise((resolve) => setTimeout(resolve, LIVE_DRAIN_MS));
    for (const sub of subscribers) {
      if (sub.admitted) recorder.add('live_vehicles_unseen', vehicleIds.size - sub.seen.size);
    }
    return resultOf(
      {
        scenario: 'live',
        operatorId: plan.operatorId,
        deviceIds: plan.vehicles.map((v) => v.deviceId),
        elapsedMs: run.elapsedMs,
        requests: run.started,
        headline: 'live_delivery',
        errorsMetric: 'live_send_errors',
        facts: {
          vehicles: plan.vehicles.length,
          warmUpSamples: plan.vehicles.length,
          subscribers: subscribers.filter((s) => s.admitted).length,
          samplesSent: run.started,
          malformedFleetEvents: subscribers.reduce((n, s) => n + s.malformed, 0),
          lateStarts: run.late,
        },
      },
      recorder,
    );
  } finally {
    for (const sub of subscribers) sub.socket.close();
  }
}
