import type { Vices } from '../fleet/vices.js';
import { distanceM, type LatLon } from '../geo.js';
import { localTime } from '../local-time.js';
import type { DriverProfile } from '../motion/driver-profile.js';
import { planStops } from '../motion/planned-stops.js';
import type { TrafficConditions } from '../motion/traffic.js';
import type { RoadGraph, SnappedPlace } from '../network/graph.js';
import type { RoutePath } from '../network/route-path.js';
import type { CityDef } from '../network/types.js';
import type { Random } from '../random.js';
import { driverTariff, type Tariff, type Taximeter, type TaxiPack } from '../tariff.js';
import { DriveActivity } from './drive-activity.js';
import { DwellActivity } from './dwell-activity.js';
import { activeShift, type Shift } from './shift-plan.js';
import { StandWaitActivity } from './stand-wait-activity.js';
import type { TaxiStand } from './taxi-stand.js';
import type { Activity, Behaviour, BehaviourContext, VehicleState } from './vehicle-state.js';

/** What all the taxis of one city share: its roads and its stands' queues. */
export interface TaxiWorld {
  city: CityDef;
  graph: RoadGraph;
  stands: readonly TaxiStand[];
}

/**
 * Trips are kept within what DF_DETOUR / BEL_DETOUR accept (road distance at most 1.8 times the
 * straight line, or at most 3 km longer): the simulated network holds only major roads, and a
 * trip it could only serve by a long way round is one a real taxi would make on side streets.
 */
export const MAX_TRIP_DETOUR_RATIO = 1.6;
export const MAX_TRIP_DETOUR_EXTRA_M = 2500;
export const MIN_TRIP_M = 1500;

/** Typical length of a booked ride, straight line: longer ones are rarer (across town, seldom across the region). */
const TYPICAL_BOOKED_TRIP_M = 5000;

/**
 * Where a booked passenger goes: a named place at least the shortest trip away and within the
 * detour tolerance on the network (as street trips), nearer ones likelier; undefined when none is
 * found in a few draws.
 */
export function bookedTripDestination(graph: RoadGraph, fromNode: number, rng: Random): SnappedPlace | undefined {
  const from = graph.node(fromNode);
  const places = [...graph.places.values()].filter((p) => p.kind !== 'stand' && p.node !== fromNode);
  if (places.length === 0) return undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    const p = rng.weighted(places, (c) => {
      const d = distanceM(from, graph.node(c.node)) / TYPICAL_BOOKED_TRIP_M;
      return (c.weight ?? 1) / (1 + d * d);
    });
    const straight = distanceM(from, graph.node(p.node));
    if (straight < MIN_TRIP_M) continue;
    const path = graph.route(fromNode, p.node);
    if (path && withinDetourTolerance(path.lengthM, straight)) return p;
  }
  return undefined;
}

/** Whether a trip of `roadM` between points `straightM` apart is within the detour tolerance. */
export function withinDetourTolerance(roadM: number, straightM: number): boolean {
  return roadM <= straightM * MAX_TRIP_DETOUR_RATIO || roadM - straightM <= MAX_TRIP_DETOUR_EXTRA_M;
}
/** Mean distance a free taxi cruises before someone hails it on the street. */
const MEAN_CRUISE_BEFORE_HAIL_M = 9000;
/** The same for a driver who works the street rather than the stands (a vice, fleet/vices.ts). */
const STREET_CRUISE_BEFORE_HAIL_M = 2500;
/** No street hail this close to a stand: there the queue rules apply. */
const NO_HAIL_NEAR_STAND_M = 250;
/** Share of long jam halts in which the driver pauses the meter. */
const PAUSE_METER_IN_JAM = 0.25;

type Phase =
  | 'parked'
  | 'going-home'
  | 'starting'
  | 'cruising'
  | 'waiting'
  | 'boarding'
  | 'hired'
  | 'paying'
  | 'alighting'
  // A booking the taxi accepted over the radio (dispatch/): driving to the pickup, waiting there.
  | 'to-pickup'
  | 'at-pickup';

/** Phases in which the taxi is free and on the road: it may take a booking. */
const BOOKABLE_PHASES: ReadonlySet<Phase> = new Set(['starting', 'cruising', 'waiting']);
/** Phases in which a booking the taxi accepted may start (the activity under way ends first). */
const JOB_START_PHASES: ReadonlySet<Phase> = new Set(['starting', 'cruising', 'waiting', 'alighting']);
/** Phases in which the taxi is not free: a passenger aboard, or one waiting for it. */
const BUSY_PHASES: ReadonlySet<Phase> = new Set(['boarding', 'hired', 'paying', 'to-pickup', 'at-pickup']);

