import type { Config } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import type { Logger } from 'pino';
import type { TravelTimeEstimator } from './dispatch-ports.js';
import { HistoryTravelTimes } from './history-travel-times.js';
import { OsrmTravelTimes } from './osrm-travel-times.js';

export interface TravelTimes {
  /** What the ranking asks: OSRM when ROUTING_URL is set (history behind it), else the history model. */
  readonly estimator: TravelTimeEstimator;
  /** The trace-history model, refreshed in the background (also the fallback of OSRM). */
  readonly history: HistoryTravelTimes;
  start(): void;
  stop(): Promise<void>;
}

/** The travel-time estimator the configuration asks for (see ETA.md). */
export function createTravelTimes(
  config: Pick<
    Config,
    | 'ROUTING_URL'
    | 'ROUTING_TIMEOUT_MS'
    | 'DISPATCH_FALLBACK_SPEED_KMH'
    | 'DISPATCH_DETOUR_FACTOR'
    | 'DISPATCH_HISTORY_DAYS'
    | 'DISPATCH_HISTORY_REFRESH_S'
    | 'DISPATCH_HISTORY_MIN_SAMPLES'
    | 'DISPATCH_HISTORY_MIN_SPEED_KMH'
  >,
  db: Queryable,
  log: Logger,
): TravelTimes {
  const history = new HistoryTravelTimes({
    db,
    log,
    fallbackSpeedKmh: config.DISPATCH_FALLBACK_SPEED_KMH,
    defaultDetourFactor: config.DISPATCH_DETOUR_FACTOR,
    historyDays: config.DISPATCH_HISTORY_DAYS,
    refreshS: config.DISPATCH_HISTORY_REFRESH_S,
    minSamples: config.DISPATCH_HISTORY_MIN_SAMPLES,
    minSpeedKmh: config.DISPATCH_HISTORY_MIN_SPEED_KMH,
  });
  const estimator = config.ROUTING_URL
    ? new OsrmTravelTimes({ baseUrl: config.ROUTING_URL, timeoutMs: config.ROUTING_TIMEOUT_MS, fallback: history, log })
    : history;
  return {
    estimator,
    history,
    start: () => history.start(),
    stop: () => history.stop(),
  };
}
