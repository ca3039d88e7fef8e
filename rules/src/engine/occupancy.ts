import type { Telemetry } from '@vigia/core';
import type { Writable } from './sample-facts.js';

/**
 * The passenger count the rules read: the occupancy sensor's reading, gated by the door.
 *
 * Passenger counters flicker (a bag on a seat, a head in the beam): nobody gets on or off a
 * vehicle whose doors stay shut, so a change of the count while the doors have stayed closed is
 * sensor noise and is not accepted. Derived once per accepted sample by the engine
 * (`SampleFacts.occupancy`) so that every rule that reads the count — boarding at a stop,
 * over-capacity, Bandeira II's "more than 3 passengers", rides without the meter — reads the
 * same, filtered, value. A change of the count is accepted:
 * - at once while the door is open (people get on and off);
 * - provisionally within `settleS` after the door was last seen open (counters finish tallying
 *   as the door closes); a provisional count is replaced by the next different reading and
 *   becomes firm once it has held `settleS`;
 * - on a sample with no door reading (a vehicle without a door sensor), only once the new value
 *   has been read on every sample for `settleS`;
 * - never, with the door closed and not open within `settleS` (the reading is rejected as noise).
 * The first count of a vehicle (or the first after a gap, when the door may have opened unseen)
 * is provisional: it is accepted and replaced by the next different reading until it has held
 * `settleS`, so a spike at the start of a stream cannot stick. Counted boardings (`boardings`)
 * are gated the same way: only those with the door open, or open within `settleS`, count — a
 * counter's phantom boarding with the doors shut (or with no door reading) is not one.
 */

export interface OccupancyState {
  /** The accepted count (null before any count). */
  readonly count: number | null;
  /** Held `settleS` or accepted with the door open: only a door-backed (or settled) change replaces it. */
  readonly firm: boolean;
  /** When the accepted count was set. */
  readonly sinceMs: number;
  readonly lastDoorOpenMs: number | null;
  /** A different reading waiting to hold `settleS` (vehicles without a door reading). */
  readonly pendingCount: number | null;
  readonly pendingSinceMs: number;
}

export const initialOccupancyState: OccupancyState = {
  count: null,
  firm: false,
  sinceMs: 0,
  lastDoorOpenMs: null,
  pendingCount: null,
  pendingSinceMs: 0,
};

export interface OccupancyReading {
  /** The accepted passenger count (driver excluded); null when this sample carries no count. */
  readonly passengers: number | null;
  /** The sample's own count, as sent. */
  readonly rawPassengers: number | null;
  /**
   * At least this many on board: the lower of the accepted and the sent count. A rule that fires
   * on passengers being aboard or too many (over-capacity, a ride without the meter, carrying
   * passengers) reads this bound: neither a flicker up nor a change still settling makes it fire.
   */
  readonly passengersAtLeast: number | null;
  /**
   * At most this many on board: the higher of the two. A rule that fires on too few passengers
   * (Bandeira II's "more than 3", a meter running with nobody aboard) reads this bound.
   */
  readonly passengersAtMost: number | null;
  /** The sample's count differs from the accepted one (noise, or a change not yet settled). */
  readonly rejected: boolean;
  /** The accepted count is provisional (first reading, or a change just after the door closed). */
  readonly provisional: boolean;
  /**
   * Boardings the sensor counted on this sample with the door open or open within `settleS`
   * (a counter's phantom boarding with the doors shut is noise, like a count flicker).
   */
  readonly boardings: number;
  /** Boardings the sensor counted that the door does not back (door closed, or no door reading). */
  readonly boardingsNotDoorBacked: number;
}

/** The count `raw` is accepted at `ms` (a module function: a closure per sample was garbage on the hottest path). */
function accept(state: OccupancyState, raw: number, ms: number, firm: boolean): OccupancyState {
  return {
    count: raw,
    firm,
    sinceMs: ms,
    lastDoorOpenMs: state.lastDoorOpenMs,
    pendingCount: null,
    pendingSinceMs: 0,
  };
}

export function readOccupancy(
  previous: OccupancyState,
  sample: Telemetry,
  ms: number,
  gapBefore: boolean,
  settleS: number,
): { state: OccupancyState; reading: OccupancyReading } {
  const reading = { ...emptyReading };
  const state = readOccupancyInto(previous, sample, ms, gapBefore, settleS, reading);
  return { state, reading };
}

/** A reading to fill (`readOccupancyInto`), with every field in the order the engine writes them. */
export const emptyReading: OccupancyReading = Object.freeze({
  passengers: null,
  rawPassengers: null,
  passengersAtLeast: null,
  passengersAtMost: null,
  rejected: false,
  provisional: true,
  boardings: 0,
  boardingsNotDoorBacked: 0,
});

/**
 * `readOccupancy` writing the reading into `out` and returning the state: the engine fills one
 * reading per pack for every sample (it is part of the facts object, read during the rules' step
 * and never kept), rather than a new reading and a pair to return it in.
 */
export function readOccupancyInto(
  previous: OccupancyState,
  sample: Telemetry,
  ms: number,
  gapBefore: boolean,
  settleS: number,
  out: Writable<OccupancyReading>,
): OccupancyState {
  const settleMs = settleS * 1000;
  // After a gap the door may have opened unseen: the count starts afresh (provisional).
  const base = gapBefore ? initialOccupancyState : previous;
  const lastDoorOpenMs = sample.doorOpen === true ? ms : base.lastDoorOpenMs;
  const raw = sample.passengers;
  let state: OccupancyState = lastDoorOpenMs === base.lastDoorOpenMs ? base : { ...base, lastDoorOpenMs };
  const doorRecently = lastDoorOpenMs !== null && ms - lastDoorOpenMs <= settleMs;
  const counted = sample.boardings ?? 0;
  const boardings = doorRecently ? counted : 0;
  const boardingsNotDoorBacked = counted - boardings;
  if (raw === null) {
    out.passengers = null;
    out.rawPassengers = null;
    out.passengersAtLeast = null;
    out.passengersAtMost = null;
    out.rejected = false;
    out.provisional = !state.firm;
    out.boardings = boardings;
    out.boardingsNotDoorBacked = boardingsNotDoorBacked;
    return state;
  }
  if (state.count === null) state = accept(state, raw, ms, false);
  else if (raw === state.count) {
    if (state.pendingCount !== null || (!state.firm && ms - state.sinceMs >= settleMs)) {
      state = { ...state, pendingCount: null, firm: state.firm || ms - state.sinceMs >= settleMs };
    }
  } else {
    if (sample.doorOpen === true) state = accept(state, raw, ms, true);
    else if (!state.firm || doorRecently) state = accept(state, raw, ms, false);
    else if (sample.doorOpen === null) {
      if (state.pendingCount !== raw) state = { ...state, pendingCount: raw, pendingSinceMs: ms };
      else if (ms - state.pendingSinceMs >= settleMs) state = accept(state, raw, ms, true);
    } else if (state.pendingCount !== null) {
      // Door closed (and not open lately): the reading is noise; any waiting change is void.
      state = { ...state, pendingCount: null, pendingSinceMs: 0 };
    }
  }
  out.passengers = state.count;
  out.rawPassengers = raw;
  out.passengersAtLeast = Math.min(state.count ?? raw, raw);
  out.passengersAtMost = Math.max(state.count ?? raw, raw);
  out.rejected = state.count !== raw;
  out.provisional = !state.firm;
  out.boardings = boardings;
  out.boardingsNotDoorBacked = boardingsNotDoorBacked;
  return state;
}
