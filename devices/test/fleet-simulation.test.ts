import { type Pack, type TelemetryInput, telemetryInputSchema } from '@vigia/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { Fleet } from '../src/fleet/fleet.js';
import { buildRoster } from '../src/fleet/roster.js';
import { bearingDeg, distanceM, headingDifferenceDeg } from '../src/geo.js';
import { CITIES, cityGraph } from '../src/network/cities.js';
import { ROAD_CLASS_PROFILES } from '../src/network/road-classes.js';
import { spRegularStops } from '../src/reference/demo-reference-data.js';
import { driverTariff, TARIFF_TABLES } from '../src/tariff.js';
import { resolveCharterLine } from '../src/vehicles/charter-line.js';
import { PARKED_REPORT_INTERVAL_MS } from '../src/vehicles/sim-vehicle.js';
import { byDevice, packOf, RoadIndex, type Sample } from './support.js';

/** Tuesday 19:30 in Brasília and Belém (both UTC−03:00): the hour crosses the 20:00 Bandeira II boundary. */
const START = Date.parse('2026-03-10T19:30:00-03:00');
const HOUR_MS = 3600_000;
const INTERVAL_MS = 2000;

/** Run the fleet for a simulated hour on an injected clock, collecting every report. */
function simulate(vehicles: number, seed: number | string, durationMs: number, start = START): TelemetryInput[] {
  const roster = buildRoster(vehicles, start);
  const clock = new ManualClock(start);
  const fleet = new Fleet(roster, { seed, startMs: clock.now() });
  const out: TelemetryInput[] = [];
  while (clock.now() <= start + durationMs) {
    out.push(...fleet.tick(clock.now(), INTERVAL_MS));
    clock.advance(INTERVAL_MS);
  }
  return out;
}

const ms = (s: Sample) => Date.parse(s.ts);

