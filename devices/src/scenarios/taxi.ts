import type { Pack } from '@vigia/core';
import type { LatLon } from '../geo.js';
import { offsetM } from '../geo.js';
import { RegistryBuilder } from './registry.js';
import { site, square } from './sites.js';
import { describeLocal, localInstantMs } from './time.js';
import { inTimeOrder, Trace } from './trace.js';
import type { BuildContext, ScenarioPlan } from './types.js';

/** Building blocks of the taxi scenarios (DF and Belém). */

export interface TripOptions {
  pack: Pack;
  site: number;
  /** Local date and time the trip starts. */
  date: (ctx: BuildContext) => string;
  time: string;
  tariff: 1 | 2;
  passengers: number;
  /** Legs driven while hired: [metres, bearing]. */
  legs: [number, number][];
  speedKmh?: number;
  vehicle?: Record<string, unknown>;
  fareCents?: number;
  driverId?: string;
  /** Registry additions (drivers ...), given the builder and the vehicle id. */
  extra?: (reg: RegistryBuilder) => Record<string, unknown>;
}

/** A hailed trip: 20 s free, hired over the legs, then the meter back to free for a minute. */
export function taxiTrip(ctx: BuildContext, o: TripOptions): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const more = o.extra?.(reg) ?? {};
  const { vehicleId, deviceId } = reg.vehicle('taxi', o.pack, { ...o.vehicle, ...more });
  const start = localInstantMs(o.date(ctx), o.time);
  const tripId = `trip-${ctx.runId}`;
  const tacho = o.driverId ? { tacho: { driverId: o.driverId } } : {};
  const t = new Trace(deviceId, start - 20_000, site(o.pack, o.site), {
    passengers: 0,
    meter: { state: 'free', tariff: 1 },
    ...tacho,
  });
  t.emit().stay(15);
  t.wait(5).set({
    passengers: o.passengers,
    meter: { state: 'hired', tariff: o.tariff, fareCents: 500, tripId },
  });
  t.emit();
  for (const [metres, bearing] of o.legs) t.driveMetres(metres, o.speedKmh ?? 36, bearing);
  t.stay(10).set({
    meter: { state: 'stopped', tariff: o.tariff, fareCents: o.fareCents ?? 1500, tripId },
  });
  t.stay(10);
  t.set({ passengers: 0, meter: { state: 'free', tariff: 1 } }).stay(60);
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(start) };
}

export interface DrivingOptions {
  pack: Pack;
  site: number;
  date: (ctx: BuildContext) => string;
  time: string;
  vehicle?: Record<string, unknown>;
  /** Fields while moving. */
  fields?: ConstructorParameters<typeof Trace>[3];
  /** [seconds, km/h] segments driven east; then it stops for a minute. */
  segments: [number, number][];
  /** Per-segment fields. */
  segmentFields?: (ConstructorParameters<typeof Trace>[3] | undefined)[];
  /** Registry additions around the start (speed-limit zones ...). */
  registry?: (reg: RegistryBuilder, start: LatLon) => void;
}

/** A vehicle driving east in segments (speed, occupancy, registry-state scenarios). */
export function driving(ctx: BuildContext, o: DrivingOptions): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const { vehicleId, deviceId } = reg.vehicle('veh', o.pack, o.vehicle ?? {});
  o.registry?.(reg, site(o.pack, o.site));
  const start = localInstantMs(o.date(ctx), o.time);
  const t = new Trace(deviceId, start, site(o.pack, o.site), o.fields ?? {});
  t.emit(0);
  o.segments.forEach(([seconds, speed], i) => {
    const f = o.segmentFields?.[i];
    if (f) t.set(f);
    if (speed > 0) t.drive(seconds, speed, 90);
    else t.stay(seconds);
  });
  t.stay(60);
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(start) };
}

/** A speed-limit zone of `limitKmh` 3 km around a `driving` scenario's start (it covers the whole drive). */
export function speedLimitZone(pack: Pack, limitKmh: number): (reg: RegistryBuilder, center: LatLon) => void {
  return (reg, center) => {
    reg.add('zones', {
      id: reg.id(`zone-${limitKmh}`),
      pack,
      kind: 'speed-limit',
      name: `Scenario ${limitKmh} km/h stretch`,
      geometry: square(center, 3000),
      speedLimitKmh: limitKmh,
    });
  };
}

export interface StandTaxi {
  key: string;
  /** Seconds after the start it pulls in (and stands still, free). */
  arrive: number;
  /** Seconds after the start its meter goes to hired (it pulls out 15 s later). */
  hired?: number;
  /** Seconds after the start it drives away free. */
  leave?: number;
  /**
   * With `leave`: having driven away free it is hailed, `afterS` seconds after its last sample at
   * the stand and `distanceM` metres east of the stand area (DF Art. 37 e).
   */
  hail?: { afterS: number; distanceM: number };
  /**
   * With `leave`: it pulls in hired to drop a passenger off — 30 s hired, 15 s with the meter
   * stopped (paying), then free and empty until it leaves.
   */
  dropOff?: boolean;
}

