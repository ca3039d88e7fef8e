import type { Pack } from '@vigia/core';
import { haversineM } from '@vigia/rules';
import type { CandidateSearch, LatLon, LiveTaxi, StandQueues, TravelTimeEstimator } from './dispatch-ports.js';
import { isFree } from './live-fleet-index.js';

/** One taxi a booking may be offered to, in the order offers go out. */
export interface RankedCandidate {
  readonly vehicleId: string;
  /** Estimated driving time to the pickup, whole seconds. */
  readonly etaS: number;
  /** Straight-line distance to the pickup, whole metres. */
  readonly distanceM: number;
  /** 'stand-queue': in the pickup stand's legal queue (Art. 37 m); 'eta': by estimated arrival. */
  readonly basis: 'stand-queue' | 'eta';
}

/** A taxi measured against the pickup. */
export interface MeasuredTaxi {
  readonly vehicleId: string;
  readonly etaS: number;
  readonly distanceM: number;
}

export interface RankingInput {
  /** The pickup stand's queue, first in line first (empty when the pickup is at no stand). */
  readonly queueVehicleIds: readonly string[];
  /**
   * Every taxi that may be offered the booking now (eligible, free, online, not excluded),
   * measured: the queue members among them and the nearest others.
   */
  readonly measured: readonly MeasuredTaxi[];
  /** Taxis already offered this booking, or otherwise out (never returned). */
  readonly exclude?: ReadonlySet<string>;
}

/**
 * The order offers go out in: the queue members that may be offered, in queue order (Art. 37 m
 * DF: the queue is the law, however near another taxi is), then the others by estimated arrival
 * (ties: nearer first, then by id, so the order is stable).
 */
export function rankCandidates(input: RankingInput): RankedCandidate[] {
  const exclude = input.exclude ?? new Set<string>();
  const byId = new Map(input.measured.map((m) => [m.vehicleId, m]));
  const out: RankedCandidate[] = [];
  const taken = new Set<string>();
  for (const id of input.queueVehicleIds) {
    const m = byId.get(id);
    if (!m || exclude.has(id) || taken.has(id)) continue;
    taken.add(id);
    out.push({ vehicleId: id, etaS: Math.round(m.etaS), distanceM: Math.round(m.distanceM), basis: 'stand-queue' });
  }
  const rest = input.measured
    .filter((m) => !taken.has(m.vehicleId) && !exclude.has(m.vehicleId))
    .sort((a, b) => a.etaS - b.etaS || a.distanceM - b.distanceM || (a.vehicleId < b.vehicleId ? -1 : 1));
  for (const m of rest) {
    if (taken.has(m.vehicleId)) continue;
    taken.add(m.vehicleId);
    out.push({ vehicleId: m.vehicleId, etaS: Math.round(m.etaS), distanceM: Math.round(m.distanceM), basis: 'eta' });
  }
  return out;
}

export interface CandidateRankerOptions {
  readonly search: CandidateSearch;
  readonly estimator: TravelTimeEstimator;
  /** Absent: no stand queue is consulted (SP charter, tests of arrival order alone). */
  readonly standQueues?: StandQueues;
  /** DISPATCH_STAND_RADIUS_M: a pickup this near a stand is that stand's (default 100). */
  readonly standRadiusM?: number;
  /** DISPATCH_CANDIDATES: nearest taxis by straight line whose arrival is estimated (default 20). */
  readonly candidates?: number;
  /** DISPATCH_SEARCH_RADIUS_M: no taxi farther than this is offered a booking (default 10 000). */
  readonly maxDistanceM?: number;
}

export interface RankRequest {
  readonly pickup: LatLon;
  readonly pack: Pack;
  /** The taxis the booking's operator may dispatch (its declared, active vehicles); absent: any. */
  readonly vehicleIds?: ReadonlySet<string>;
  readonly exclude?: ReadonlySet<string>;
  /** Departure time for the estimate; default now. */
  readonly at?: Date;
}

export interface Ranking {
  /** The stand whose queue went first, when the pickup is at one. */
  readonly stand: { readonly id: string; readonly name: string } | null;
  readonly candidates: RankedCandidate[];
  /** The estimator that timed them ('history', 'straight-line', 'osrm'). */
  readonly estimator: string;
}

/**
 * The I/O around rankCandidates: the pickup's stand and its queue, the nearest free online
 * taxis from the live index, one estimate call for all of them.
 */
export class CandidateRanker {
  private readonly standRadiusM: number;
  private readonly candidates: number;
  private readonly maxDistanceM: number;

  constructor(private readonly opts: CandidateRankerOptions) {
    this.standRadiusM = opts.standRadiusM ?? 100;
    this.candidates = opts.candidates ?? 20;
    this.maxDistanceM = opts.maxDistanceM ?? 10_000;
  }

  async rank(req: RankRequest): Promise<Ranking> {
    const { search, estimator, standQueues } = this.opts;
    const at = req.at ?? new Date();
    const nowMs = at.getTime();
    const exclude = req.exclude ?? new Set<string>();
    const allowed = (taxi: LiveTaxi | undefined): taxi is LiveTaxi =>
      taxi !== undefined &&
      !exclude.has(taxi.vehicleId) &&
      (req.vehicleIds === undefined || req.vehicleIds.has(taxi.vehicleId)) &&
      isFree(taxi) &&
      search.isOnline(taxi, nowMs);

    const stand = standQueues ? await standQueues.standAt(req.pickup, req.pack, this.standRadiusM) : null;
    const queue = stand && standQueues ? await standQueues.queue(stand.id, at) : [];
    const queued = queue.map((q) => search.get(q.vehicleId)).filter(allowed);

    // Excluded taxis may be among the nearest: ask for enough more to still have `candidates`.
    const nearest = search
      .nearestFree(req.pickup, {
        limit: this.candidates + exclude.size,
        maxDistanceM: this.maxDistanceM,
        vehicleIds: req.vehicleIds,
        nowMs,
      })
      .filter(allowed)
      .slice(0, this.candidates);

    const taxis = [...queued, ...nearest.filter((t) => !queued.some((q) => q.vehicleId === t.vehicleId))];
    if (taxis.length === 0) return { stand, candidates: [], estimator: estimator.name };
    const etas = await estimator.estimate(taxis, req.pickup, at);
    const measured = taxis.map((t, i) => ({
      vehicleId: t.vehicleId,
      etaS: etas[i] ?? Number.POSITIVE_INFINITY,
      distanceM: haversineM(t.lat, t.lon, req.pickup.lat, req.pickup.lon),
    }));
    return {
      stand,
      candidates: rankCandidates({ queueVehicleIds: queued.map((t) => t.vehicleId), measured, exclude }),
      estimator: estimator.name,
    };
  }
}
