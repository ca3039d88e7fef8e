import type { Vices } from '../fleet/vices.js';
import { distanceM, distanceToSegmentM, type LatLon } from '../geo.js';
import type { DriverProfile } from '../motion/driver-profile.js';
import { type PlannedStop, planStops } from '../motion/planned-stops.js';
import type { TrafficConditions } from '../motion/traffic.js';
import type { RoutePath } from '../network/route-path.js';
import type { Random } from '../random.js';
import type { CharterLine, Direction } from './charter-line.js';
import { DriveActivity } from './drive-activity.js';
import { DwellActivity, type TimedAction } from './dwell-activity.js';
import type { Activity, Behaviour, BehaviourContext, VehicleState } from './vehicle-state.js';

/** Layover at each end of the line, minutes: the compressed timetable of the demo. */
const LAYOVER_MIN: readonly [number, number] = [6, 25];
/** An operator squeezing in extra trips (a vice) cuts the layovers to this share: 1–4 minutes, engine on. */
const SHORT_LAYOVER_SHARE = 0.15;
/** A layover at least this long is spent with the engine off. */
const ENGINE_OFF_LAYOVER_S = 10 * 60;
/** Share of the seats taken on a trip. */
const LOAD_FACTOR: readonly [number, number] = [0.5, 0.95];
/** Share of the seats its contract's passengers take on a bus that also sells seats at regular stops. */
const CLANDESTINE_LOAD_FACTOR: readonly [number, number] = [0.3, 0.5];
/** A regular-service stop this close to the route is one the bus can pull over at. */
const STOP_REACH_M = 20;
/** Fare-paying passengers taken on at each regular-service stop (a clandestine service, a vice). */
const BOARDINGS_AT_REGULAR_STOP: readonly [number, number] = [2, 4];
/** How long such a bus waits at a regular-service stop for its fares, door open (s). */
const PULL_OVER_WAIT_S: readonly [number, number] = [120, 200];

export interface CharterBusOptions {
  line: CharterLine;
  capacity: number;
  driverIds: readonly string[];
  profiles: ReadonlyMap<string, DriverProfile>;
  traffic: TrafficConditions;
  rng: Random;
  /** Where in the timetable the bus starts. */
  start: { direction: Direction; layoverS: number };
  /** A dishonest operator's habits (fleet/vices.ts): standing passengers, short layovers; absent: honest. */
  vices?: Vices;
  /** The city's regular-service bus stops, where a bus with the vice `boardsAtRegularStops` pulls over. */
  regularStops?: readonly LatLon[];
}

type Phase = 'layover' | 'dwell' | 'drive';

/**
 * A charter bus on fretamento contínuo. The real timetable has one trip into the business
 * district in the morning and one back in the evening; the demo compresses it into a loop — board
 * at the line's suburban places, drive the declared route, alight in the district, a short
 * layover, board there for the evening trip, alight in the suburb, layover — so that at any hour
 * some buses run loaded. Doors open only at the line's declared places, and the load never
 * exceeds the seats — unless the operator has the vice of standing passengers (fleet/vices.ts).
 */
export class CharterBusBehaviour implements Behaviour {
  private direction: Direction;
  private phase: Phase = 'layover';
  /** Index of the place the bus is at (or has just left). */
  private at = 0;
  private driverIndex = 0;
  private plannedBoardings: number[] = [];
  private firstLayoverS: number | undefined;

  constructor(private readonly o: CharterBusOptions) {
    this.direction = o.start.direction;
    this.firstLayoverS = o.start.layoverS;
  }

  private get standing(): number {
    return this.o.vices?.overload ?? 0;
  }

  get currentDirection(): Direction {
    return this.direction;
  }

  next(ctx: BehaviourContext): Activity {
    const { state } = ctx;
    if (state.driverId === undefined) state.driverId = this.o.driverIds[this.driverIndex];
    const places = this.o.line.places[this.direction];
    switch (this.phase) {
      case 'layover':
        if (this.firstLayoverS !== undefined) {
          const s = this.firstLayoverS;
          this.firstLayoverS = undefined;
          return this.layover(state, s);
        }
        this.at = 0;
        this.planTrip();
        return this.dwell(state);
      case 'dwell':
        if (this.at >= places.length - 1) {
          this.direction = this.direction === 'morning' ? 'evening' : 'morning';
          const minutes = this.o.rng.range(LAYOVER_MIN[0], LAYOVER_MIN[1]);
          return this.layover(state, minutes * 60 * (this.o.vices?.shortLayovers ? SHORT_LAYOVER_SHARE : 1));
        }
        return this.drive(state);
      case 'drive':
        this.at++;
        return this.dwell(state);
    }
  }

  private planTrip(): void {
    const rng = this.o.rng;
    const boarding = this.o.line.boardingPlaces[this.direction];
    // A bus running a clandestine service leaves with seats to sell at the regular stops on its way.
    const load = this.o.vices?.boardsAtRegularStops ? CLANDESTINE_LOAD_FACTOR : LOAD_FACTOR;
    const seated = Math.round(this.o.capacity * rng.range(load[0], load[1]));
    // An overloading operator fills every seat and then some.
    const total = this.standing > 0 ? this.o.capacity + this.standing : seated;
    const weights = Array.from({ length: boarding }, () => rng.range(0.5, 1.5));
    const sum = weights.reduce((a, b) => a + b, 0);
    const counts = weights.map((w) => Math.floor((total * w) / sum));
    counts[0] = (counts[0] ?? 0) + total - counts.reduce((a, b) => a + b, 0);
    this.plannedBoardings = counts;
  }

