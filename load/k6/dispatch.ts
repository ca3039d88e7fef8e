/**
 * k6: the dispatch scenario (load/src/scenarios/dispatch.ts). LOAD_DESKS virtual users each loop
 * book → offer → accept (with the taxi's device token) → cancel, while every taxi reports its
 * position every 30 s so none goes offline.
 */
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import type { Options } from 'k6/options';
import {
  acceptCorrect,
  acceptedBookingCorrect,
  bookingBody,
  bookingCreatedCorrect,
  cancelBody,
  cancelCorrect,
  DISPATCH_METRICS,
  OFFER_POLL_MS,
  OFFER_WAIT_MS,
  openOfferOf,
  TAXI_REPORT_MS,
} from '../src/scenarios/dispatch.ts';
import { type FleetPlan, newRunTag, parkedSample, planFleet } from '../src/scenarios/fleet.ts';
import { ingestAnswerCorrect } from '../src/scenarios/ingest.ts';
import { k6Thresholds } from '../src/scenarios/metrics.ts';
import { asBooking, asOfferAnswer, asTelemetryAnswer, jsonOf, params, registerFleet, warmUp } from './lib/api.ts';
import { adminToken, apiUrl, ingestUrl, sizesFromEnv } from './lib/env.ts';
import { recordersOf, SUMMARY_TREND_STATS } from './lib/metrics.ts';

const sizes = sizesFromEnv();
const metrics = recordersOf(DISPATCH_METRICS);

export const options: Options = {
  setupTimeout: '300s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  thresholds: k6Thresholds(DISPATCH_METRICS),
  scenarios: {
    desks: { executor: 'constant-vus', exec: 'desk', vus: sizes.desks, duration: `${sizes.durationS}s` },
    positions: {
      executor: 'constant-arrival-rate',
      exec: 'report',
      rate: sizes.taxis,
      timeUnit: `${TAXI_REPORT_MS}ms`,
      duration: `${sizes.durationS}s`,
      preAllocatedVUs: 2,
      maxVUs: 10,
    },
  },
};

interface Setup {
  plan: FleetPlan;
  tokens: string[];
}

/** Registers the cooperative and its taxis and puts every taxi on the map, free. */
export function setup(): Setup {
  const now = Date.now();
  const plan = planFleet('dispatch', newRunTag(now, Math.random), sizes.taxis, Math.random() * 26 ** 3);
  const tokens = registerFleet(apiUrl(), adminToken(), plan, now);
  // Every taxi on the map, free, each reporting with its own token (which it accepts offers with).
  warmUp(ingestUrl(), plan, tokens, now);
  // The best-arrival index is rebuilt from the live feed at most every 250 ms.
  sleep(1);
  return { plan, tokens };
}

const booking = (id: string) =>
  http.get(`${apiUrl()}/v1/bookings/${encodeURIComponent(id)}`, params(adminToken(), 'GET /v1/bookings/:id'));
const cancel = (id: string) =>
  http.post(
    `${apiUrl()}/v1/bookings/${encodeURIComponent(id)}/cancel`,
    JSON.stringify(cancelBody),
    params(adminToken(), 'POST /v1/bookings/:id/cancel'),
  );

/** One booking's round; any step that goes wrong makes it an error (and the booking is cancelled). */
export function desk(data: Setup): void {
  const { plan, tokens } = data;
  const created = http.post(
    `${apiUrl()}/v1/bookings`,
    JSON.stringify(bookingBody(plan, exec.scenario.iterationInTest, Math.random)),
    params(adminToken(), 'POST /v1/bookings'),
  );
  metrics.dispatch_booking_duration.add(created.timings.duration);
  const b = asBooking(jsonOf(created));
  if (!check(created, { 'booking created pending': () => bookingCreatedCorrect(plan, created.status, b) }) || !b) {
    metrics.dispatch_errors.add(true);
    return;
  }
  const createdAt = Date.now();
  let offer: { id: string; vehicleId: string } | undefined;
  while (!offer && Date.now() - createdAt < OFFER_WAIT_MS) {
    sleep(OFFER_POLL_MS / 1000);
    const read = asBooking(jsonOf(booking(b.id)));
    offer = read && openOfferOf(plan, read);
  }
  if (!check(offer, { 'offered to a taxi of the cooperative': (o) => o !== undefined }) || !offer) {
    metrics.dispatch_errors.add(true);
    cancel(b.id);
    return;
  }
  metrics.dispatch_time_to_offer.add(Date.now() - createdAt);
  const taxi = plan.vehicles.findIndex((v) => v.vehicleId === offer.vehicleId);
  const accepted = http.post(
    `${apiUrl()}/v1/offers/${encodeURIComponent(offer.id)}/accept`,
    '{}',
    params(tokens[taxi] ?? '', 'POST /v1/offers/:id/accept'),
  );
  metrics.dispatch_accept_duration.add(accepted.timings.duration);
  const acceptOk = acceptCorrect(accepted.status, asOfferAnswer(jsonOf(accepted)));
  const after = asBooking(jsonOf(booking(b.id)));
  const bookingOk = acceptedBookingCorrect(after, offer.vehicleId);
  const cancelled = cancel(b.id);
  const cancelOk = cancelCorrect(cancelled.status, asBooking(jsonOf(cancelled)));
  const ok = check(null, {
    'accepted by the taxi': () => acceptOk,
    'booking accepted by that taxi': () => bookingOk,
    'booking cancelled': () => cancelOk,
  });
  metrics.dispatch_errors.add(!ok);
  if (acceptOk && bookingOk) metrics.dispatch_bookings_accepted.add(1);
}

/** One taxi's position report, with its own token. */
export function report(data: Setup): void {
  const index = exec.scenario.iterationInTest % data.plan.vehicles.length;
  const res = http.post(
    `${ingestUrl()}/v1/telemetry`,
    JSON.stringify(parkedSample(data.plan, index, Date.now())),
    params(data.tokens[index] ?? '', 'POST /v1/telemetry'),
  );
  check(res, { 'taxi position accepted': () => ingestAnswerCorrect(res.status, asTelemetryAnswer(jsonOf(res)), 1) });
}
