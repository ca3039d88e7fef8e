/**
 * k6: the live scenario (load/src/scenarios/live.ts). LOAD_SUBSCRIBERS virtual users each hold a
 * Socket.IO connection to `/live` (Engine.IO over `k6/websockets`, ./lib/socket-io.ts) for the
 * whole run, while the senders post one sample per vehicle every LOAD_LIVE_INTERVAL_MS.
 */
import { check } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import type { Options } from 'k6/options';
import { clearTimeout, setTimeout } from 'k6/timers';
import { WebSocket } from 'k6/websockets';
import { type FleetPlan, newRunTag, planFleet } from '../src/scenarios/fleet.ts';
import { ingestAnswerCorrect } from '../src/scenarios/ingest.ts';
import {
  FLEET_EVENT,
  LIVE_CONNECT_TIMEOUT_MS,
  LIVE_DRAIN_MS,
  LIVE_METRICS,
  LIVE_NAMESPACE,
  LIVE_SENDERS_DELAY_MS,
  liveSample,
  readFleetEvent,
} from '../src/scenarios/live.ts';
import { k6Thresholds } from '../src/scenarios/metrics.ts';
import { asFleetUpdates, asTelemetryAnswer, jsonOf, params, registerFleet, warmUp } from './lib/api.ts';
import { adminToken, apiUrl, ingestUrl, sizesFromEnv } from './lib/env.ts';
import { recordersOf, SUMMARY_TREND_STATS } from './lib/metrics.ts';
import { connectFrame, PONG_FRAME, parseFrame, socketIoUrl } from './lib/socket-io.ts';

const sizes = sizesFromEnv();
const metrics = recordersOf(LIVE_METRICS);
/** How long a subscriber stays: until the senders' last sample has had time to arrive. */
const subscribeMs = LIVE_SENDERS_DELAY_MS + sizes.durationS * 1000 + LIVE_DRAIN_MS;

export const options: Options = {
  setupTimeout: '300s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  thresholds: k6Thresholds(LIVE_METRICS),
  scenarios: {
    subscribers: {
      executor: 'per-vu-iterations',
      exec: 'subscribe',
      vus: sizes.subscribers,
      iterations: 1,
      maxDuration: `${Math.ceil((subscribeMs + LIVE_CONNECT_TIMEOUT_MS) / 1000) + 10}s`,
    },
    // Every vehicle once per interval: `rate` vehicles per `timeUnit` of one interval.
    senders: {
      executor: 'constant-arrival-rate',
      exec: 'send',
      startTime: `${LIVE_SENDERS_DELAY_MS}ms`,
      rate: sizes.vehicles,
      timeUnit: `${sizes.liveIntervalMs}ms`,
      duration: `${sizes.durationS}s`,
      preAllocatedVUs: sizes.concurrency,
      maxVUs: sizes.concurrency * 4,
    },
  },
};

interface Setup {
  plan: FleetPlan;
  tokens: string[];
}

export function setup(): Setup {
  const now = Date.now();
  const plan = planFleet('live', newRunTag(now, Math.random), sizes.vehicles, Math.random() * 26 ** 3);
  const tokens = registerFleet(apiUrl(), adminToken(), plan, now);
  warmUp(ingestUrl(), plan, tokens, Date.now());
  return { plan, tokens };
}

/** One dashboard: connects, counts every update of the run's vehicles and its delay, leaves after the run. */
export function subscribe(data: Setup): void {
  const vehicleIds = new Set(data.plan.vehicles.map((v) => v.vehicleId));
  const seen = new Set<string>();
  let admitted = false;
  /** Samples stamped before admission do not count (see readFleetEvent). */
  let admittedMs = Number.POSITIVE_INFINITY;
  let failed = false;
  const ws = new WebSocket(socketIoUrl(apiUrl()));
  const refuse = () => {
    if (failed) return;
    failed = true;
    metrics.live_connect_errors.add(1);
    ws.close();
  };
  const connectTimer = setTimeout(() => {
    if (!admitted) refuse();
  }, LIVE_CONNECT_TIMEOUT_MS);
  const leaveTimer = setTimeout(() => ws.close(), subscribeMs);

  ws.onmessage = (event) => {
    if (!event || typeof event.data !== 'string') return;
    const frame = parseFrame(event.data);
    if (frame.kind === 'open') ws.send(connectFrame(LIVE_NAMESPACE, { token: adminToken() }));
    else if (frame.kind === 'ping') ws.send(PONG_FRAME);
    else if (frame.kind === 'connected' && frame.nsp === LIVE_NAMESPACE) {
      admitted = true;
      admittedMs = Date.now();
      clearTimeout(connectTimer);
    } else if (frame.kind === 'refused') refuse();
    else if (frame.kind === 'event' && frame.name === FLEET_EVENT) {
      const { delaysMs, vehicles } = readFleetEvent(
        vehicleIds,
        asFleetUpdates(frame.args[0]) ?? [],
        Date.now(),
        admittedMs,
      );
      for (const d of delaysMs) metrics.live_delivery.add(d);
      for (const v of vehicles) seen.add(v);
      if (vehicles.length > 0) metrics.live_updates.add(vehicles.length);
    }
  };
  ws.onerror = () => {
    if (!admitted) refuse();
  };
  ws.onclose = () => {
    clearTimeout(connectTimer);
    clearTimeout(leaveTimer);
    if (!admitted) {
      refuse();
      return;
    }
    const unseen = vehicleIds.size - seen.size;
    check(unseen, { 'every vehicle seen on /live': (u) => u === 0 });
    metrics.live_vehicles_unseen.add(unseen);
  };
}

/** One vehicle's sample, stamped with the time it is sent. */
export function send(data: Setup): void {
  const { record, vehicleIndex } = liveSample(data.plan, exec.scenario.iterationInTest, Date.now());
  const token = data.tokens[vehicleIndex];
  if (!token) throw new Error(`no token for vehicle ${vehicleIndex}`);
  const res = http.post(`${ingestUrl()}/v1/telemetry`, JSON.stringify(record), params(token, 'POST /v1/telemetry'));
  const correct = ingestAnswerCorrect(res.status, asTelemetryAnswer(jsonOf(res)), 1);
  check(res, { 'sample accepted': () => correct });
  metrics.live_send_duration.add(res.timings.duration);
  metrics.live_send_errors.add(!correct);
}