/** A booking the taxi accepted: where the passenger waits, and where to, when they said. */
export interface DispatchJob {
  bookingId: string;
  pickup: LatLon;
  dropoff?: LatLon;
  /** Passengers the booking announced. */
  passengers?: number;
}

export interface TaxiOptions {
  vehicleId: string;
  /** Prefix of trip ids, e.g. the device identifier. */
  tripPrefix: string;
  pack: TaxiPack;
  capacity: number;
  world: TaxiWorld;
  meter: Taximeter;
  shifts: readonly Shift[];
  profiles: ReadonlyMap<string, DriverProfile>;
  traffic: TrafficConditions;
  rng: Random;
  /** The graph node the taxi starts at. */
  startNode: number;
  /** Where the taxi is parked off shift (away from the stands); default: where it starts. */
  homeNode?: number;
  /** A dishonest driver's habits (fleet/vices.ts); absent: honest. */
  vices?: Vices;
}

/**
 * A taxi's working day as a state machine: free (cruising to a stand, queueing there, or hailed
 * on the way) → boarding (door, passengers, meter to hired at the driver's bandeira) → driving
 * the shortest route → paying (meter paused) → alighting (door) → free again. Outside its
 * drivers' shifts the taxi stays parked with the ignition off.
 */
export class TaxiBehaviour implements Behaviour {
  private phase: Phase = 'parked';
  private node: number;
  private tripCount = 0;
  private hailed = false;
  private lastStand: TaxiStand | undefined;
  private pausedStop: unknown;
  private decidedStop: unknown;
  /** The activity last handed out, so a booking can cut it short. */
  private current: Activity | undefined;
  /** A booking accepted, not yet started (the activity under way ends first). */
  private job: DispatchJob | undefined;
  /** The booking being served, from the drive to the pickup until the passenger is out. */
  private trip: DispatchJob | undefined;
  /** The cruise was cut short by a booking that was then called off: cruise on from where it stopped. */
  private redirected = false;

  constructor(private readonly o: TaxiOptions) {
    this.node = o.startNode;
  }

  /** The booking the taxi has accepted or is serving, if any. */
  get bookingId(): string | undefined {
    return (this.job ?? this.trip)?.bookingId;
  }

  /** Whether the driver can take a booking now: on shift, free, on the road, not already booked. */
  canTakeBooking(nowMs: number): boolean {
    return (
      this.job === undefined &&
      this.trip === undefined &&
      BOOKABLE_PHASES.has(this.phase) &&
      activeShift(this.o.shifts, nowMs, this.o.world.city.timeZone) !== undefined
    );
  }

  /**
   * The driver accepted a booking: leave the stand's queue, or stop cruising at the next place the
   * car can pull up, then drive to the pickup. No street hail is taken meanwhile. Returns false
   * when the taxi cannot take it.
   */
  acceptBooking(job: DispatchJob, nowMs: number): boolean {
    if (!this.canTakeBooking(nowMs)) return false;
    this.job = job;
    this.cutShort();
    return true;
  }

  /**
   * The booking was called off (cancelled, or given to another taxi) before the passenger got in:
   * the taxi goes back to work. Returns whether the taxi was serving it.
   */
  dropBooking(bookingId: string): boolean {
    if (this.job?.bookingId === bookingId) {
      this.job = undefined;
      if (this.phase === 'cruising') this.redirected = true;
      return true;
    }
    if (this.trip?.bookingId === bookingId && (this.phase === 'to-pickup' || this.phase === 'at-pickup')) {
      this.trip = undefined;
      this.cutShort();
      return true;
    }
    return false;
  }

  private cutShort(): void {
    const current = this.current;
    if (current instanceof StandWaitActivity) current.leaveForBooking();
    else if (current instanceof DriveActivity && (this.phase === 'cruising' || this.phase === 'to-pickup')) {
      const end = current.endSoon();
      if (end !== undefined) this.node = end;
      this.hailed = false;
    }
  }

  next(ctx: BehaviourContext): Activity {
    this.current = this.decide(ctx);
    return this.current;
  }