describe('a simulated hour of the 72-vehicle fleet', () => {
  let records: TelemetryInput[];
  let devices: Map<string, Sample[]>;
  const roster = buildRoster(72, START);
  // The vehicles with a vice (fleet/vices.ts) break rules on purpose; everything else is honest.
  const honest = new Set(roster.entries.filter((e) => !e.vices).map((e) => e.device.identifier));
  let honestRecords: Sample[];

  beforeAll(() => {
    records = simulate(72, 2026, HOUR_MS);
    devices = byDevice(records);
    honestRecords = (records as Sample[]).filter((r) => honest.has(r.deviceId));
  });

  it('reports every vehicle, every interval while it runs', () => {
    expect(devices.size).toBe(72);
    for (const [id, list] of devices) {
      for (let i = 1; i < list.length; i++) {
        const gap = ms(list[i]!) - ms(list[i - 1]!);
        const parked = list[i - 1]!.ignition === false && list[i]!.ignition === false;
        if (parked) expect(gap, id).toBeGreaterThanOrEqual(PARKED_REPORT_INTERVAL_MS);
        else expect(gap, id).toBeLessThanOrEqual(PARKED_REPORT_INTERVAL_MS);
      }
    }
    const moving = [...devices.values()].filter((l) => l.some((s) => s.speedKmh > 0)).length;
    expect(moving).toBeGreaterThan(50);
  });

  it('produces only records the ingest schema accepts', () => {
    const invalid = records.filter((r) => !telemetryInputSchema.safeParse(r).success);
    expect(invalid).toEqual([]);
  });

  it('keeps every sample within 30 m of a road of its city, with a realistic GPS accuracy', () => {
    const indexes = new Map<Pack, RoadIndex>();
    const offRoad: string[] = [];
    for (const r of records as Sample[]) {
      const pack = packOf(r.deviceId);
      const index = indexes.get(pack) ?? new RoadIndex(pack);
      indexes.set(pack, index);
      if (index.near(r, 30).length === 0) offRoad.push(`${r.deviceId} at ${r.ts} (${r.lat}, ${r.lon})`);
    }
    expect(offRoad).toEqual([]);
    const accuracies = (records as Sample[]).map((r) => r.accuracyM);
    expect(Math.min(...accuracies)).toBeGreaterThanOrEqual(3);
    expect(Math.max(...accuracies)).toBeLessThanOrEqual(15);
  });

  it('drives honest vehicles at speeds plausible for the road, their tachographs agreeing with GPS within 2 %', () => {
    const indexes = new Map<Pack, RoadIndex>();
    const tooFast: string[] = [];
    const tachoOff: string[] = [];
    for (const r of honestRecords) {
      const pack = packOf(r.deviceId);
      const index = indexes.get(pack) ?? new RoadIndex(pack);
      indexes.set(pack, index);
      const roadLimit = Math.max(...index.near(r, 30).map((n) => ROAD_CLASS_PROFILES[n.roadClass].maxKmh));
      // 80 km/h: the unsafe-driving limit of the SP rules; Belém's rules read 60 km/h everywhere.
      const limit = Math.min(roadLimit + 1, CITIES[pack].speedLimitKmh ?? 80);
      if (r.speedKmh > limit || r.speedKmh >= 80) tooFast.push(`${r.deviceId} at ${r.ts}: ${r.speedKmh} km/h`);
      const tacho = r.tacho?.speedKmh;
      if (tacho !== undefined && r.speedKmh > 5 && Math.abs(tacho - r.speedKmh) > r.speedKmh * 0.02 + 0.6) {
        tachoOff.push(`${r.deviceId} at ${r.ts}: GPS ${r.speedKmh}, tachograph ${tacho}`);
      }
    }
    expect(tooFast).toEqual([]);
    expect(tachoOff).toEqual([]);
  });

  it('moves between samples as far as its speeds say, in the direction its heading says', () => {
    let checkedHeadings = 0;
    for (const [id, list] of devices) {
      for (let i = 1; i < list.length; i++) {
        const a = list[i - 1]!;
        const b = list[i]!;
        const dt = (ms(b) - ms(a)) / 1000;
        if (dt > INTERVAL_MS / 1000) continue;
        const d = distanceM(a, b);
        const expected = ((a.speedKmh + b.speedKmh) / 2 / 3.6) * dt;
        // GPS error is correlated in time: between two fixes 2 s apart it moves by a few metres.
        // A speed change inside the interval (braking to a stop line) moves the distance away
        // from the mean of the end speeds by at most half their difference times the interval.
        const speedChange = (Math.abs(a.speedKmh - b.speedKmh) / 3.6) * dt;
        expect(
          Math.abs(d - expected),
          `${id} at ${b.ts}: ${d.toFixed(1)} m vs ${expected.toFixed(1)} m`,
        ).toBeLessThanOrEqual(10 + 0.15 * expected + speedChange / 2);
        if (a.speedKmh > 20 && b.speedKmh > 20 && d > 25) {
          // Through a turn the chord's bearing lies between the headings before and after it.
          const travel = bearingDeg(a, b);
          const turn = headingDifferenceDeg(a.headingDeg, b.headingDeg);
          const outsideTurn =
            (headingDifferenceDeg(travel, a.headingDeg) + headingDifferenceDeg(travel, b.headingDeg) - turn) / 2;
          expect(outsideTurn, `${id} at ${b.ts}`).toBeLessThan(25);
          checkedHeadings++;
        }
      }
    }
    expect(checkedHeadings).toBeGreaterThan(10_000);
  });

  it('opens doors only at a standstill, and keeps the honest vehicles’ passengers within capacity', () => {
    const capacity = new Map(roster.entries.map((e) => [e.device.identifier, e.vehicle.capacity]));
    const wrong = (records as Sample[]).filter(
      (r) =>
        (r.doorOpen && r.speedKmh !== 0) ||
        (honest.has(r.deviceId) && (r.passengers ?? 0) > (capacity.get(r.deviceId) ?? 0)) ||
        (r.childrenUnder7 ?? 0) > (r.passengers ?? 0),
    );
    expect(wrong).toEqual([]);
    expect((records as Sample[]).some((r) => r.doorOpen)).toBe(true);
  });

  it('runs honest taximeters honestly: fare grows within a trip, resets between trips, bandeira by the clock', () => {
    let completedTrips = 0;
    const tariffsSeen = new Set<number>();
    for (const [id, list] of devices) {
      const pack = packOf(id);
      if (pack === 'sp-fretamento' || !honest.has(id)) continue;
      const table = TARIFF_TABLES[pack];
      let tripId: string | undefined;
      let lastFare = 0;
      for (let i = 0; i < list.length; i++) {
        const r = list[i]!;
        const m = r.meter;
        expect(m, id).toBeDefined();
        if (!m) continue;
        if (m.state === 'hired') {
          expect(m.tariff).toBe(driverTariff(pack, ms(r)));
          tariffsSeen.add(m.tariff ?? 0);
          // Passengers on board while the meter runs (DF_RIDE_WITHOUT_METER never applies).
          expect(r.passengers ?? 0).toBeGreaterThan(0);
        }
        if (m.state === 'hired' || m.state === 'stopped') {
          expect(m.tripId).toBeDefined();
          if (m.tripId !== tripId) {
            // A new trip starts at the bandeirada (unless the hour began mid-trip).
            if (i > 0) expect(m.fareCents, `${id} trip ${m.tripId}`).toBeLessThanOrEqual(table.flagDropCents + 150);
            if (tripId !== undefined) completedTrips++;
            tripId = m.tripId;
            lastFare = 0;
          }
          expect(m.fareCents ?? 0).toBeGreaterThanOrEqual(Math.max(lastFare, table.flagDropCents));
          lastFare = m.fareCents ?? 0;
        } else {
          expect(m.fareCents).toBeUndefined();
          expect(m.tripId).toBeUndefined();
          if (r.speedKmh > 0 && m.state === 'free') expect(r.passengers).toBe(0);
        }
      }
    }
    expect(completedTrips).toBeGreaterThan(20);
    expect([...tariffsSeen].sort()).toEqual([1, 2]);
  });

  it('boards and drops charter passengers only at the line’s declared places (or, with the vice, regular stops), honest ones never beyond the seats', () => {
    const graph = cityGraph('sp-fretamento');
    const lines = new Map(
      roster.entries
        .filter((e) => e.charterLineId)
        .map((e) => {
          const def = CITIES['sp-fretamento'].charterLines?.find((l) => l.id === e.charterLineId);
          if (!def) throw new Error(`no line ${e.charterLineId}`);
          const declared = resolveCharterLine(graph, def).places.morning.map((p) => graph.node(p.node));
          // A bus running a clandestine service (the vice) also boards at the regular-service stops on its way.
          const places = e.vices?.boardsAtRegularStops ? [...declared, ...spRegularStops()] : declared;
          return [e.device.identifier, { places, capacity: e.vehicle.capacity }] as const;
        }),
    );
    let boardings = 0;
    for (const [id, { places, capacity }] of lines) {
      const list = devices.get(id) ?? [];
      for (let i = 0; i < list.length; i++) {
        const r = list[i]!;
        const atDeclaredPlace = places.some((p) => distanceM(p, r) <= 30);
        if (r.doorOpen || (r.boardings ?? 0) > 0 || (r.alightings ?? 0) > 0) {
          expect(atDeclaredPlace, `${id} door/boarding at ${r.ts} (${r.lat}, ${r.lon})`).toBe(true);
        }
        boardings += r.boardings ?? 0;
        if (honest.has(id)) expect(r.passengers ?? 0).toBeLessThanOrEqual(capacity);
        if (i > 0) {
          // The occupancy sensor's counts explain every change in the passenger count.
          const before = list[i - 1]!.passengers ?? 0;
          expect((r.passengers ?? 0) - before, `${id} at ${r.ts}`).toBe((r.boardings ?? 0) - (r.alightings ?? 0));
        }
        expect(r.tacho?.driverId ?? (r.ignition ? 'missing' : undefined)).not.toBe('missing');
      }
    }
    expect(boardings).toBeGreaterThan(100);
  });

  it('has charter buses running loaded at every minute of the hour', () => {
    const buses = [...devices.entries()].filter(([id]) => packOf(id) === 'sp-fretamento').map(([, l]) => l);
    for (let t = START; t <= START + HOUR_MS; t += 60_000) {
      const loadedAndMoving = buses.filter((l) =>
        l.some((s) => ms(s) === t && (s.passengers ?? 0) > 0 && s.speedKmh > 5),
      );
      expect(loadedAndMoving.length, new Date(t).toISOString()).toBeGreaterThan(0);
    }
  });
});

