import type { Telemetry } from '@vigia/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { ViolationEvent } from '../src/violations/violation.js';
import { latest } from './helpers/events.js';
import { baseOperators, bus, taxi } from './helpers/fixtures.js';
import { at, offset, SAO_PAULO, Trace } from './helpers/trace.js';

const BRASILIA = { lat: -15.7939, lon: -47.8828 };
const SP = { lat: -23.5505, lon: -46.6333 };

const registry = () =>
  createInMemoryRegistry({
    operators: baseOperators,
    vehicles: [taxi('t-1', 'df-taxi'), bus('bus-1', { lastInspectionDate: '2026-01-10' })],
    drivers: [{ id: 'D-1', name: 'Um', pack: 'df-taxi' }],
    stops: [0, 400, 800, 1200].map((m) => {
      const p = offset(offset(SP.lat, SP.lon, m, 90).lat, offset(SP.lat, SP.lon, m, 90).lon, 20, 0);
      return { id: `S${m}`, name: `Parada ${m}`, lat: p.lat, lon: p.lon };
    }),
    unitValues: [{ unit: 'UT', pack: 'df-taxi', validFrom: '2020-01-01', valueBrl: 2 }],
    // The coach runs a contracted trip (Art. 10 caput: fretamento contínuo "mediante contrato escrito").
    contracts: [
      {
        id: 'C-1',
        pack: 'sp-fretamento',
        operatorId: 'op-sp',
        kind: 'continuo',
        client: 'Fábrica Exemplo',
        vehicleIds: ['bus-1'],
        route: {
          type: 'LineString',
          coordinates: [
            [SP.lon, SP.lat],
            [offset(SP.lat, SP.lon, 6000, 90).lon, offset(SP.lat, SP.lon, 6000, 90).lat],
          ],
        },
        boardingPlaces: [{ id: 'B1', name: 'Portaria', lat: SP.lat, lon: SP.lon, radiusM: 60 }],
        alightingPlaces: [
          {
            id: 'A1',
            name: 'Fábrica',
            lat: offset(SP.lat, SP.lon, 6000, 90).lat,
            lon: offset(SP.lat, SP.lon, 6000, 90).lon,
            radiusM: 80,
          },
        ],
        schedule: [{ daysOfWeek: [1, 2, 3, 4, 5], start: '06:30', end: '08:30' }],
      },
    ],
  });

const engine = () =>
  createRuleEngine({ registry: registry(), packs: { 'df-taxi': { tariff: { kmB1Ut: 1, waitingHourUt: 10 } } } });

/**
 * Clean trips: a DF taxi ride at night on tariff 2 (allowed after 20:00) with an exact fare and
 * turns, and a charter bus driving past regular stops without stopping, tachograph agreeing.
 */
function cleanTrips(): Telemetry[] {
  const ride = new Trace({
    at: at(SAO_PAULO, '2026-03-04', '21:00:00'),
    lat: BRASILIA.lat,
    lon: BRASILIA.lon,
    fields: { vehicleId: 't-1', deviceId: 'dev-t', meterState: 'free', passengers: 0, tachoDriverId: 'D-1' },
  });
  ride.emit().stay(30);
  ride.set({
    meterState: 'hired',
    meterTariff: 2,
    meterTripId: 'r1',
    passengers: 2,
    childrenUnder7: 0,
    meterFareCents: 800,
  });
  ride.drive(150, 40, 90).drive(150, 40, 0).drive(150, 40, 90);
  // 5 km at B2 (1.5 UT = R$ 3/km) + R$ 8 + 5 s of waiting ≈ R$ 23.03
  ride.wait(5).emit({ meterState: 'stopped', meterFareCents: 2303 });
  ride.set({ meterState: 'free', meterTariff: null, meterTripId: null, passengers: 0, meterFareCents: null }).stay(30);

  const coach = new Trace({
    at: at(SAO_PAULO, '2026-03-04', '07:00:00'),
    lat: SP.lat,
    lon: SP.lon,
    fields: {
      vehicleId: 'bus-1',
      deviceId: 'dev-b',
      passengers: 30,
      boardings: 0,
      doorOpen: false,
      tachoDriverId: 'D-9',
    },
  });
  coach
    .emit({ tachoSpeedKmh: 0 })
    .drive(300, 40, 90, 5, { tachoSpeedKmh: 40 })
    .drive(120, 60, 90, 5, { tachoSpeedKmh: 59 });
  return [...ride.samples, ...coach.samples];
}

function deliver(samples: readonly Telemetry[]): ViolationEvent[] {
  const e = engine();
  const events: ViolationEvent[] = [];
  for (const s of samples) events.push(...e.ingest(s));
  events.push(...e.close());
  return events;
}

describe('late, out-of-order and duplicate telemetry', () => {
  it('the clean trips raise nothing when delivered in order (the baseline of the property below)', () => {
    expect(latest(deliver([...cleanTrips()].sort((a, b) => a.ts.getTime() - b.ts.getTime())))).toEqual([]);
  });

  it('property: any late delivery (random delays, duplicates) of the clean trips raises nothing', () => {
    const samples = cleanTrips();
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 300_000 }), { minLength: samples.length, maxLength: samples.length }),
        fc.array(fc.nat({ max: samples.length - 1 }), { maxLength: 40 }),
        (delaysMs, duplicated) => {
          const arrivals = samples.map((s, i) => ({ s, arrival: s.ts.getTime() + (delaysMs[i] ?? 0) }));
          for (const i of duplicated) {
            const d = arrivals[i];
            if (d) arrivals.push({ s: d.s, arrival: d.arrival + 1000 });
          }
          arrivals.sort((a, b) => a.arrival - b.arrival);
          const events = deliver(arrivals.map((a) => a.s));
          expect(events.filter((e) => e.type !== 'withdrawn')).toEqual([]);
        },
      ),
      { numRuns: 150, seed: 20260304 },
    );
  });

  it('counts duplicates and late samples and never judges them', () => {
    const e = engine();
    const samples = cleanTrips().filter((s) => s.vehicleId === 't-1');
    const first = samples[10];
    const second = samples[11];
    if (!first || !second) throw new Error('trace too short');
    e.ingest(first);
    e.ingest(second);
    e.ingest(second);
    e.ingest(first);
    expect(e.stats()).toMatchObject({ samples: 4, judged: 2, duplicates: 1, late: 1 });
  });

  it('a long silence breaks a run: two 20 s bursts of speeding 5 minutes apart are not 40 s of speeding', () => {
    const t = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '07:00:00'),
      lat: SP.lat,
      lon: SP.lon,
      fields: { vehicleId: 'bus-1', tachoSpeedKmh: 90 },
    });
    t.drive(15, 90).wait(300).drive(15, 90);
    expect(latest(deliver(t.samples), 'FRET_UNSAFE_DRIVING')).toHaveLength(0);
  });

  it('an event whose telemetry arrives out of order is only suspected', () => {
    const t = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '07:00:00'),
      lat: SP.lat,
      lon: SP.lon,
      fields: { vehicleId: 'bus-1', tachoSpeedKmh: 90 },
    });
    t.drive(60, 90);
    const s = [...t.samples];
    // Swap two samples in the middle of the speeding run: one of them is dropped as late.
    const a = s[5];
    const b = s[6];
    if (!a || !b) throw new Error('trace too short');
    s[5] = b;
    s[6] = a;
    const v = latest(deliver(s), 'FRET_UNSAFE_DRIVING');
    expect(v).toHaveLength(1);
    expect(v[0]?.confidence).toBe('suspected');
  });
});
