import type { FleetUpdate } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { CandidateRanker, rankCandidates } from '../src/dispatch/candidate-ranking.js';
import type { LatLon, StandQueueItem, StandQueues, TravelTimeEstimator } from '../src/dispatch/dispatch-ports.js';
import { LiveFleetIndex } from '../src/dispatch/live-fleet-index.js';
import { StraightLineTravelTimes } from '../src/dispatch/straight-line-travel-times.js';
import { fleetUpdate } from './fleet-support.js';

const NOW = Date.parse('2026-03-02T15:00:00Z');
const PICKUP = { lat: -15.7942, lon: -47.8822 };
const north = (m: number) => PICKUP.lat + m / 111_195;

function taxi(vehicleId: string, northM: number, meterState: FleetUpdate['meterState'] = 'free'): FleetUpdate {
  return fleetUpdate(
    vehicleId,
    { lat: north(northM), lon: PICKUP.lon },
    { ts: new Date(NOW - 5_000).toISOString(), meterState },
  );
}

/** The port as the stand logic answers it: one stand at the pickup, with a fixed queue. */
class OneStand implements StandQueues {
  constructor(private readonly items: string[]) {}
  async queue(): Promise<StandQueueItem[]> {
    return this.items.map((vehicleId, i) => ({
      vehicleId,
      plate: null,
      enteredAt: new Date(NOW - (10 - i) * 60_000).toISOString(),
      waitedS: (10 - i) * 60,
    }));
  }
  async standAt(pickup: LatLon, _pack: string, maxDistanceM: number) {
    const d = Math.abs(pickup.lat - PICKUP.lat) * 111_195;
    return d <= maxDistanceM ? { id: 'st-1', name: 'Rodoviária' } : null;
  }
}

function fleet(updates: FleetUpdate[]): LiveFleetIndex {
  const index = new LiveFleetIndex({ offlineAfterS: 120, maxIndexAgeMs: 0, now: () => NOW });
  index.apply(updates);
  return index;
}

const straight = new StraightLineTravelTimes({ detourFactor: 1.3, speedKmh: 25 });

describe('candidate ranking', () => {
  it('puts the queue members first in queue order, then the others by estimated arrival', () => {
    const ranked = rankCandidates({
      queueVehicleIds: ['q2', 'gone', 'q1'],
      measured: [
        { vehicleId: 'near', etaS: 60, distanceM: 300 },
        { vehicleId: 'q1', etaS: 30, distanceM: 100 },
        { vehicleId: 'slow-near', etaS: 400, distanceM: 250 },
        { vehicleId: 'q2', etaS: 200, distanceM: 900 },
        { vehicleId: 'far-fast', etaS: 120, distanceM: 2000 },
        { vehicleId: 'excluded', etaS: 10, distanceM: 50 },
      ],
      exclude: new Set(['excluded']),
    });
    expect(ranked.map((r) => [r.vehicleId, r.basis])).toEqual([
      ['q2', 'stand-queue'],
      ['q1', 'stand-queue'],
      ['near', 'eta'],
      ['far-fast', 'eta'],
      ['slow-near', 'eta'],
    ]);
  });

  it('offers the head of the stand queue first even when another taxi is nearer', async () => {
    const search = fleet([taxi('head', 80), taxi('second', 60), taxi('nearest', 10), taxi('other', 500)]);
    const ranker = new CandidateRanker({ search, estimator: straight, standQueues: new OneStand(['head', 'second']) });
    const { stand, candidates, estimator } = await ranker.rank({ pickup: PICKUP, pack: 'df-taxi', at: new Date(NOW) });
    expect(stand?.id).toBe('st-1');
    expect(estimator).toBe('straight-line');
    expect(candidates.map((c) => [c.vehicleId, c.basis])).toEqual([
      ['head', 'stand-queue'],
      ['second', 'stand-queue'],
      ['nearest', 'eta'],
      ['other', 'eta'],
    ]);
    expect(candidates[0]?.distanceM).toBe(80);
    expect(candidates[0]?.etaS).toBe(Math.round((80 * 1.3) / (25 / 3.6)));
  });

  it('skips queue members that are hired, offline, excluded or not the operator’s, and ignores a stand out of range', async () => {
    const search = fleet([
      taxi('head-hired', 10, 'hired'),
      { ...taxi('head-offline', 20), ts: new Date(NOW - 200_000).toISOString() },
      taxi('head-declined', 30),
      taxi('head-other-coop', 40),
      taxi('queued-ok', 300),
      taxi('free', 100),
    ]);
    const ranker = new CandidateRanker({
      search,
      estimator: straight,
      standQueues: new OneStand(['head-hired', 'head-offline', 'head-declined', 'head-other-coop', 'queued-ok']),
      standRadiusM: 50,
    });
    const eligible = new Set(['head-hired', 'head-offline', 'head-declined', 'queued-ok', 'free']);
    const at = new Date(NOW);
    const ranking = await ranker.rank({
      pickup: PICKUP,
      pack: 'df-taxi',
      vehicleIds: eligible,
      exclude: new Set(['head-declined']),
      at,
    });
    expect(ranking.candidates.map((c) => [c.vehicleId, c.basis])).toEqual([
      ['queued-ok', 'stand-queue'],
      ['free', 'eta'],
    ]);
    // 250 m from the stand, beyond the 50 m radius: arrival order alone.
    const away = await ranker.rank({
      pickup: { lat: north(250), lon: PICKUP.lon },
      pack: 'df-taxi',
      vehicleIds: eligible,
      at,
    });
    expect(away.stand).toBeNull();
    expect(away.candidates.map((c) => c.vehicleId)).toEqual(['queued-ok', 'free', 'head-declined']);
  });

  it('orders by estimated arrival, not straight-line distance, and asks the estimator once', async () => {
    const search = fleet([taxi('near-slow', 300), taxi('far-fast', 900)]);
    const calls: number[] = [];
    const estimator: TravelTimeEstimator = {
      name: 'fixture',
      async estimate(origins) {
        calls.push(origins.length);
        return origins.map((o) => (o.lat < north(500) ? 600 : 120));
      },
    };
    const ranker = new CandidateRanker({ search, estimator });
    const { candidates } = await ranker.rank({ pickup: PICKUP, pack: 'df-taxi', at: new Date(NOW) });
    expect(candidates.map((c) => [c.vehicleId, c.etaS])).toEqual([
      ['far-fast', 120],
      ['near-slow', 600],
    ]);
    expect(calls).toEqual([2]);
  });
});
