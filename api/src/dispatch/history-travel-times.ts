import { PeriodicWorker } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import type { Logger } from 'pino';
import type { LatLon, TravelTimeEstimator } from './dispatch-ports.js';
import { firstTaxiSampleAfter, readSpeedSquares, readTrips } from './eta-store.js';
import { GRID_DEG, TravelTimeModel, type TravelTimeModelOptions } from './travel-time-model.js';

export interface HistoryTravelTimesOptions extends TravelTimeModelOptions {
  readonly db: Queryable;
  readonly log: Logger;
  /** DISPATCH_HISTORY_DAYS: how far back the first build reads. */
  readonly historyDays: number;
  /** DISPATCH_HISTORY_REFRESH_S: how often new telemetry is folded in. */
  readonly refreshS: number;
  /** DISPATCH_HISTORY_MIN_SPEED_KMH: slower samples are a waiting taxi, not the traffic. */
  readonly minSpeedKmh: number;
  /** What learnt speeds lose per this many days: half their weight (default 14). */
  readonly halfLifeDays?: number;
  readonly now?: () => number;
}

/**
 * Telemetry is read at most this much time at once, oldest first, so each query stays bounded
 * (it probes the telemetry index once per taxi: fewer, longer chunks cost fewer probes).
 */
const CHUNK_MS = 6 * 3_600_000;
/** A hired trip is taken once its last hired sample is this old (it has ended). */
const TRIP_SETTLE_MS = 10 * 60_000;
/** Trips read per chunk at most (the median needs hundreds, not all). */
const TRIPS_PER_CHUNK = 2_000;

/**
 * Travel times from the trace history (TravelTimeModel), refreshed incrementally: each refresh
 * reads the telemetry stored since the previous one, six hours at a time (the first reaches back
 * DISPATCH_HISTORY_DAYS), ages what was learnt and adds the new speeds and trips. Until the first
 * refresh has data, every cell falls back to DISPATCH_FALLBACK_SPEED_KMH and the default detour
 * factor: the straight-line estimate.
 */
export class HistoryTravelTimes implements TravelTimeEstimator {
  readonly name = 'history';
  readonly model: TravelTimeModel;
  private speedsTo: number | undefined;
  private tripsTo: number | undefined;
  private readonly halfLifeMs: number;
  private readonly now: () => number;
  /** The refresh loop: one round at a time, the same lifecycle as every background worker. */
  readonly worker: PeriodicWorker;
  private stopped = false;

  constructor(private readonly opts: HistoryTravelTimesOptions) {
    this.model = new TravelTimeModel(opts);
    this.halfLifeMs = (opts.halfLifeDays ?? 14) * 86_400_000;
    this.now = opts.now ?? Date.now;
    this.worker = new PeriodicWorker({
      name: 'eta-history',
      intervalMs: opts.refreshS * 1000,
      round: () => this.refreshOnce(),
      log: opts.log,
      errorCode: 'ETA_HISTORY_REFRESH_FAILED',
    });
  }

  async estimate(origins: readonly LatLon[], destination: LatLon, at: Date): Promise<number[]> {
    return origins.map((o) => this.model.travelTimeS(o, destination, at));
  }

  /** Refreshes now and every DISPATCH_HISTORY_REFRESH_S; a failed refresh is logged and retried next time. */
  start(): void {
    this.stopped = false;
    this.worker.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.worker.stop();
  }

  /** Folds in the telemetry stored since the last refresh (rounds never overlap). */
  refresh(): Promise<void> {
    return this.worker.runOnce();
  }

  private async refreshOnce(): Promise<void> {
    const started = performance.now();
    const now = this.now();
    let oldest = now - this.opts.historyDays * 86_400_000;
    if (this.speedsTo === undefined) {
      // First build: start at the first stored sample in the window (none: nothing to read yet).
      const first = await firstTaxiSampleAfter(this.opts.db, new Date(oldest));
      oldest = first ? Math.max(oldest, first.getTime() - 1) : now;
    }
    let speedRows = 0;
    let trips = 0;
    let from = this.speedsTo ?? oldest;
    while (from < now && !this.stopped) {
      const to = Math.min(from + CHUNK_MS, now);
      // Weights relative to `to`: age what is known to `to` first, then add.
      if (this.speedsTo !== undefined) this.model.decay(0.5 ** ((to - this.speedsTo) / this.halfLifeMs));
      const rows = await readSpeedSquares(this.opts.db, {
        from: new Date(from),
        to: new Date(to),
        gridDeg: GRID_DEG,
        minSpeedKmh: this.opts.minSpeedKmh,
        halfLifeS: this.halfLifeMs / 1000,
      });
      this.model.addSpeeds(rows);
      speedRows += rows.length;
      this.speedsTo = to;
      from = to;
    }
    const settled = now - TRIP_SETTLE_MS;
    let tripFrom = this.tripsTo ?? Math.min(oldest, settled);
    while (tripFrom < settled && !this.stopped) {
      const to = Math.min(tripFrom + CHUNK_MS, settled);
      const rows = await readTrips(this.opts.db, new Date(tripFrom), new Date(to), TRIPS_PER_CHUNK);
      this.model.addTrips(rows);
      trips += rows.length;
      this.tripsTo = to;
      tripFrom = to;
    }
    this.opts.log.debug(
      { speedRows, tripsRead: trips, ...this.model.summary(), ms: Math.round(performance.now() - started) },
      'travel-time history refreshed',
    );
  }
}
