import { PeriodicWorker } from '@vigia/core';
import type { Logger } from 'pino';
import type { BookingService } from './booking-service.js';

/**
 * The offer worker of one API process: every DISPATCH_POLL_INTERVAL_MS, and whenever a booking
 * becomes due here (created, an offer declined), it expires the offers past their time, expires
 * the bookings past theirs and makes the next offers. Every process runs one; the bookings' row
 * locks (SELECT … FOR UPDATE SKIP LOCKED on the due ones) share the work, so each offer is made
 * once however many run, and a process that dies leaves its bookings to the others.
 */
export function createOfferWorker(service: BookingService, opts: { intervalMs: number; log: Logger }): PeriodicWorker {
  return new PeriodicWorker({
    name: 'offers',
    intervalMs: opts.intervalMs,
    log: opts.log,
    errorCode: 'OFFER_WORKER_FAILED',
    round: async () => {
      await service.advanceDue();
    },
  });
}
