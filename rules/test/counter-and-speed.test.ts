import type { Telemetry } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { initialOccupancyState, type OccupancyState, readOccupancy } from '../src/engine/occupancy.js';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { RegistryRecordsInput } from '../src/registry/records.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, square, taxi } from './helpers/fixtures.js';
import { at, BELEM, SAO_PAULO, sample, Trace } from './helpers/trace.js';

/**
 * The door-gated passenger count (engine/occupancy.ts) that every rule reading the counter
 * uses, and the speed-limit zones with the measurement tolerance of the taxi packs.
 */

const ESPLANADA = { lat: -15.7939, lon: -47.8828 };
const CENTRE = { lat: -1.4558, lon: -48.4902 };

/** Feed (seconds, passengers, door) readings 5 s apart through the filter; the accepted counts. */
function accepted(
  readings: [number | null, boolean | null][],
  settleS = 15,
  gapAt: number | null = null,
): (number | null)[] {
  let state: OccupancyState = initialOccupancyState;
  return readings.map(([passengers, doorOpen], i) => {
    const ms = i * 5000;
    const s: Telemetry = sample({ ts: new Date(ms), lat: 0, lon: 0, passengers, doorOpen });
    const r = readOccupancy(state, s, ms, i === 0 || i === gapAt, settleS);
    state = r.state;
    return r.reading.passengers;
  });
}

describe('door-gated passenger count (general.occupancySettleS)', () => {
  it('rejects a change while the door stays closed, however long it lasts', () => {
    const closed: [number, boolean][] = [
      [10, false],
      [10, false],
      [10, false],
      [10, false],
      [13, false],
      [13, false],
      [13, false],
      [13, false],
      [13, false],
      [10, false],
    ];
    expect(accepted(closed)).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 10, 10]);
  });

  it('accepts a change with the door open, and within the settle time after it closed (counter lag)', () => {
    expect(
      accepted([
        [10, false],
        [10, false],
        [10, false],
        [10, false],
        [12, true],
        [13, true],
        [13, false],
        [14, false], // 10 s after the door was last open: lagging tally, accepted provisionally
        [14, false],
        [14, false],
        [14, false],
        [16, false], // 20 s after: noise
      ]),
    ).toEqual([10, 10, 10, 10, 12, 13, 13, 14, 14, 14, 14, 14]);
  });

  it('a provisional count does not stick: a spike just after the door closed is replaced by the next reading', () => {
    expect(
      accepted([
        [10, false],
        [10, false],
        [10, false],
        [10, false],
        [10, true],
        [10, false],
        [10, false],
        [15, false], // 15 s after the door: provisional
        [10, false], // 20 s after, but the provisional 15 had not held: replaced
        [10, false],
      ]),
    ).toEqual([10, 10, 10, 10, 10, 10, 10, 15, 10, 10]);
  });

  it('with no door reading, a new count must be read for the settle time before it is accepted', () => {
    expect(
      accepted([
        [2, null],
        [2, null],
        [2, null],
        [2, null],
        [4, null],
        [4, null],
        [4, null],
        [4, null], // held 15 s: accepted
        [1, null],
        [4, null], // 1 read once: never accepted
      ]),
    ).toEqual([2, 2, 2, 2, 2, 2, 2, 4, 4, 4]);
  });

  it('counts boardings only with the door open or open within the settle time (a phantom with the door shut is not one)', () => {
    let state: OccupancyState = initialOccupancyState;
    const boardings = (
      [
        [false, 1],
        [true, 2],
        [false, 1], // 5 s after the door was open: the tally finishing
        [false, 0],
        [false, 0],
        [false, 0],
        [false, 1], // 20 s after: a phantom
        [null, 1], // no door reading: not backed either
      ] as [boolean | null, number][]
    ).map(([doorOpen, b], i) => {
      const s = sample({ ts: new Date(i * 5000), lat: 0, lon: 0, passengers: 10, doorOpen, boardings: b });
      const r = readOccupancy(state, s, i * 5000, i === 0, 15);
      state = r.state;
      return [r.reading.boardings, r.reading.boardingsNotDoorBacked];
    });
    expect(boardings).toEqual([
      [0, 1],
      [2, 0],
      [1, 0],
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 1],
      [0, 1],
    ]);
  });

  it('gives the lower and the upper bound of the accepted and the sent count', () => {
    let state: OccupancyState = initialOccupancyState;
    const bounds = (
      [
        [2, null],
        [2, null],
        [2, null],
        [2, null],
        [4, null], // a rise settling: at least 2, at most 4
        [1, false], // door closed, firm 2: a flicker down: at least 1, at most 2
      ] as [number, boolean | null][]
    ).map(([passengers, doorOpen], i) => {
      const s = sample({ ts: new Date(i * 5000), lat: 0, lon: 0, passengers, doorOpen });
      const r = readOccupancy(state, s, i * 5000, i === 0, 15);
      state = r.state;
      return [r.reading.passengersAtLeast, r.reading.passengers, r.reading.passengersAtMost];
    });
    expect(bounds.slice(4)).toEqual([
      [2, 2, 4],
      [1, 2, 2],
    ]);
  });

  it('the first count (and the first after a gap) is provisional until it holds', () => {
    expect(
      accepted(
        [
          [46, false],
          [40, false], // the opening spike did not hold: replaced
          [40, false],
          [40, false],
          [40, false],
          [44, false], // firm 40, door closed: noise
          [44, false],
          [44, false], // after a gap (the door may have opened unseen): starts afresh
        ],
        15,
        7,
      ),
    ).toEqual([46, 40, 40, 40, 40, 40, 40, 44]);
  });
});