  private decide(ctx: BehaviourContext): Activity {
    const { state, nowMs, previous } = ctx;
    const shift = activeShift(this.o.shifts, nowMs, this.o.world.city.timeZone);
    const free = !BUSY_PHASES.has(this.phase);

    if (this.job && JOB_START_PHASES.has(this.phase)) return this.driveToPickup(state);
    if (this.phase === 'alighting') this.trip = undefined;
    if (free && !shift) return this.park(state);
    if ((this.phase === 'parked' || this.phase === 'going-home') && shift) return this.startShift(state, shift);

    switch (this.phase) {
      case 'starting':
      case 'alighting':
        return this.cruiseToStand(state, nowMs, undefined);
      case 'cruising':
        if (this.hailed) return this.board(nowMs);
        if (this.redirected) {
          this.redirected = false;
          return this.cruiseToStand(state, nowMs, undefined);
        }
        return this.arriveAtStand(state, nowMs, shift);
      case 'waiting': {
        const wait = previous instanceof StandWaitActivity ? previous : undefined;
        if (wait?.outcome === 'passenger') return this.board(nowMs);
        return this.cruiseToStand(state, nowMs, wait?.stand);
      }
      case 'boarding':
        return this.driveToDestination(state, nowMs);
      case 'hired':
        return this.pay(state);
      case 'paying':
        return this.alight(state);
      case 'to-pickup':
        return this.trip ? this.waitAtPickup() : this.cruiseToStand(state, nowMs, undefined);
      case 'at-pickup':
        return this.trip ? this.board(nowMs) : this.cruiseToStand(state, nowMs, undefined);
      case 'parked':
      case 'going-home':
        return this.park(state);
    }
  }

  /** To the road vertex nearest the pickup (the generator's pickups are on one). */
  private driveToPickup(state: VehicleState): Activity {
    const job = this.job as DispatchJob;
    this.job = undefined;
    this.trip = job;
    this.phase = 'to-pickup';
    this.hailed = false;
    this.redirected = false;
    const target = this.o.world.graph.nearestNode(job.pickup).node;
    const path = this.o.world.graph.route(this.node, target);
    if (!path) return this.waitAtPickup();
    this.node = target;
    return this.drive(path, state);
  }

  /** At the pickup, engine running, meter free, until the passenger comes out. */
  private waitAtPickup(): Activity {
    this.phase = 'at-pickup';
    // The caller has been ready since the call and was told the taxi's arrival time: out of the
    // door within half a minute of it.
    return new DwellActivity('pickup-wait', this.o.rng.range(10, 30));
  }

  afterStep(state: VehicleState, current: Activity, nowMs: number, dtS: number, movedM: number): void {
    const meter = this.o.meter;
    if (meter.state !== 'hired' && meter.state !== 'stopped') return;
    // The bandeira follows the clock from the moment the meter runs, boarding included.
    if (this.phase === 'hired' || this.phase === 'boarding') meter.tariff = this.tariff(nowMs);
    if (current instanceof DriveActivity) {
      const stop = current.current;
      if (stop && stop.kind === 'halt' && stop.durationS >= 20 && this.decidedStop !== stop) {
        this.decidedStop = stop;
        if (this.o.rng.chance(PAUSE_METER_IN_JAM)) {
          meter.pause();
          this.pausedStop = stop;
        }
      } else if (!stop && this.pausedStop !== undefined) {
        meter.resume();
        this.pausedStop = undefined;
      }
    }
    meter.charge(movedM, dtS, state.speedMs);
  }

  private park(state: VehicleState): Activity {
    // At the end of a shift the driver takes the car home, meter off, rather than leave it at a
    // stand or in the street where the shift ended.
    const home = this.o.homeNode ?? this.o.startNode;
    if (this.phase !== 'parked' && this.phase !== 'going-home' && this.node !== home) {
      const path = this.o.world.graph.route(this.node, home);
      if (path) {
        this.phase = 'going-home';
        this.o.meter.switchOff();
        this.node = home;
        return this.drive(path, state);
      }
    }
    // (A taxi that starts the simulation parked has its engine off too.)
    if (this.phase !== 'parked' || state.ignition) {
      this.phase = 'parked';
      state.ignition = false;
      state.driverId = undefined;
      this.o.meter.switchOff();
    }
    // Re-check the shift plan every five minutes.
    return new DwellActivity('parked', 300);
  }

  private startShift(state: VehicleState, shift: Shift): Activity {
    this.phase = 'starting';
    state.ignition = true;
    state.driverId = shift.driverId;
    this.o.meter.switchOn();
    return new DwellActivity('starting', this.o.rng.range(30, 120));
  }

