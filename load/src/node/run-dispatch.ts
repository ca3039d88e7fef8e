/** The dispatch scenario (load/src/scenarios/dispatch.ts) driven from Node. */
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
} from '../scenarios/dispatch.ts';
import { type FleetPlan, newRunTag, parkedSample, planFleet } from '../scenarios/fleet.ts';
import type { Sizes } from '../scenarios/sizes.ts';
import { bookingAnswerSchema, offerAnswerSchema, telemetryAnswerSchema } from './answers.ts';
import { call, type Target } from './http.ts';
import { Recorder } from './metrics.ts';
import { pace } from './pace.ts';
import { registerFleet, warmUp } from './register.ts';
import { resultOf, type ScenarioResult } from './result.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One desk's round; returns the HTTP requests it made. Any step that goes wrong makes it an error. */
async function round(
  target: Target,
  plan: FleetPlan,
  tokens: readonly string[],
  recorder: Recorder<typeof DISPATCH_METRICS>,
  seq: number,
): Promise<number> {
  const { apiUrl, adminToken } = target;
  const bookingUrl = (id: string) => `${apiUrl}/v1/bookings/${encodeURIComponent(id)}`;
  const cancel = (id: string) => call(bookingAnswerSchema, 'POST', `${bookingUrl(id)}/cancel`, adminToken, cancelBody);
  let requests = 1;
  const created = await call(
    bookingAnswerSchema,
    'POST',
    `${apiUrl}/v1/bookings`,
    adminToken,
    bookingBody(plan, seq, Math.random),
  );
  recorder.add('dispatch_booking_duration', created.ms);
  const booking = created.body;
  if (!bookingCreatedCorrect(plan, created.status, booking)) {
    recorder.add('dispatch_errors', true);
    return requests;
  }
  const createdAt = performance.now();
  let offer: { id: string; vehicleId: string } | undefined;
  while (!offer && performance.now() - createdAt < OFFER_WAIT_MS) {
    await sleep(OFFER_POLL_MS);
    const read = await call(bookingAnswerSchema, 'GET', bookingUrl(booking.id), adminToken);
    requests++;
    offer = read.body && openOfferOf(plan, read.body);
  }
  if (!offer) {
    recorder.add('dispatch_errors', true);
    await cancel(booking.id);
    return requests + 1;
  }
  recorder.add('dispatch_time_to_offer', performance.now() - createdAt);
  const taxi = plan.vehicles.findIndex((v) => v.vehicleId === offer.vehicleId);
  // The taxi answers with its own device's token, as the driver page does.
  const accepted = await call(
    offerAnswerSchema,
    'POST',
    `${apiUrl}/v1/offers/${encodeURIComponent(offer.id)}/accept`,
    tokens[taxi] ?? '',
    {},
  );
  recorder.add('dispatch_accept_duration', accepted.ms);
  const acceptOk = acceptCorrect(accepted.status, accepted.body);
  const after = await call(bookingAnswerSchema, 'GET', bookingUrl(booking.id), adminToken);
  const bookingOk = acceptedBookingCorrect(after.body, offer.vehicleId);
  // Cancelled, the taxi is free for the next round: the fleet never runs out.
  const cancelled = await cancel(booking.id);
  const ok = acceptOk && bookingOk && cancelCorrect(cancelled.status, cancelled.body);
  recorder.add('dispatch_errors', !ok);
  if (acceptOk && bookingOk) recorder.add('dispatch_bookings_accepted', 1);
  return requests + 3;
}

export async function runDispatch(target: Target, sizes: Sizes): Promise<ScenarioResult> {
  const now = Date.now();
  const plan = planFleet('dispatch', newRunTag(now, Math.random), sizes.taxis, Math.random() * 26 ** 3);
  const tokens = await registerFleet(target, plan, now);
  // Every taxi on the map, free, each reporting with its own token (which it accepts offers with).
  await warmUp(target, plan, tokens, Date.now());
  // The best-arrival index is rebuilt from the live feed at most every 250 ms.
  await sleep(1000);

  const recorder = new Recorder(DISPATCH_METRICS);
  let requests = 0;
  let reports = 0;
  const durationMs = sizes.durationS * 1000;
  const [desks] = await Promise.all([
    pace({
      concurrency: sizes.desks,
      ratePerS: 0,
      durationMs,
      async task(seq) {
        // Not `requests += await …`: that reads `requests` before the await and loses the other desks' rounds.
        const made = await round(target, plan, tokens, recorder, seq);
        requests += made;
      },
    }),
    // Each taxi reports every 30 s, so none goes offline however long the run.
    pace({
      concurrency: 2,
      ratePerS: (plan.vehicles.length * 1000) / TAXI_REPORT_MS,
      durationMs,
      async task(seq) {
        const index = seq % plan.vehicles.length;
        await call(
          telemetryAnswerSchema,
          'POST',
          `${target.ingestUrl}/v1/telemetry`,
          tokens[index] ?? '',
          parkedSample(plan, index, Date.now()),
        );
        reports++;
      },
    }),
  ]);
  return resultOf(
    {
      scenario: 'dispatch',
      operatorId: plan.operatorId,
      deviceIds: plan.vehicles.map((v) => v.deviceId),
      elapsedMs: desks.elapsedMs,
      requests: requests + reports,
      headline: 'dispatch_booking_duration',
      errorsMetric: 'dispatch_errors',
      facts: {
        taxis: plan.vehicles.length,
        warmUpSamples: plan.vehicles.length,
        desks: sizes.desks,
        bookings: desks.started,
        positionReports: reports,
      },
    },
    recorder,
  );
}
