import type { LatLon } from '../geo.js';

/**
 * What a vehicle physically is at one instant: the ground truth the simulated sensors read.
 * Activities change it; the sensor layer (GPS noise, tachograph, meter display) reads it.
 */
export interface VehicleState {
  position: LatLon;
  headingDeg: number;
  speedMs: number;
  ignition: boolean;
  doorOpen: boolean;
  passengers: number;
  childrenUnder7: number;
  /** Boardings and alightings counted by the occupancy sensor since the last report. */
  boardingsSinceReport: number;
  alightingsSinceReport: number;
  /** The driver whose card is in the tachograph, if any. */
  driverId: string | undefined;
}

/**
 * One thing a vehicle does for a while: drive a route, dwell at a place, wait at a stand, stay
 * parked. Behaviours (a taxi's working day, a charter bus's timetable — or, later, a scripted
 * regulatory scenario) are sequences of activities.
 */
export interface Activity {
  readonly kind: string;
  /**
   * Advance by at most `dtS` seconds from `nowMs`, changing `state`. Returns the seconds used:
   * less than `dtS` only when the activity finished within the step.
   */
  step(state: VehicleState, nowMs: number, dtS: number): number;
  readonly done: boolean;
}

/** What a behaviour is asked for the next activity with. */
export interface BehaviourContext {
  readonly state: VehicleState;
  readonly nowMs: number;
  /** The activity that just finished, if any. */
  readonly previous: Activity | undefined;
}

export interface Behaviour {
  /** The next activity, called whenever the current one is done. */
  next(ctx: BehaviourContext): Activity;
  /**
   * Called after every simulation step with the metres driven in it: where a taximeter counts
   * distance and time, or a scripted scenario watches for its moment.
   */
  afterStep?(state: VehicleState, current: Activity, nowMs: number, dtS: number, movedM: number): void;
}
