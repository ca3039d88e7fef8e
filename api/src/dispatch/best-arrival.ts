import type { Bus, Config } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import type { Logger } from 'pino';
import { CandidateRanker } from './candidate-ranking.js';
import type { StandQueues } from './dispatch-ports.js';
import { LiveFleetIndex } from './live-fleet-index.js';
import { createTravelTimes, type TravelTimes } from './travel-times.js';

/** Best arrival (issue 10 item 2) as one API process runs it: what the booking service ranks through. */
export interface BestArrival {
  readonly ranker: CandidateRanker;
  readonly fleet: LiveFleetIndex;
  readonly travelTimes: TravelTimes;
  /** Starts the travel-time history's refresh (the fleet index follows the bus from creation). */
  start(): void;
  stop(): Promise<void>;
}

/**
 * The live fleet index (subscribed to the bus, loaded from vehicle_live), the travel-time
 * estimator ROUTING_URL selects, and the ranker over both and the stands' queues.
 */
export async function createBestArrival(deps: {
  config: Config;
  db: Queryable;
  bus: Bus;
  log: Logger;
  standQueues?: StandQueues;
}): Promise<BestArrival> {
  const { config } = deps;
  const log = deps.log.child({ component: 'best-arrival' });
  const fleet = await LiveFleetIndex.start(deps.db, deps.bus, { offlineAfterS: config.OFFLINE_AFTER_S, log });
  const travelTimes = createTravelTimes(config, deps.db, log);
  const ranker = new CandidateRanker({
    search: fleet,
    estimator: travelTimes.estimator,
    standQueues: deps.standQueues,
    standRadiusM: config.DISPATCH_STAND_RADIUS_M,
    candidates: config.DISPATCH_CANDIDATES,
    maxDistanceM: config.DISPATCH_SEARCH_RADIUS_M,
  });
  log.info({ estimator: travelTimes.estimator.name, taxis: fleet.stats().taxis }, 'best arrival ready');
  return {
    ranker,
    fleet,
    travelTimes,
    start: () => travelTimes.start(),
    async stop() {
      fleet.stop();
      await travelTimes.stop();
    },
  };
}
