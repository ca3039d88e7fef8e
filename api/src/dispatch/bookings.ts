import type { Bus, Config, PeriodicWorker } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { RulePipeline } from '@vigia/ingest';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { BookingProgress } from './booking-progress.js';
import { registerBookingRoutes } from './booking-routes.js';
import { type BookingRanker, BookingService } from './booking-service.js';
import { BookingStore } from './booking-store.js';
import { createOfferWorker } from './offer-worker.js';

/** The booking capability of one API process: routes, the offer worker, progress from telemetry. */
export interface Bookings {
  service: BookingService;
  worker: PeriodicWorker;
  progress: BookingProgress;
  /** Starts following telemetry and the offer worker (once the process listens). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function registerBookings(
  app: FastifyInstance,
  deps: {
    db: Database;
    bus: Bus;
    log: Logger;
    config: Config;
    ranker: BookingRanker;
    rules: Pick<RulePipeline, 'onDispatches'>;
  },
): Promise<Bookings> {
  const { config } = deps;
  const log = deps.log.child({ component: 'dispatch' });
  const store = new BookingStore(deps.db);
  let worker: PeriodicWorker | undefined;
  const service = new BookingService({
    store,
    bus: deps.bus,
    log,
    ranker: deps.ranker,
    rules: deps.rules,
    offerTimeoutS: config.DISPATCH_OFFER_TIMEOUT_S,
    bookingTimeoutS: config.DISPATCH_BOOKING_TIMEOUT_S,
    offlineAfterS: config.OFFLINE_AFTER_S,
    retryMs: config.DISPATCH_POLL_INTERVAL_MS,
    wake: () => {
      worker?.runOnce().catch((err: unknown) => log.warn({ err, code: 'OFFER_WORKER_FAILED' }, 'offer round failed'));
    },
  });
  worker = createOfferWorker(service, { intervalMs: config.DISPATCH_POLL_INTERVAL_MS, log });
  const progress = new BookingProgress({
    store,
    bus: deps.bus,
    log,
    arrivalRadiusM: config.DISPATCH_ARRIVAL_RADIUS_M,
    publish: (b) => service.publish(b),
    withdraw: (offerId) => service.withdrawOffer(offerId),
  });
  await registerBookingRoutes(app, service);
  const running = worker;
  return {
    service,
    worker: running,
    progress,
    async start() {
      await progress.start();
      running.start();
    },
    async stop() {
      await running.stop();
      await progress.stop();
    },
  };
}