  private drive(path: RoutePath, state: VehicleState): DriveActivity {
    const driver = state.driverId ?? '';
    const profile = this.o.profiles.get(driver) ?? [...this.o.profiles.values()][0];
    if (!profile) throw new Error(`Taxi ${this.o.vehicleId} has no driver profile`);
    return new DriveActivity(path, profile, this.o.traffic, planStops(path, this.o.rng));
  }

  private cruiseToStand(state: VehicleState, nowMs: number, avoid: TaxiStand | undefined): Activity {
    this.phase = 'cruising';
    this.hailed = false;
    const stand = this.chooseStand(avoid);
    this.lastStand = stand;
    let path = this.o.world.graph.route(this.node, stand.place.node);
    if (!path) {
      // Already at the stand's node: queue right away.
      return this.arriveAtStand(state, nowMs, activeShift(this.o.shifts, nowMs, this.o.world.city.timeZone));
    }
    const street = this.o.vices?.worksTheStreet ?? false;
    const hailAt = this.o.rng.exponential(street ? STREET_CRUISE_BEFORE_HAIL_M : MEAN_CRUISE_BEFORE_HAIL_M);
    if (hailAt < path.lengthM - 300) {
      const vertex = path.segmentAt(hailAt) + 1;
      const p = path.points[vertex];
      if (p && vertex > 0 && !this.nearAnyStand(p)) {
        path = path.truncate(vertex);
        this.hailed = true;
      }
    }
    this.node = path.endNode ?? stand.place.node;
    return this.drive(path, state);
  }

  private arriveAtStand(state: VehicleState, nowMs: number, shift: Shift | undefined): Activity {
    const stand = this.lastStand;
    if (!stand?.hasRoom()) return this.cruiseToStand(state, nowMs, stand);
    this.phase = 'waiting';
    // A street worker only looks in at a stand on the way.
    const patienceMs = this.o.rng.range(20, 45) * (this.o.vices?.worksTheStreet ? 4_000 : 60_000);
    const shiftEndMs = shift ? this.shiftEndMs(shift, nowMs) : nowMs;
    return new StandWaitActivity(stand, this.o.vehicleId, Math.min(nowMs + patienceMs, shiftEndMs));
  }

  private board(nowMs: number): Activity {
    this.phase = 'boarding';
    const rng = this.o.rng;
    const adults = this.trip?.passengers ?? rng.weighted([1, 2, 3, 4], (n) => [0.55, 0.28, 0.12, 0.05][n - 1] ?? 0);
    const party = this.partySize(adults);
    const children = party >= 2 && rng.chance(0.15) ? 1 : 0;
    const doorOpensS = rng.range(1, 3);
    const boardedS = doorOpensS + rng.range(4, 10);
    const doorClosesS = boardedS + rng.range(2, 6);
    this.tripCount++;
    const tripId = `${this.o.tripPrefix}-T${String(this.tripCount).padStart(5, '0')}`;
    return new DwellActivity('boarding', doorClosesS + rng.range(2, 5), [
      { atS: doorOpensS, apply: (s) => (s.doorOpen = true) },
      {
        atS: boardedS,
        apply: (s) => {
          s.passengers = party;
          s.childrenUnder7 = children;
        },
      },
      { atS: doorClosesS, apply: (s) => (s.doorOpen = false) },
      // The meter starts once the passenger is seated and the door shut (DF Art. 37 g).
      {
        atS: doorClosesS + 1,
        apply: () => {
          // A booked ride is on the cooperative's record: even a driver who rides without the meter runs it.
          if (!this.o.vices?.rideWithoutMeter || this.trip)
            this.o.meter.hire(tripId, this.tariff(nowMs + (doorClosesS + 1) * 1000));
        },
      },
    ]);
  }

  /** Who gets in: the party, within the car's capacity — or, for an overloading driver, beyond it. */
  private partySize(adults: number): number {
    const overload = this.o.vices?.overload ?? 0;
    return overload > 0 ? this.o.capacity + overload : Math.min(this.o.capacity, adults);
  }

  /** The bandeira the driver sets: the hour's, or Bandeira II at any hour for a cheating one. */
  private tariff(epochMs: number): Tariff {
    return this.o.vices?.bandeira2Always ? 2 : driverTariff(this.o.pack, epochMs);
  }

