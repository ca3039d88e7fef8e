/**
 * What the soak's fleet sends: the live scenario's samples (load/src/scenarios/live.ts: vehicle
 * after vehicle, each stamped with its send time), except that the first `violators` vehicles
 * drive real rides: 6 passengers in their 4 seats for the first minute of every 90 s, then 2,
 * at 30 km/h. Each such minute is one DF_OVER_CAPACITY (Art. 24: raised after 30 s of driving
 * over capacity, by default), so violations are raised all through the run, not only at its
 * start, and the time from a ride's completing sample to its violation on `/live` is measured
 * many times.
 */
import type { FleetPlan, TelemetryRecord } from '../scenarios/fleet.ts';
import { homeOf } from '../scenarios/fleet.ts';
import { liveSample } from '../scenarios/live.ts';

/** A violator's ride: this long over capacity, then the rest of the cycle within it (s). */
export const RIDE_CYCLE_S = 90;
export const OVER_CAPACITY_S = 60;
const RIDE_SPEED_KMH = 30;
/** Degrees of latitude a vehicle at RIDE_SPEED_KMH covers per second (111 km per degree). */
const DEGREES_PER_S = RIDE_SPEED_KMH / 3.6 / 111_000;

export interface SoakSample {
  record: TelemetryRecord | ViolatorRecord;
  vehicleIndex: number;
  /** Whether this vehicle is one of the violators. */
  violator: boolean;
}

export interface ViolatorRecord extends Omit<TelemetryRecord, 'meter'> {
  meter: { state: 'hired'; tariff: 1; tripId: string };
}

export function soakSample(
  plan: FleetPlan,
  seq: number,
  nowMs: number,
  violators: number,
  intervalS: number,
): SoakSample {
  const { record, vehicleIndex } = liveSample(plan, seq, nowMs);
  if (vehicleIndex >= violators) return { record, vehicleIndex, violator: false };
  const step = Math.floor(seq / plan.vehicles.length);
  const elapsedS = step * intervalS;
  const ride = Math.floor(elapsedS / RIDE_CYCLE_S);
  const home = homeOf(vehicleIndex);
  return {
    vehicleIndex,
    violator: true,
    record: {
      ...record,
      lat: home.lat + elapsedS * DEGREES_PER_S,
      speedKmh: RIDE_SPEED_KMH,
      passengers: elapsedS % RIDE_CYCLE_S < OVER_CAPACITY_S ? 6 : 2,
      meter: { state: 'hired', tariff: 1, tripId: `soak-${vehicleIndex}-${ride}` },
    },
  };
}
