import type { Pack, TelemetryInput } from '@vigia/core';
import { distanceM } from '../geo.js';
import {
  CAR_DYNAMICS,
  COACH_DYNAMICS,
  type DriverProfile,
  randomDriverProfile,
  recklessProfile,
  type VehicleDynamics,
} from '../motion/driver-profile.js';
import { TrafficConditions } from '../motion/traffic.js';
import { CITIES, cityGraph } from '../network/cities.js';
import type { SnappedPlace } from '../network/graph.js';
import type { CityDef } from '../network/types.js';
import { Random } from '../random.js';
import { spRegularStops } from '../reference/demo-reference-data.js';
import { TARIFF_TABLES, Taximeter, type TaxiPack } from '../tariff.js';
import { CharterBusBehaviour } from '../vehicles/charter-bus-behaviour.js';
import { type CharterLine, resolveCharterLine } from '../vehicles/charter-line.js';
import type { Shift } from '../vehicles/shift-plan.js';
import { SimVehicle } from '../vehicles/sim-vehicle.js';
import { TaxiBehaviour, type TaxiWorld } from '../vehicles/taxi-behaviour.js';
import { TaxiStand } from '../vehicles/taxi-stand.js';
import type { Roster, RosterEntry } from './roster.js';

/**
 * How long the fleet is simulated before its first report, so that at the start the taxis are
 * spread over stands and trips and the buses over their timetables, not all lined up at depots.
 */
export const DEFAULT_WARM_UP_MS = 2 * 3600_000;
/** Time step of the warm-up, in which all vehicles move together (stand queues stay consistent). */
const WARM_UP_STEP_MS = 5_000;

export interface FleetOptions {
  seed: number | string;
  /** The instant of the first report. */
  startMs: number;
  warmUpMs?: number;
}

/**
 * Every simulated vehicle, built from the registry roster and a seed. The same roster, seed and
 * start time give the same fleet, and the same sequence of `advanceTo` calls the same telemetry.
 */
export class Fleet {
  readonly vehicles: SimVehicle[] = [];
  private readonly worlds = new Map<Pack, TaxiWorld>();
  private readonly lines = new Map<string, CharterLine>();
  private readonly taxis = new Map<string, SimTaxi>();

  constructor(
    readonly roster: Roster,
    private readonly options: FleetOptions,
  ) {
    const warmUp = options.warmUpMs ?? DEFAULT_WARM_UP_MS;
    const t0 = options.startMs - warmUp;
    for (const entry of roster.entries) this.vehicles.push(this.buildVehicle(entry, t0));
    for (let t = t0 + WARM_UP_STEP_MS; t < options.startMs; t += WARM_UP_STEP_MS) this.advanceTo(t);
    this.advanceTo(options.startMs);
    for (const v of this.vehicles) v.discardPendingCounts();
  }

  /** A taxi of the fleet, to give it bookings (dispatch/); undefined for an unknown id or a bus. */
  taxi(vehicleId: string): SimTaxi | undefined {
    return this.taxis.get(vehicleId);
  }

  /** Move every vehicle to `epochMs`, in roster order. */
  advanceTo(epochMs: number): void {
    for (const v of this.vehicles) v.advanceTo(epochMs);
  }

  /** Advance everything to `epochMs` and collect the reports due then. */
  tick(epochMs: number, intervalMs: number): TelemetryInput[] {
    const out: TelemetryInput[] = [];
    for (const v of this.vehicles) {
      v.advanceTo(epochMs);
      if (v.reportDue(epochMs, intervalMs)) out.push(v.report(epochMs));
    }
    return out;
  }

  charterLine(id: string): CharterLine {
    let line = this.lines.get(id);
    if (!line) {
      const def = CITIES['sp-fretamento'].charterLines?.find((l) => l.id === id);
      if (!def) throw new Error(`Unknown charter line '${id}'`);
      line = resolveCharterLine(cityGraph('sp-fretamento'), def);
      this.lines.set(id, line);
    }
    return line;
  }

  taxiWorld(pack: TaxiPack): TaxiWorld {
    let world = this.worlds.get(pack);
    if (!world) {
      const graph = cityGraph(pack);
      const t0 = this.options.startMs - (this.options.warmUpMs ?? DEFAULT_WARM_UP_MS);
      const stands = graph
        .placesOfKind('stand')
        .map((p) => new TaxiStand(p, Random.derive(this.options.seed, 'stand', p.id), t0));
      world = { city: CITIES[pack], graph, stands };
      this.worlds.set(pack, world);
    }
    return world;
  }