  private driveToDestination(state: VehicleState, _nowMs: number): Activity {
    this.phase = 'hired';
    const wanted = this.trip?.dropoff ? this.tripTo(this.trip.dropoff) : undefined;
    if (wanted) {
      this.node = wanted.endNode ?? this.node;
      return this.drive(wanted, state);
    }
    // A booked passenger who named no destination says it on board.
    const dest =
      (this.trip ? bookedTripDestination(this.o.world.graph, this.node, this.o.rng) : undefined) ??
      this.chooseDestination();
    const path = this.o.world.graph.route(this.node, dest.node);
    if (!path) throw new Error(`No route for taxi ${this.o.vehicleId} to ${dest.id}`);
    this.node = dest.node;
    return this.drive(path, state);
  }

  private pay(_state: VehicleState): Activity {
    this.phase = 'paying';
    this.o.meter.pause();
    return new DwellActivity('paying', this.o.rng.range(15, 45));
  }

  private alight(_state: VehicleState): Activity {
    this.phase = 'alighting';
    const rng = this.o.rng;
    const doorOpensS = rng.range(1, 3);
    const outS = doorOpensS + rng.range(3, 8);
    const doorClosesS = outS + rng.range(2, 5);
    return new DwellActivity('alighting', doorClosesS + rng.range(2, 6), [
      { atS: doorOpensS, apply: (s) => (s.doorOpen = true) },
      {
        atS: outS,
        apply: (s) => {
          s.passengers = 0;
          s.childrenUnder7 = 0;
        },
      },
      { atS: doorClosesS, apply: (s) => (s.doorOpen = false) },
      { atS: doorClosesS + 1, apply: () => this.o.meter.release() },
    ]);
  }

  private chooseStand(avoid: TaxiStand | undefined): TaxiStand {
    const here = this.o.world.graph.node(this.node);
    const candidates = this.o.world.stands
      .filter((s) => s !== avoid && s.hasRoom())
      .map((s) => ({ s, d: distanceM(here, this.o.world.graph.node(s.place.node)) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 3);
    if (candidates.length === 0) {
      const others = this.o.world.stands.filter((s) => s !== avoid);
      return this.o.rng.pick(others.length > 0 ? others : this.o.world.stands);
    }
    return this.o.rng.weighted(candidates, (c) => c.s.places / (1 + c.d / 2000)).s;
  }

  /**
   * The route to where a booked passenger asked to go, when the network serves it within the
   * detour tolerance (else the driver picks a lawful destination, as on a street hail).
   */
  private tripTo(dropoff: LatLon): RoutePath | undefined {
    const graph = this.o.world.graph;
    const target = graph.nearestNode(dropoff).node;
    const path = graph.route(this.node, target);
    if (!path) return undefined;
    const straight = distanceM(graph.node(this.node), graph.node(target));
    return straight >= MIN_TRIP_M && withinDetourTolerance(path.lengthM, straight) ? path : undefined;
  }

  private chooseDestination(): SnappedPlace {
    const graph = this.o.world.graph;
    const here = graph.node(this.node);
    const candidates = [...graph.places.values()].filter((p) => p.kind !== 'stand' && p.node !== this.node);
    for (let attempt = 0; attempt < 25; attempt++) {
      const p = this.o.rng.weighted(candidates, (c) => c.weight ?? 1);
      const straight = distanceM(here, graph.node(p.node));
      if (straight < MIN_TRIP_M) continue;
      const path = graph.route(this.node, p.node);
      if (!path) continue;
      if (withinDetourTolerance(path.lengthM, straight)) return p;
    }
    // Fall back to the nearest reachable place far enough away.
    const byDistance = candidates
      .map((p) => ({ p, d: distanceM(here, graph.node(p.node)) }))
      .filter((c) => c.d >= MIN_TRIP_M)
      .sort((a, b) => a.d - b.d);
    const first = byDistance[0] ?? { p: candidates[0] };
    if (!first.p) throw new Error(`No destination for taxi ${this.o.vehicleId}`);
    return first.p;
  }

  private nearAnyStand(p: { lat: number; lon: number }): boolean {
    return this.o.world.stands.some((s) => distanceM(p, this.o.world.graph.node(s.place.node)) < NO_HAIL_NEAR_STAND_M);
  }

  private shiftEndMs(shift: Shift, nowMs: number): number {
    const minute = localTime(nowMs, this.o.world.city.timeZone).minuteOfDay;
    const since = (minute - shift.startMinute + 1440) % 1440;
    return nowMs + Math.max(0, shift.lengthMinutes - since) * 60_000;
  }
}