  private layover(state: VehicleState, durationS: number): Activity {
    this.phase = 'layover';
    const actions: TimedAction[] = [];
    if (durationS >= ENGINE_OFF_LAYOVER_S) {
      actions.push({ atS: 60, apply: (s) => (s.ignition = false) });
      // Relief driver, if the bus has two: the card changes while the engine is off.
      if (this.o.driverIds.length > 1 && this.o.rng.chance(0.5)) {
        this.driverIndex = (this.driverIndex + 1) % this.o.driverIds.length;
        const next = this.o.driverIds[this.driverIndex];
        actions.push({ atS: 120, apply: (s) => (s.driverId = next) });
      }
      actions.push({ atS: durationS - 90, apply: (s) => (s.ignition = true) });
    } else {
      state.ignition = true;
    }
    return new DwellActivity('layover', durationS, actions);
  }

  private dwell(state: VehicleState): Activity {
    this.phase = 'dwell';
    state.ignition = true;
    const rng = this.o.rng;
    const places = this.o.line.places[this.direction];
    const boardingPlaces = this.o.line.boardingPlaces[this.direction];
    const isBoarding = this.at < boardingPlaces;
    const doorOpensS = rng.range(2, 5);
    const actions: TimedAction[] = [{ atS: doorOpensS, apply: (s) => (s.doorOpen = true) }];
    let t = doorOpensS + rng.range(2, 4);
    if (isBoarding) {
      const wanted = this.plannedBoardings[this.at] ?? 0;
      for (let i = 0; i < wanted; i++) {
        actions.push({
          atS: t,
          apply: (s) => {
            // A full coach boards nobody else: seats only (Art. 16 sole paragraph, Art. 22 I).
            if (s.passengers >= this.o.capacity + this.standing) return;
            s.passengers++;
            s.boardingsSinceReport++;
          },
        });
        t += rng.range(2, 4);
      }
    } else {
      const remainingPlaces = places.length - this.at;
      const last = remainingPlaces === 1;
      const share = last ? 1 : rng.range(0.3, 0.6);
      const wanted = last ? state.passengers : Math.round(state.passengers * share);
      for (let i = 0; i < wanted; i++) {
        actions.push({
          atS: t,
          apply: (s) => {
            if (s.passengers <= 0) return;
            s.passengers--;
            s.alightingsSinceReport++;
          },
        });
        t += rng.range(1.5, 3);
      }
    }
    const doorClosesS = t + rng.range(3, 8);
    actions.push({ atS: doorClosesS, apply: (s) => (s.doorOpen = false) });
    return new DwellActivity(isBoarding ? 'boarding' : 'alighting', doorClosesS + rng.range(3, 10), actions);
  }

  private drive(state: VehicleState): Activity {
    this.phase = 'drive';
    const leg = this.o.line.legs[this.direction][this.at];
    if (!leg) throw new Error(`Charter line ${this.o.line.def.id}: no leg ${this.at} (${this.direction})`);
    const profile = this.o.profiles.get(state.driverId ?? '') ?? [...this.o.profiles.values()][0];
    if (!profile) throw new Error(`Charter bus on ${this.o.line.def.id} has no driver profile`);
    return new DriveActivity(leg, profile, this.o.traffic, this.stopsOn(leg));
  }

  /**
   * The halts of a leg: lights and jams, and — for a bus running a clandestine service — a pull-over
   * at each regular-service stop on it, door open, boarding a few passengers while seats are free.
   */
  private stopsOn(leg: RoutePath): PlannedStop[] {
    const planned = planStops(leg, this.o.rng);
    if (!this.o.vices?.boardsAtRegularStops) return planned;
    const pullOvers = (this.o.regularStops ?? []).flatMap((stop) => {
      const s = positionAlong(leg, stop);
      return s === undefined || s < 30 || s > leg.lengthM - 30 ? [] : [this.pullOver(s)];
    });
    if (pullOvers.length === 0) return planned;
    const clear = planned.filter((p) => pullOvers.every((q) => Math.abs(p.s - q.s) > 40));
    return [...clear, ...pullOvers].sort((a, b) => a.s - b.s);
  }

  private pullOver(s: number): PlannedStop {
    const rng = this.o.rng;
    const actions: TimedAction[] = [{ atS: rng.range(2, 4), apply: (st) => (st.doorOpen = true) }];
    // The bus waits at the stop for its fares, taking them on as they come: minutes, not seconds.
    const waitS = rng.range(PULL_OVER_WAIT_S[0], PULL_OVER_WAIT_S[1]);
    const wanted = Math.round(rng.range(BOARDINGS_AT_REGULAR_STOP[0], BOARDINGS_AT_REGULAR_STOP[1]));
    for (let i = 0; i < wanted; i++) {
      actions.push({
        atS: 8 + ((waitS - 20) * i) / Math.max(1, wanted - 1),
        apply: (st) => {
          if (st.passengers >= this.o.capacity + this.standing) return;
          st.passengers++;
          st.boardingsSinceReport++;
        },
      });
    }
    actions.push({ atS: waitS, apply: (st) => (st.doorOpen = false) });
    return { s, durationS: waitS + rng.range(5, 10), kind: 'halt', actions };
  }
}

/** Distance along `path` (m) of the point nearest `p`, if `p` is within STOP_REACH_M of it. */
function positionAlong(path: RoutePath, p: LatLon): number | undefined {
  let best: { d: number; s: number } | undefined;
  for (let i = 1; i < path.points.length; i++) {
    const a = path.points[i - 1] as LatLon;
    const b = path.points[i] as LatLon;
    const d = distanceToSegmentM(p, a, b);
    if (d > STOP_REACH_M || (best && best.d <= d)) continue;
    const fromA = Math.sqrt(Math.max(0, distanceM(a, p) ** 2 - d * d));
    best = { d, s: (path.cumM[i - 1] as number) + Math.min(fromA, distanceM(a, b)) };
  }
  return best?.s;
}