function dfRegistry(extra: Partial<RegistryRecordsInput> = {}) {
  return createInMemoryRegistry({
    operators: baseOperators,
    vehicles: [taxi('t-1', 'df-taxi')],
    drivers: [{ id: 'D-1', name: 'Motorista Um', pack: 'df-taxi', matriculaValidUntil: '2099-01-01' }],
    unitValues: [{ unit: 'UT', pack: 'df-taxi', validFrom: '2020-01-01', valueBrl: 2 }],
    ...extra,
  });
}
const dfEngine = () => createRuleEngine({ registry: dfRegistry(), packs: { 'df-taxi': { tariff: { kmB1Ut: 1 } } } });

/** A DF taxi driving at 36 km/h from 10:00 on a Wednesday with the given readings. */
const dfTaxi = (fields: Record<string, unknown>) =>
  new Trace({
    at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
    lat: ESPLANADA.lat,
    lon: ESPLANADA.lon,
    fields: { vehicleId: 't-1', tachoDriverId: 'D-1', doorOpen: false, childrenUnder7: 0, ...fields },
  });

const hiredB2 = { meterState: 'hired', meterTariff: 2, meterTripId: 'trip-1', passengers: 4 };

describe('DF_OVER_CAPACITY — Art. 24: counter flicker is not overloading', () => {
  it('Art. 24: 5 counted in a 4-seat taxi with the doors closed since the count of 4 is noise; after the door opened it fires', () => {
    const noise = dfTaxi({ passengers: 4 }).emit().drive(20, 36).set({ passengers: 5 }).drive(60, 36);
    expect(latest(run(dfEngine(), noise.samples), 'DF_OVER_CAPACITY')).toHaveLength(0);
    const boarded = dfTaxi({ passengers: 4 })
      .emit()
      .drive(20, 36)
      .stay(10, 5, { doorOpen: true, passengers: 5 })
      .set({ passengers: 5 })
      .drive(40, 36);
    expect(num(only(run(dfEngine(), boarded.samples), 'DF_OVER_CAPACITY'), 'passengersMax')).toBe(5);
  });
});

describe('DF_OVER_CAPACITY — Art. 24: the lower bound of the count', () => {
  it('Art. 24: with no door reading, a drop counts at once: 5 aboard for 25 s of driving, then 4, is no violation; 30 s is', () => {
    const t = dfTaxi({ passengers: 5, doorOpen: null }).emit().drive(30, 36).set({ passengers: 4 }).drive(60, 36);
    expect(latest(run(dfEngine(), t.samples), 'DF_OVER_CAPACITY')).toHaveLength(0);
    const longer = dfTaxi({ passengers: 5, doorOpen: null }).emit().drive(35, 36).set({ passengers: 4 }).drive(60, 36);
    expect(num(only(run(dfEngine(), longer.samples), 'DF_OVER_CAPACITY'), 'movingSeconds')).toBe(30);
  });
});