export interface StandOptions {
  pack: Pack;
  site: number;
  stand: { kind: 'fixo' | 'livre'; places: number; holders?: string[] };
  taxis: StandTaxi[];
  /** The taxi whose violations are checked. */
  subject: string;
  /**
   * Last second reported (default 240). A stand decision about instant t is taken once the
   * pack's telemetry has reached t + 120 s (`stands.decisionDelayS`), and a hire is seen on the
   * first sample after it (5 s later), so a scene reports at least 125 s after its hire: otherwise a near miss would be quiet only for want of a decision.
   */
  until?: number;
}

/**
 * Taxis at a stand, each reporting every 5 s, from 25 minutes before the build (and at most 290 s
 * on), like the other scenarios in the past: the rules judge stands in event time (a queue
 * decision waits for every taxi at the stand to report past its instant, and is revised when a
 * taxi's late data crosses it), so a scene needs no particular place against the pack's other
 * telemetry; being over `general.idleCloseS` old when sent, its events are finished by the
 * pipeline's next flush, live or late alike.
 */
export function standScene(ctx: BuildContext, o: StandOptions): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const center = site(o.pack, o.site);
  const vehicles = new Map(o.taxis.map((x) => [x.key, reg.vehicle(x.key, o.pack)]));
  const holders = (o.stand.holders ?? []).map((k) => vehicles.get(k)?.vehicleId ?? reg.id(k));
  reg.add('stands', {
    id: reg.id('stand'),
    pack: o.pack,
    name: `Scenario stand ${ctx.runId}`,
    geometry: square(center, 25),
    places: o.stand.places,
    kind: o.stand.kind,
    holderVehicleIds: holders,
  });
  const start = Math.floor(ctx.nowMs / 5000) * 5000 - 25 * 60_000;
  const until = o.until ?? 240;
  for (const x of o.taxis) {
    const decidedAt = x.hail ? (x.leave ?? 0) + x.hail.afterS : x.hired;
    // The hire is seen on the first sample after it (5 s later), the decision 120 s after that.
    if (decidedAt !== undefined && until < decidedAt + 125)
      throw new Error(`${x.key}: report until ≥ ${decidedAt + 125}`);
  }
  const traces = o.taxis.map((x, i) => {
    const v = vehicles.get(x.key);
    if (!v) throw new Error(x.key);
    const spot: LatLon = offsetM(center, -15 + 6 * i, 0);
    const approach = offsetM(spot, 0, -300);
    const ride = { state: 'hired' as const, tariff: 1 as const, fareCents: 500, tripId: `trip-${x.key}` };
    const t = new Trace(
      v.deviceId,
      start + (x.arrive - 30) * 1000,
      approach,
      x.dropOff ? { passengers: 1, meter: ride } : { passengers: 0, meter: { state: 'free', tariff: 1 } },
    );
    t.emit(36).drive(30, 36, 90);
    const end = Math.min(x.hired ?? until, x.leave ?? until);
    if (x.dropOff) {
      t.stay(30).set({ meter: { ...ride, state: 'stopped', fareCents: 1800 } });
      t.stay(15).set({ passengers: 0, meter: { state: 'free', tariff: 1 } });
      t.stay(end - x.arrive - 45);
    } else t.stay(end - x.arrive);
    if (x.hail && x.leave !== undefined) {
      // One step from its spot to the hail, `distanceM` east of the area (a 25 m half-side square).
      t.wait(x.hail.afterS - 5);
      const metres = 25 + x.hail.distanceM;
      t.drive(5, (metres / 5) * 3.6, 90, {
        passengers: 1,
        meter: { ...ride, tripId: `hail-${x.key}` },
      });
      t.set({ passengers: 1, meter: { ...ride, tripId: `hail-${x.key}` } });
      t.drive(Math.max(30, until - x.leave - x.hail.afterS), 36, 90);
    } else if (x.hired !== undefined) {
      t.set({ passengers: 1, meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: `trip-${x.key}` } });
      t.stay(15).drive(Math.max(30, until - x.hired - 15), 36, 90);
    } else if (x.leave !== undefined) t.drive(Math.max(30, until - x.leave), 36, 90);
    return t;
  });
  const subject = vehicles.get(o.subject);
  if (!subject) throw new Error(o.subject);
  // In time order; at equal timestamps the subject's sample comes last, so a decision about it
  // finds the other taxis' samples of that instant already judged.
  const others = traces.filter((t) => t.deviceId !== subject.deviceId);
  const own = traces.filter((t) => t.deviceId === subject.deviceId);
  return {
    registry: reg.steps,
    samples: inTimeOrder(...others, ...own),
    dispatches: [],
    vehicleId: subject.vehicleId,
    when: describeLocal(start),
  };
}
