/**
 * The live scenario: dashboards on the Socket.IO namespace `/live` (event `fleet`, batches of the
 * vehicles that changed, at most one per `LIVE_PUSH_INTERVAL_MS`, 500 ms by default and by
 * contract at most) while the fleet's trackers report. What it measures is what an operator sees:
 * the time from a sample being sent to its position reaching every dashboard.
 *
 * Each sample carries its send time as `ts`, and the update pushed for it carries that `ts`
 * back, so a subscriber on the same clock as the senders (one machine, or containers of one host)
 * measures the delay from the update alone. Correct: every subscriber connected, every vehicle
 * seen by every subscriber, every sample accepted.
 *
 * Plain TypeScript with no imports but its siblings: k6 and Node both load this file.
 */
import { type FleetPlan, homeOf, type TelemetryRecord } from './fleet.ts';
import type { MetricSpec } from './metrics.ts';

export const LIVE_NAMESPACE = '/live';
export const FLEET_EVENT = 'fleet';

export const LIVE_METRICS = [
  {
    name: 'live_delivery',
    kind: 'trend',
    description: 'a sample sent to its fleet update received on /live (ms), per subscriber',
    // The push is batched every 500 ms at most (API.md), so half a second is the floor of the
    // worst case; a second at p95 is the dashboard still feeling live.
    thresholds: ['p(95)<1000', 'p(99)<1500'],
  },
  {
    name: 'live_send_duration',
    kind: 'trend',
    description: 'one POST /v1/telemetry of a vehicle, sent to answered (ms)',
    thresholds: ['p(95)<250'],
  },
  {
    name: 'live_send_errors',
    kind: 'rate',
    description: 'a sample not answered 200 with its record accepted',
    thresholds: ['rate<0.01'],
  },
  {
    name: 'live_connect_errors',
    kind: 'counter',
    description: 'subscribers refused or not connected within the connect timeout',
    thresholds: ['count==0'],
  },
  {
    name: 'live_vehicles_unseen',
    kind: 'counter',
    description: 'vehicles of the run a subscriber never received an update of, summed over subscribers',
    thresholds: ['count==0'],
  },
  {
    name: 'live_updates',
    kind: 'counter',
    description: 'updates of the run’s vehicles received, summed over subscribers',
    thresholds: ['count>0'],
  },
] as const satisfies readonly MetricSpec[];

/** How long a subscriber may take to be admitted to `/live` (ms). */
export const LIVE_CONNECT_TIMEOUT_MS = 10_000;
/** Subscribers connect first: the senders start this long after them (ms). */
export const LIVE_SENDERS_DELAY_MS = 2_000;
/**
 * After the last sample, how long subscribers stay to receive it (ms): two push intervals at the
 * contract's longest and a second of slack.
 */
export const LIVE_DRAIN_MS = 2_000;

/** Samples a second the senders start, for every vehicle to report every `intervalMs`. */
export const liveRatePerS = (vehicles: number, intervalMs: number) => (vehicles * 1000) / intervalMs;

/**
 * The `seq`-th sample of the run: vehicle after vehicle, so each vehicle reports every
 * `intervalMs` when samples start at `liveRatePerS`; stamped `nowMs`, the send time.
 */
export function liveSample(
  plan: FleetPlan,
  seq: number,
  nowMs: number,
): { record: TelemetryRecord; vehicleIndex: number } {
  const vehicleIndex = seq % plan.vehicles.length;
  const vehicle = plan.vehicles[vehicleIndex];
  if (!vehicle) throw new Error(`no vehicle ${vehicleIndex}`);
  const home = homeOf(vehicleIndex);
  const step = Math.floor(seq / plan.vehicles.length) % 100;
  return {
    vehicleIndex,
    record: {
      deviceId: vehicle.identifier,
      ts: new Date(nowMs).toISOString(),
      lat: home.lat + step * 0.0001,
      lon: home.lon,
      speedKmh: 35,
      headingDeg: 0,
      ignition: true,
      passengers: 1,
      meter: { state: 'hired', tariff: 1 },
    },
  };
}

/** The part of a fleet update (`FleetUpdate` of @vigia/core) the scenario reads. */
export interface FleetUpdateSeen {
  vehicleId: string;
  ts: string;
}

/**
 * What one `fleet` event tells a subscriber: the delay of each update of the run's vehicles
 * (`nowMs` minus its sample time) and which vehicles they were. Updates of other vehicles (a
 * deployment's own fleet) are not the run's, and samples stamped before the subscriber was
 * admitted (`sinceMs`: the warm-up, a push already on its way) measure the connection, not the
 * feed.
 */
export function readFleetEvent(
  vehicleIds: ReadonlySet<string>,
  updates: readonly FleetUpdateSeen[],
  nowMs: number,
  sinceMs: number,
): { delaysMs: number[]; vehicles: string[] } {
  const delaysMs: number[] = [];
  const vehicles: string[] = [];
  for (const u of updates) {
    if (!vehicleIds.has(u.vehicleId)) continue;
    const ts = Date.parse(u.ts);
    if (ts < sinceMs) continue;
    delaysMs.push(nowMs - ts);
    vehicles.push(u.vehicleId);
  }
  return { delaysMs, vehicles };
}