describe('DF_BANDEIRA2_MISUSE — Art. 45 III g: "more than 3 passengers" read through the door-gated count', () => {
  it('Art. 45 III g: with no door reading, 2 more passengers justify tariff 2 at once (upper bound): 50 s unjustified stays under 60 s', () => {
    // 10 km/h: 50 s is 139 m, under both the 60 s and the 200 m of a qualifying stretch.
    const t = dfTaxi({ ...hiredB2, passengers: 2, doorOpen: null })
      .emit()
      .drive(50, 10)
      .set({ passengers: 4 });
    t.drive(60, 10).set({ meterState: 'free', meterTariff: null, passengers: 0 }).stay(30);
    expect(latest(run(dfEngine(), t.samples), 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);
    const longer = dfTaxi({ ...hiredB2, passengers: 2, doorOpen: null })
      .emit()
      .drive(65, 10)
      .set({ passengers: 4 });
    longer.drive(60, 10).set({ meterState: 'free', meterTariff: null, passengers: 0 }).stay(30);
    expect(num(only(run(dfEngine(), longer.samples), 'DF_BANDEIRA2_MISUSE'), 'tariff2Seconds')).toBe(65);
  });

  const hired = hiredB2;
  it('Art. 45 III g: 4 aboard on tariff 2, the counter dropping to 2 for 90 s with the doors closed, is still lawful', () => {
    const t = dfTaxi(hired).emit().drive(30, 36).set({ passengers: 2 }).drive(90, 36).set({ passengers: 4 });
    t.drive(30, 36).set({ meterState: 'free', meterTariff: null, passengers: 0, doorOpen: true }).stay(10);
    expect(latest(run(dfEngine(), t.samples), 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);
  });

  it('Art. 45 III g: two passengers getting out (door open) leave 2 on tariff 2: fires', () => {
    const t = dfTaxi(hired).emit().drive(30, 36).stay(10, 5, { doorOpen: true, passengers: 2 });
    t.set({ passengers: 2 }).drive(90, 36);
    t.set({ meterState: 'free', meterTariff: null, passengers: 0, doorOpen: true }).stay(10);
    const v = only(run(dfEngine(), t.samples), 'DF_BANDEIRA2_MISUSE');
    expect(num(v, 'tariff2Seconds')).toBeGreaterThanOrEqual(60);
  });
});

describe('DF_RIDE_WITHOUT_METER — Art. 37 g: a flicker with the doors closed carries nobody', () => {
  it('Art. 37 g: the counter reading 1 for 2 km of an empty taxi with the doors closed is noise', () => {
    const t = dfTaxi({ meterState: 'free', passengers: 0 }).emit().drive(20, 36).set({ passengers: 1 }).drive(200, 36);
    expect(latest(run(dfEngine(), t.samples), 'DF_RIDE_WITHOUT_METER')).toHaveLength(0);
  });

  it('Art. 37 g: a passenger who gets in (door open) and rides 1.2 km with the meter free: fires', () => {
    const t = dfTaxi({ meterState: 'free', passengers: 0 }).emit().drive(20, 36);
    t.stay(10, 5, { doorOpen: true, passengers: 1 }).set({ passengers: 1 }).drive(120, 36);
    expect(only(run(dfEngine(), t.samples), 'DF_RIDE_WITHOUT_METER').confidence).toBe('confirmed');
  });
});

function belemEngine(zones: RegistryRecordsInput['zones'] = []) {
  return createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: [taxi('t-1', 'belem-taxi', { capacity: 4 })],
      zones,
      unitValues: [{ unit: 'IPCA-E', pack: 'belem-taxi', validFrom: '2025-01-01', valueBrl: 4.5 }],
    }),
  });
}
const belemTaxi = (fields: Record<string, unknown> = {}) =>
  new Trace({
    at: at(BELEM, '2026-03-04', '21:00:00'),
    lat: CENTRE.lat,
    lon: CENTRE.lon,
    fields: { vehicleId: 't-1', ...fields },
  });

describe('BEL_OVER_CAPACITY — Art. 3 I; Art. 58 item 2.6: counter flicker is not overloading', () => {
  it('Art. 3 I: with no door reading, 5 held 15 s in a 4-place taxi then 30 s driving fires; a 10 s spike does not', () => {
    const held = belemTaxi({ passengers: 4 }).emit().drive(20, 36).set({ passengers: 5 }).drive(50, 36);
    expect(only(run(belemEngine(), held.samples), 'BEL_OVER_CAPACITY').measured.passengersMax).toBe(5);
    const spike = belemTaxi({ passengers: 4 })
      .emit()
      .drive(20, 36)
      .drive(10, 36, 90, 5, { passengers: 5 })
      .drive(60, 36);
    expect(latest(run(belemEngine(), spike.samples), 'BEL_OVER_CAPACITY')).toHaveLength(0);
  });
});

describe('BEL_UNSAFE_DRIVING — Art. 58 item 2.5: the limit in force and the measurement tolerance', () => {
  const avenue = [
    {
      id: 'Z80',
      pack: 'belem-taxi' as const,
      kind: 'speed-limit' as const,
      name: 'Av. Almirante Barroso (80 km/h)',
      geometry: square(CENTRE.lat, CENTRE.lon, 3000),
      speedLimitKmh: 80,
    },
  ];
  const speeding = (speed: number, zones: RegistryRecordsInput['zones'] = []) =>
    latest(run(belemEngine(zones), belemTaxi().emit().drive(30, speed).samples), 'BEL_UNSAFE_DRIVING');

  it('item 2.5: 67 km/h (60 + 7 tolerance) is tolerated, 68 km/h is not', () => {
    expect(speeding(67)).toHaveLength(0);
    expect(speeding(68).map((v) => v.measured)).toMatchObject([{ limitKmh: 60, limitSource: 'pack-default' }]);
  });

  it('item 2.5: a zone raising the limit to 80 km/h: 85 and 87 km/h pass, 88 km/h fires against the zone', () => {
    expect(speeding(85, avenue)).toHaveLength(0);
    expect(speeding(87, avenue)).toHaveLength(0);
    const [v] = speeding(88, avenue);
    expect(v?.measured).toMatchObject({ limitKmh: 80, limitSource: 'zone', zoneId: 'Z80', thresholdKmh: 87 });
  });
});
