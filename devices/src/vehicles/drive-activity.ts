import type { DriverProfile } from '../motion/driver-profile.js';
import type { PlannedStop } from '../motion/planned-stops.js';
import type { TrafficConditions } from '../motion/traffic.js';
import type { RoutePath } from '../network/route-path.js';
import type { Activity, VehicleState } from './vehicle-state.js';

/** Below this turn angle at a vertex nobody slows down, degrees. */
const GENTLE_TURN_DEG = 25;
/** Speed through a sharp turn (≥ 75°), m/s; gentler turns interpolate up to free flow. */
const SHARP_TURN_MS = 20 / 3.6;
/** How far ahead a driver reads the road for speed changes, metres (beyond any braking distance). */
const LOOKAHEAD_M = 400;
/** Within this distance of a stop point, a slow vehicle is considered to have reached it. */
const ARRIVAL_TOLERANCE_M = 1;

/**
 * Driving a route with a longitudinal model: accelerate towards the cruising speed of each road
 * class (scaled by traffic), brake comfortably ahead of slower stretches, sharp turns, lights and
 * jams, and come to rest at the end. Integrated with the trapezoid rule, so the distance covered
 * in a step always agrees with the speeds at its ends.
 */
export class DriveActivity implements Activity {
  readonly kind = 'drive';
  /** Distance along the route, metres. */
  private s = 0;
  private nextStop = 0;
  private haltRemainingS = 0;
  /** The next of the current stop's actions to apply. */
  private haltAction = 0;
  private finished = false;
  /** Current speed, m/s. */
  private speed: number;
  /** The stop the vehicle is standing at, while it stands. */
  current: PlannedStop | undefined;

  constructor(
    private route: RoutePath,
    private readonly profile: DriverProfile,
    private readonly traffic: TrafficConditions,
    private stops: readonly PlannedStop[],
    /** Speed at the start, m/s (a vehicle already rolling keeps its speed). */
    initialSpeedMs = 0,
  ) {
    this.speed = initialSpeedMs;
  }

  get done(): boolean {
    return this.finished;
  }

  /** The route driven (shorter than planned once `endSoon` cut it). */
  get path(): RoutePath {
    return this.route;
  }

  /**
   * End the drive at the first vertex ahead that the vehicle can stop at with comfortable braking
   * (a taxi called away by the radio mid-route). Returns the graph node it will stop at.
   */
  endSoon(): number | undefined {
    if (this.finished) return this.route.endNode;
    const brakingM = (this.speed * this.speed) / (2 * this.profile.brakeMs2) + 5;
    const vertex = this.route.segmentAt(this.s + brakingM) + 1;
    if (vertex < this.route.points.length - 1) {
      this.route = this.route.truncate(vertex);
      const end = this.route.lengthM;
      this.stops = this.stops.filter((stop, i) => i < this.nextStop || stop.s < end);
    }
    return this.route.endNode;
  }

  get distanceM(): number {
    return this.s;
  }

  /** Seconds the vehicle has been standing at the current stop. */
  get haltedForS(): number {
    return this.current ? this.current.durationS - this.haltRemainingS : 0;
  }

  step(state: VehicleState, nowMs: number, dtS: number): number {
    if (this.finished) return 0;
    const traffic = this.traffic.step(nowMs, dtS);
    const yieldShare = this.profile.trafficYield;
    const trafficFactor = yieldShare === undefined ? traffic : 1 - (1 - traffic) * yieldShare;
    if (this.current) {
      const used = Math.min(dtS, this.haltRemainingS);
      this.haltRemainingS -= used;
      this.place(state, 0);
      const done = this.haltRemainingS <= 1e-9;
      this.applyHaltActions(state, done ? Number.POSITIVE_INFINITY : this.haltedForS);
      if (done) {
        this.current = undefined;
        this.nextStop++;
      }
      return used;
    }

    const stop = this.stops[this.nextStop];
    const target = stop ? stop.s : this.route.lengthM;
    const toTarget = target - this.s;
    const wanted = Math.min(
      this.cruiseAt(this.s) * trafficFactor,
      this.brakingLimit(toTarget, 0),
      this.lookaheadLimit(),
    );
    const accel = Math.max(-this.profile.brakeMs2 * 1.6, Math.min(this.profile.accelMs2, (wanted - this.speed) / dtS));
    const nextSpeed = Math.max(0, this.speed + accel * dtS);
    let moved = ((this.speed + nextSpeed) / 2) * dtS;

    if (moved >= toTarget - ARRIVAL_TOLERANCE_M && (nextSpeed < 3 || moved >= toTarget)) {
      moved = Math.max(0, toTarget);
      this.s = target;
      this.speed = 0;
      if (stop) {
        this.current = stop;
        this.haltRemainingS = stop.durationS;
        this.haltAction = 0;
      } else {
        this.finished = true;
      }
      this.place(state, 0);
      return dtS;
    }

    this.s += moved;
    this.speed = nextSpeed;
    this.place(state, nextSpeed);
    return dtS;
  }

  /** The current stop's actions due by `haltedS` (all that are left when the stop ends). */
  private applyHaltActions(state: VehicleState, haltedS: number): void {
    const actions = this.current?.actions ?? [];
    for (let next = actions[this.haltAction]; next && next.atS <= haltedS; next = actions[this.haltAction]) {
      next.apply(state);
      this.haltAction++;
    }
  }

  private place(state: VehicleState, speedMs: number): void {
    const at = this.route.locate(this.s);
    state.position = at.point;
    if (speedMs > 0 || this.s === 0) state.headingDeg = at.headingDeg;
    state.speedMs = speedMs;
  }

  private cruiseAt(s: number): number {
    const seg = this.route.segmentAt(s);
    return this.profile.cruiseMs[this.route.segmentClass[seg] ?? 'arterial'];
  }

  /** The fastest one may go now and still stop (or slow to `vEnd`) `distance` metres ahead. */
  private brakingLimit(distance: number, vEnd: number): number {
    const d = Math.max(0, distance - ARRIVAL_TOLERANCE_M / 2);
    // A crawl of at most 2 m/s lets the vehicle close the last metres instead of stalling short.
    return Math.max(Math.min(2, d), Math.sqrt(vEnd * vEnd + 2 * this.profile.brakeMs2 * d));
  }

  /** Slower road classes and sharp turns ahead, within reading distance. */
  private lookaheadLimit(): number {
    let limit = Number.POSITIVE_INFINITY;
    const path = this.route;
    for (let i = path.segmentAt(this.s) + 1; i < path.points.length - 1; i++) {
      const ahead = (path.cumM[i] as number) - this.s;
      if (ahead > LOOKAHEAD_M) break;
      const nextClassCruise = this.profile.cruiseMs[path.segmentClass[i] ?? 'arterial'];
      const turn = path.turnAt(i);
      const turnCap =
        turn <= GENTLE_TURN_DEG
          ? Number.POSITIVE_INFINITY
          : SHARP_TURN_MS + (nextClassCruise - SHARP_TURN_MS) * Math.max(0, (75 - turn) / (75 - GENTLE_TURN_DEG));
      const cap = Math.min(nextClassCruise, turnCap);
      if (Number.isFinite(cap)) limit = Math.min(limit, this.brakingLimit(ahead, cap));
    }
    return limit;
  }
}
