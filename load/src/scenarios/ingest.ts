/**
 * The ingest scenario: the fleet's trackers posting `POST /v1/telemetry` (API.md "Telemetry in").
 * With one record per request each vehicle's device sends its own samples with its own token, as
 * an OsmAnd phone or a native tracker does, which is what decides how many vehicles a server holds
 * (issue 12); with more, a gateway posts batches for many devices with the admin token.
 *
 * A correct answer is 200 with every record `accepted` (durably stored: not a duplicate, not
 * rejected). Afterwards every vehicle must show a live state from this run in `GET /v1/vehicles`.
 *
 * Plain TypeScript with no imports but its siblings: k6 and Node both load this file.
 */
import { type FleetPlan, homeOf, type ListedVehicle, type TelemetryRecord } from './fleet.ts';
import type { MetricSpec } from './metrics.ts';

export const INGEST_METRICS = [
  {
    name: 'ingest_request_duration',
    kind: 'trend',
    description: 'one POST /v1/telemetry, sent to answered (ms)',
    // A tracker waits for its answer before the next sample; 250 ms at p95 leaves a
    // once-a-second tracker idle three quarters of the time even on a loaded server.
    thresholds: ['p(95)<250', 'p(99)<500'],
  },
  {
    name: 'ingest_errors',
    kind: 'rate',
    description: 'a request not answered 200 with every record accepted',
    thresholds: ['rate<0.01'],
  },
  {
    name: 'ingest_records',
    kind: 'counter',
    description: 'records accepted (durably stored)',
    thresholds: ['count>0'],
  },
  {
    name: 'ingest_vehicles_not_live',
    kind: 'counter',
    description: 'vehicles sent to whose live state in GET /v1/vehicles is missing or older than the run',
    thresholds: ['count==0'],
  },
] as const satisfies readonly MetricSpec[];

/**
 * Sample time runs an hour behind the clock at the start and one second per sample of a vehicle,
 * so a vehicle's samples are in order and a second apart (what the rules expect of a tracker)
 * however fast they are sent, and never ahead of the server's clock (`FUTURE_TIMESTAMP`) until a
 * vehicle has sent 3 600 of them: raise the vehicle count for longer or faster runs.
 */
export const INGEST_LOOKBACK_MS = 3_600_000;

/** The warm-up sample's time: a second before the run's first, so each vehicle's samples stay in order. */
export const ingestWarmUpMs = (startMs: number) => startMs - INGEST_LOOKBACK_MS - 1000;

export interface IngestRequest {
  records: TelemetryRecord[];
  /** The vehicle whose device token sends it (one record), or null: the admin token, as a gateway. */
  vehicleIndex: number | null;
}

/**
 * The `seq`-th request of the run (0, 1, 2 … in the order requests start): records
 * `seq × perRequest` onwards, vehicle after vehicle, each at its next second of sample time.
 */
export function ingestRequest(plan: FleetPlan, seq: number, perRequest: number, startMs: number): IngestRequest {
  const n = plan.vehicles.length;
  const records: TelemetryRecord[] = [];
  for (let j = 0; j < perRequest; j++) {
    const r = seq * perRequest + j;
    const index = r % n;
    const step = Math.floor(r / n);
    const vehicle = plan.vehicles[index];
    if (!vehicle) throw new Error(`no vehicle ${index}`);
    const home = homeOf(index);
    // About 30 km/h north-east and back within a kilometre: moving, on a plausible trace.
    const leg = step % 200;
    const along = (leg < 100 ? leg : 200 - leg) * 0.00008;
    records.push({
      deviceId: vehicle.identifier,
      ts: new Date(startMs - INGEST_LOOKBACK_MS + step * 1000).toISOString(),
      lat: home.lat + along,
      lon: home.lon + along,
      speedKmh: 30,
      headingDeg: leg < 100 ? 45 : 225,
      ignition: true,
      passengers: 0,
      meter: { state: 'free', tariff: 1 },
    });
  }
  return { records, vehicleIndex: perRequest === 1 ? seq % n : null };
}

/** The answer of `POST /v1/telemetry` (API.md). */
export interface TelemetryAnswer {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}

/** Correct: 200, and every record sent durably stored. */
export function ingestAnswerCorrect(status: number, answer: TelemetryAnswer | undefined, sent: number): boolean {
  return status === 200 && answer !== undefined && answer.accepted === sent && answer.rejected.length === 0;
}

/**
 * Vehicles sent to without a live state at or after the run's first sample time. Records go to
 * the vehicles in turn, so `recordsSent` of them reached the first `recordsSent` vehicles.
 */
export function vehiclesNotLive(
  plan: FleetPlan,
  listed: readonly ListedVehicle[],
  startMs: number,
  recordsSent: number,
): number {
  const since = startMs - INGEST_LOOKBACK_MS;
  const live = new Set(listed.filter((v) => v.live && Date.parse(v.live.ts) >= since).map((v) => v.id));
  return plan.vehicles.slice(0, recordsSent).filter((v) => !live.has(v.vehicleId)).length;
}