  private buildVehicle(entry: RosterEntry, t0: number): SimVehicle {
    const { vehicle, device, vices } = entry;
    const rng = Random.derive(this.options.seed, 'vehicle', vehicle.id);
    // Sensor noise draws from its own stream, so how often a vehicle reports never changes what it does.
    const sensors = Random.derive(this.options.seed, 'sensors', vehicle.id);
    const identity = {
      vehicleId: vehicle.id,
      deviceIdentifier: device.identifier,
      pack: vehicle.pack,
      capacity: vehicle.capacity,
    };
    const city = CITIES[vehicle.pack];
    const traffic = new TrafficConditions(city, Random.derive(this.options.seed, 'traffic', vehicle.id));
    const dynamics = honestDynamics(vehicle.pack === 'sp-fretamento' ? COACH_DYNAMICS : CAR_DYNAMICS, city);
    // Who drives: the registered drivers — or, on a rented-out permit, drivers on no registry record.
    const driverIds = vices?.unregisteredDriverIds ?? vehicle.driverIds;
    const profiles = new Map<string, DriverProfile>(
      driverIds.map((id) => {
        const profile = randomDriverProfile(rng, dynamics);
        return [id, vices?.speeding ? recklessProfile(profile, vices.speeding) : profile];
      }),
    );

    if (vehicle.pack === 'sp-fretamento') {
      const line = this.charterLine(entry.charterLineId ?? '');
      const direction = rng.chance(0.5) ? 'morning' : 'evening';
      const behaviour = new CharterBusBehaviour({
        line,
        capacity: vehicle.capacity,
        driverIds,
        profiles,
        traffic,
        rng,
        start: { direction, layoverS: rng.range(0, 3600) },
        ...(vices ? { vices } : {}),
        ...(vices?.boardsAtRegularStops ? { regularStops: spRegularStops() } : {}),
      });
      const first = line.places[direction][0];
      const firstLeg = line.legs[direction][0];
      if (!first || !firstLeg) throw new Error(`Charter line ${line.def.id} has no places`);
      const at = cityGraph('sp-fretamento').node(first.node);
      return new SimVehicle(
        identity,
        behaviour,
        { position: { lat: at.lat, lon: at.lon }, headingDeg: 0, atMs: t0 },
        sensors,
        undefined,
        vices?.tachographScale,
      );
    }

    const pack: TaxiPack = vehicle.pack;
    const world = this.taxiWorld(pack);
    const meter = new Taximeter(TARIFF_TABLES[pack]);
    // The taxi's home, where it starts and is parked between shifts: never at or beside a stand
    // (a taxi left parked at a stand holds a place there, BEL_STAND_ABANDONED).
    const startPlace = rng.pick(homePlaces(world));
    const at = world.graph.node(startPlace.node);
    const behaviour = new TaxiBehaviour({
      vehicleId: vehicle.id,
      tripPrefix: device.identifier,
      pack,
      capacity: vehicle.capacity,
      world,
      meter,
      shifts: taxiShifts(driverIds, rng, vices?.roundTheClock ? QUICK_HANDOVER_MINUTES : HANDOVER_MINUTES),
      profiles,
      traffic,
      rng,
      startNode: startPlace.node,
      homeNode: startPlace.node,
      ...(vices ? { vices } : {}),
    });
    const sim = new SimVehicle(
      identity,
      behaviour,
      { position: { lat: at.lat, lon: at.lon }, headingDeg: 0, atMs: t0 },
      sensors,
      meter,
    );
    this.taxis.set(vehicle.id, { vehicle: sim, behaviour, pack, operatorId: vehicle.operatorId });
    return sim;
  }
}

/** A simulated taxi: its body (position, meter) and its driver's behaviour (which takes bookings). */
export interface SimTaxi {
  readonly vehicle: SimVehicle;
  readonly behaviour: TaxiBehaviour;
  readonly pack: TaxiPack;
  readonly operatorId: string;
}

/** A parked taxi's home keeps at least this far from every stand, metres. */
const HOME_AWAY_FROM_STAND_M = 300;

/** Places a taxi may be parked at off shift: not a stand, and away from every stand. */
function homePlaces(world: TaxiWorld): SnappedPlace[] {
  const stands = world.stands.map((s) => world.graph.node(s.place.node));
  const places = [...world.graph.places.values()].filter((p) => p.kind !== 'stand');
  const away = places.filter((p) =>
    stands.every((s) => distanceM(world.graph.node(p.node), s) >= HOME_AWAY_FROM_STAND_M),
  );
  return away.length > 0 ? away : places;
}

/** Honest drivers keep this far under a city's general speed limit (GPS speed has noise too). */
const SPEED_LIMIT_MARGIN_KMH = 3;

function honestDynamics(dynamics: VehicleDynamics, city: CityDef): VehicleDynamics {
  if (city.speedLimitKmh === undefined) return dynamics;
  return { ...dynamics, maxKmh: Math.min(dynamics.maxKmh, city.speedLimitKmh - SPEED_LIMIT_MARGIN_KMH) };
}

/** Minutes between two drivers' shifts: an hour — ten minutes for a taxi worked around the clock (a vice). */
const HANDOVER_MINUTES = 60;
const QUICK_HANDOVER_MINUTES = 10;

/**
 * Working hours of a taxi's drivers, local time. Two drivers share the car in day and night
 * shifts of 11 hours with an hour between them; a lone driver works 9–12 hours from a morning
 * or afternoon start, and the car is parked for the rest of the day.
 */
function taxiShifts(driverIds: readonly string[], rng: Random, handoverMinutes: number): Shift[] {
  const [first, second] = driverIds;
  if (!first) return [];
  if (second) {
    const start = rng.int(4 * 60, 8 * 60);
    const length = 12 * 60 - handoverMinutes;
    return [
      { driverId: first, startMinute: start, lengthMinutes: length },
      { driverId: second, startMinute: (start + 12 * 60) % 1440, lengthMinutes: length },
    ];
  }
  const start = rng.chance(0.6) ? rng.int(5 * 60, 9 * 60) : rng.int(12 * 60, 16 * 60);
  return [{ driverId: first, startMinute: start, lengthMinutes: rng.int(9 * 60, 12 * 60) }];
}
