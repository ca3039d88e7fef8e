import type { Pack, TelemetryInput } from '@vigia/core';
import type { LatLon } from '../geo.js';
import { distanceM, normaliseDeg } from '../geo.js';
import type { Random } from '../random.js';
import type { Taximeter } from '../tariff.js';
import { GpsReceiver, round } from './gps-receiver.js';
import type { Activity, Behaviour, VehicleState } from './vehicle-state.js';

/** Longest simulation step, seconds: short enough for smooth speeds and exact stops. */
export const MAX_STEP_S = 1;
/** How often a parked vehicle (ignition off) still reports, as trackers do to save power and data. */
export const PARKED_REPORT_INTERVAL_MS = 60_000;
/** A behaviour handing back zero-length activities this many times in a row is broken. */
const MAX_EMPTY_ACTIVITIES = 1000;

export interface SimVehicleIdentity {
  vehicleId: string;
  /** What the device sends as `deviceId`: its registered identifier. */
  deviceIdentifier: string;
  pack: Pack;
  capacity: number;
}

/**
 * One simulated vehicle: its physical state, the behaviour that decides what it does next, and
 * the sensors a tracker reads (GPS with realistic error, tachograph, door and occupancy sensors,
 * the taximeter). Time only moves forward, driven from outside through `advanceTo`.
 */
export class SimVehicle {
  readonly state: VehicleState;
  private activity: Activity | undefined;
  private clockMs: number;
  private readonly gps: GpsReceiver;
  /** A tachograph reads a little off GPS, by a fixed calibration error within ±1.5 %. */
  private readonly tachoBias: number;
  private lastReportMs: number | undefined;

  constructor(
    readonly identity: SimVehicleIdentity,
    private behaviour: Behaviour,
    start: { position: LatLon; headingDeg: number; atMs: number },
    /** Noise of the simulated sensors (GPS, speed, tachograph). */
    private readonly rng: Random,
    /** The taximeter, for taxis. */
    readonly meter?: Taximeter,
    /** A tampered tachograph reads this fraction of the real speed (a vice, fleet/vices.ts); default 1. */
    private readonly tachographScale = 1,
  ) {
    this.clockMs = start.atMs;
    this.state = {
      position: start.position,
      headingDeg: start.headingDeg,
      speedMs: 0,
      ignition: true,
      doorOpen: false,
      passengers: 0,
      childrenUnder7: 0,
      boardingsSinceReport: 0,
      alightingsSinceReport: 0,
      driverId: undefined,
    };
    this.gps = new GpsReceiver(rng);
    this.tachoBias = rng.range(-0.015, 0.015);
  }

  get nowMs(): number {
    return this.clockMs;
  }

  get currentActivity(): Activity | undefined {
    return this.activity;
  }

  /**
   * Replace what the vehicle does from its next activity on (a scripted scenario taking over a
   * vehicle, for instance). The current activity is abandoned.
   */
  setBehaviour(behaviour: Behaviour): void {
    this.behaviour = behaviour;
    this.activity = undefined;
  }

  advanceTo(epochMs: number): void {
    let empty = 0;
    while (this.clockMs < epochMs - 1e-6) {
      if (!this.activity || this.activity.done) {
        const previous = this.activity;
        this.activity = this.behaviour.next({ state: this.state, nowMs: this.clockMs, previous });
      }
      const dtS = Math.min(MAX_STEP_S, (epochMs - this.clockMs) / 1000);
      const before = this.state.position;
      const used = this.activity.step(this.state, this.clockMs, dtS);
      if (used <= 0) {
        if (++empty > MAX_EMPTY_ACTIVITIES)
          throw new Error(`Vehicle ${this.identity.vehicleId}: behaviour makes no progress`);
        continue;
      }
      empty = 0;
      const moved = distanceM(before, this.state.position);
      this.clockMs += used * 1000;
      this.behaviour.afterStep?.(this.state, this.activity, this.clockMs, used, moved);
    }
  }

  /** Forget occupancy counts from before the first report (the fleet's warm-up). */
  discardPendingCounts(): void {
    this.state.boardingsSinceReport = 0;
    this.state.alightingsSinceReport = 0;
  }

  /** Whether a report is due at `nowMs`, given the normal interval between reports. */
  reportDue(nowMs: number, intervalMs: number): boolean {
    if (this.lastReportMs === undefined) return true;
    const every = this.state.ignition ? intervalMs : Math.max(intervalMs, PARKED_REPORT_INTERVAL_MS);
    return nowMs - this.lastReportMs >= every - 1;
  }

  /** The record the tracker sends now (the vehicle must have been advanced to `nowMs`). */
  report(nowMs: number): TelemetryInput {
    this.lastReportMs = nowMs;
    const s = this.state;
    const fix = this.gps.fix(s.position, nowMs);
    const speedKmh = s.speedMs > 0 ? Math.max(0, s.speedMs * 3.6 + this.rng.normal(0, 0.15)) : 0;
    const record: TelemetryInput = {
      deviceId: this.identity.deviceIdentifier,
      ts: new Date(nowMs).toISOString(),
      lat: fix.lat,
      lon: fix.lon,
      speedKmh: round(speedKmh, 1),
      headingDeg: Math.round(normaliseDeg(s.headingDeg)) % 360,
      accuracyM: fix.accuracyM,
      ignition: s.ignition,
      doorOpen: s.doorOpen,
      passengers: s.passengers,
      childrenUnder7: s.childrenUnder7,
    };
    if (this.identity.pack === 'sp-fretamento') {
      record.boardings = s.boardingsSinceReport;
      record.alightings = s.alightingsSinceReport;
    }
    s.boardingsSinceReport = 0;
    s.alightingsSinceReport = 0;
    if (this.meter) {
      const m = this.meter;
      record.meter =
        m.state === 'hired' || m.state === 'stopped'
          ? { state: m.state, tariff: m.tariff, fareCents: m.fareCents, ...(m.tripId ? { tripId: m.tripId } : {}) }
          : { state: m.state };
    }
    if (s.ignition) {
      const noise = this.rng.range(-0.004, 0.004);
      const tacho = s.speedMs > 0 ? s.speedMs * 3.6 * (1 + this.tachoBias + noise) * this.tachographScale : 0;
      record.tacho = { speedKmh: round(tacho, 1), ...(s.driverId ? { driverId: s.driverId } : {}) };
    }
    return record;
  }
}