describe('determinism', () => {
  it('replays the same telemetry for the same seed and clock, and other telemetry for another seed', () => {
    const a = simulate(9, 'replay', 10 * 60_000);
    const b = simulate(9, 'replay', 10 * 60_000);
    const c = simulate(9, 'other', 10 * 60_000);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
    expect(c.length).toBeGreaterThan(0);
  });
});

describe('December in Belém', () => {
  it('runs honest Belém taxis on Bandeira II on a weekday afternoon in December, Brasília taxis on Bandeira I', () => {
    const start = Date.parse('2026-12-08T14:00:00-03:00');
    const records = simulate(20, 7, 20 * 60_000, start);
    const honest = new Set(
      buildRoster(20, start)
        .entries.filter((e) => !e.vices)
        .map((e) => e.device.identifier),
    );
    const tariffs = new Map<Pack, Set<number>>();
    for (const r of records) {
      if (r.meter?.state !== 'hired' || r.meter.tariff === undefined || !honest.has(r.deviceId)) continue;
      const pack = packOf(r.deviceId);
      const set = tariffs.get(pack) ?? new Set();
      set.add(r.meter.tariff);
      tariffs.set(pack, set);
    }
    expect([...(tariffs.get('belem-taxi') ?? [])]).toEqual([2]);
    expect([...(tariffs.get('df-taxi') ?? [])]).toEqual([1]);
  });
});
