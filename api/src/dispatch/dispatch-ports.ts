import type { MeterState, Pack } from '@vigia/core';

/**
 * The seams of dispatch: the booking service (booking-service.ts) asks these three parts who may
 * be offered a booking and in which order, and never how they know. Each has one production
 * implementation in this folder; the travel-time one is chosen by configuration (ROUTING_URL).
 */

export interface LatLon {
  readonly lat: number;
  readonly lon: number;
}

/** A taxi as the live fleet last saw it. */
export interface LiveTaxi {
  readonly vehicleId: string;
  readonly plate: string;
  readonly pack: Pack;
  readonly operatorId: string | null;
  readonly lat: number;
  readonly lon: number;
  /** Epoch ms of its last position. */
  readonly tsMs: number;
  readonly speedKmh: number | null;
  readonly meterState: MeterState | null;
}

/** How far and among whom `CandidateSearch.nearestFree` looks. */
export interface NearestFreeOptions {
  readonly limit: number;
  readonly maxDistanceM: number;
  readonly vehicleIds?: ReadonlySet<string>;
  readonly nowMs?: number;
}

/** The live positions of the taxis, indexed for nearest-first search (live-fleet-index.ts). */
export interface CandidateSearch {
  /**
   * Free (meter `free`, or no meter data), online taxis nearest `point` first (straight line),
   * at most `limit`, within `maxDistanceM`, among `vehicleIds` when given.
   */
  nearestFree(point: LatLon, opts: NearestFreeOptions): LiveTaxi[];
  /** The taxi's last known state, whatever it is. */
  get(vehicleId: string): LiveTaxi | undefined;
  /** Online: reported within OFFLINE_AFTER_S of `nowMs`. */
  isOnline(taxi: LiveTaxi, nowMs?: number): boolean;
}

/** Estimated driving times (travel-time-estimator.ts: trace history; osrm-travel-times.ts: a routing server). */
export interface TravelTimeEstimator {
  /** Short name for logs and the offer's evidence: 'history', 'straight-line', 'osrm'. */
  readonly name: string;
  /** Seconds from each origin to `destination`, departing at `at` (same order as `origins`). */
  estimate(origins: readonly LatLon[], destination: LatLon, at: Date): Promise<number[]>;
}

/** One taxi in a stand's legal queue, first in line first (API.md `GET /v1/stands/:id/queue`). */
export interface StandQueueItem {
  readonly vehicleId: string;
  readonly plate: string | null;
  readonly enteredAt: string;
  readonly waitedS: number;
}

/** The stands' legal queues, as the live rules compute them (stand-queues.ts). */
export interface StandQueues {
  /** The queue of a stand (empty when nobody waits or the stand is unknown). */
  queue(standId: string, now?: Date): Promise<StandQueueItem[]>;
  /** The stand of `pack` whose area contains `pickup` or is nearest within `maxDistanceM`; null: none. */
  standAt(pickup: LatLon, pack: Pack, maxDistanceM: number): Promise<{ id: string; name: string } | null>;
}
