import type { Telemetry } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { createRuleEngine, type RuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { Violation } from '../src/violations/violation.js';
import { latest, run } from './helpers/events.js';
import { baseOperators, square, taxi } from './helpers/fixtures.js';
import { BEL_LIVRE, DF_STAND, dfStandEngine } from './helpers/stands.js';
import { at, BELEM, offset, SAO_PAULO, Trace } from './helpers/trace.js';

/**
 * The stand classes of issue 7 at and around their boundaries: a hail away from the stand is no
 * queue jump (DF Art. 37 e), a drop-off is not waiting (Belém Art. 3 XIV b), at a ponto fixo only
 * holders queue (Belém Art. 3 XIV a, Art. 58 item 3.1).
 */

const BEL_FIXO = { lat: -1.46, lon: -48.49 };

const dfEngine = (): RuleEngine => dfStandEngine(['A', 'C']);

function belemEngine(): RuleEngine {
  return createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: ['A', 'B', 'C', 'D', 'E', 'H1', 'H2', 'X'].map((id) => taxi(id, 'belem-taxi')),
      stands: [
        {
          id: 'PL-1',
          pack: 'belem-taxi',
          name: 'Ponto livre Estação das Docas',
          geometry: square(BEL_LIVRE.lat, BEL_LIVRE.lon, 25),
          places: 2,
          kind: 'livre',
        },
        {
          id: 'PF-1',
          pack: 'belem-taxi',
          name: 'Ponto fixo Ver-o-Peso',
          geometry: square(BEL_FIXO.lat, BEL_FIXO.lon, 25),
          places: 3,
          kind: 'fixo',
          holderVehicleIds: ['H1', 'H2'],
        },
      ],
    }),
  });
}

const free = { meterState: 'free' as const, passengers: 0 };
const hired = { meterState: 'hired' as const, passengers: 1 };

/** A taxi that pulls into a stand `arriveS` after 10:00 (local), at `spotM` metres east of its centre. */
function taxiAt(id: string, tz: string, place: { lat: number; lon: number }, arriveS: number, spotM = 0): Trace {
  const spot = offset(place.lat, place.lon, spotM, 90);
  return new Trace({
    at: new Date(at(tz, '2026-03-04', '10:00:00').getTime() + arriveS * 1000),
    lat: spot.lat,
    lon: spot.lon,
    fields: { vehicleId: id, deviceId: `dev-${id}`, ...free },
  }).emit({ speedKmh: 0 });
}

const inTimeOrder = (...traces: Trace[]): Telemetry[] =>
  traces
    .flatMap((t) => t.samples)
    .sort((a, b) => a.ts.getTime() - b.ts.getTime() || (a.vehicleId < b.vehicleId ? -1 : 1));

const jumps = (engine: RuleEngine, samples: Telemetry[], ruleId: 'DF_STAND_QUEUE_JUMP' | 'BEL_STAND_QUEUE_JUMP') =>
  latest(run(engine, samples), ruleId);

describe('DF_STAND_QUEUE_JUMP — Art. 37 m, n; a hail away from the stand is Art. 37 e', () => {
  // A waits at the stand (a circle of 30 m) from 10:00. C pulls in at 10:01, waits a minute,
  // then leaves free, rolling east at 3.6 km/h (5 m a sample) to 40 m from the centre — still at
  // the stand (10 m from the area, inside the 15 m exit margin) — and is hired `afterS` seconds
  // later at `hireM` metres from the centre.
  function scene(afterS: number, hireM: number): Telemetry[] {
    const a = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10).stay(400);
    const c = taxiAt('C', SAO_PAULO, DF_STAND, 60).stay(60).drive(40, 3.6, 90);
    const spot = offset(DF_STAND.lat, DF_STAND.lon, hireM, 90);
    c.wait(afterS).moveTo(spot.lat, spot.lon).set(hired).emit({ speedKmh: 0 }).drive(60, 30, 90);
    return inTimeOrder(a, c);
  }

  it('Art. 37 m: hired 20 m from the area 5 s after its last sample at the stand is a hire at the stand (a jump over A)', () => {
    const found = jumps(dfEngine(), scene(5, 50), 'DF_STAND_QUEUE_JUMP');
    expect(found.map((v) => [v.vehicleId, v.measured.jumpedOver])).toEqual([['C', ['A']]]);
  });

  it('Art. 37 m: hired 28 m from the area 15 s after its last sample at the stand still counts (hireEdgeM, hireAfterLeavingS)', () => {
    expect(jumps(dfEngine(), scene(15, 58), 'DF_STAND_QUEUE_JUMP')).toHaveLength(1);
  });

  it('Art. 37 e: hired 20 m from the area 20 s after leaving it answered a hail: no jump', () => {
    expect(jumps(dfEngine(), scene(20, 50), 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
  });

  it('Art. 37 e: hired 35 m from the area (beyond hireEdgeM, 30 m) 5 s after leaving: no jump', () => {
    expect(jumps(dfEngine(), scene(5, 65), 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
  });

  it('Art. 37 m: hired inside the area while waiting is a jump; the taxi at the head of the queue is not', () => {
    const a = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10).stay(400);
    const c = taxiAt('C', SAO_PAULO, DF_STAND, 60).stay(60).wait(5).set(hired).emit({ speedKmh: 0 }).drive(60, 30, 90);
    expect(jumps(dfEngine(), inTimeOrder(a, c), 'DF_STAND_QUEUE_JUMP').map((v) => v.vehicleId)).toEqual(['C']);
    const head = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10)
      .stay(100)
      .wait(5)
      .set(hired)
      .emit({ speedKmh: 0 })
      .drive(60, 30, 90);
    const back = taxiAt('C', SAO_PAULO, DF_STAND, 60).stay(300);
    expect(jumps(dfEngine(), inTimeOrder(head, back), 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
  });
});

describe('BEL_STAND_OVERFLOW — Art. 3 XIV b: a drop-off is not parking', () => {
  const overflow = (samples: Telemetry[]): Violation[] => latest(run(belemEngine(), samples), 'BEL_STAND_OVERFLOW');

  it('Art. 3 XIV b: a hired taxi stopping 50 s at a full ponto livre to let its passenger pay and get out is neither counted nor flagged', () => {
    const a = taxiAt('A', BELEM, BEL_LIVRE, 0, -15).stay(400);
    const b = taxiAt('B', BELEM, BEL_LIVRE, 10, -5).stay(400);
    const c = taxiAt('C', BELEM, BEL_LIVRE, 60, 5);
    c.samples.length = 0;
    c.set(hired).emit({ speedKmh: 0 }).stay(30).set({ meterState: 'stopped' }).stay(15);
    c.set(free).stay(5).drive(60, 30, 90);
    expect(overflow(inTimeOrder(a, b, c))).toHaveLength(0);
  });

  it('Art. 3 XIV b: a third taxi that waits free 60 s at the full 2-place stand is flagged, a drop-off beside it is not counted', () => {
    const a = taxiAt('A', BELEM, BEL_LIVRE, 0, -15).stay(400);
    const b = taxiAt('B', BELEM, BEL_LIVRE, 10, -5).stay(400);
    const d = taxiAt('D', BELEM, BEL_LIVRE, 20, 5);
    d.samples.length = 0;
    d.set(hired).emit({ speedKmh: 0 }).stay(120).drive(60, 30, 90);
    const e = taxiAt('E', BELEM, BEL_LIVRE, 30, 15).stay(300);
    const found = overflow(inTimeOrder(a, b, d, e));
    expect(found.map((v) => v.vehicleId)).toEqual(['E']);
    expect(found[0]?.measured).toMatchObject({ places: 2, waitingAheadAtCheck: 2 });
    expect(found[0]?.confidence).toBe('confirmed');
  });

  it('Art. 3 XIV b: one taxi waiting and a drop-off at a 2-place stand leave a place: the newcomer is not flagged', () => {
    const a = taxiAt('A', BELEM, BEL_LIVRE, 0, -15).stay(400);
    const d = taxiAt('D', BELEM, BEL_LIVRE, 10, -5);
    d.samples.length = 0;
    d.set(hired).emit({ speedKmh: 0 }).stay(200).drive(60, 30, 90);
    const e = taxiAt('E', BELEM, BEL_LIVRE, 30, 15).stay(300);
    expect(overflow(inTimeOrder(a, d, e))).toHaveLength(0);
  });

  it('Art. 3 XIV b: a taxi that drops off, turns free and stays waits from the moment its meter is free', () => {
    const a = taxiAt('A', BELEM, BEL_LIVRE, 0, -15).stay(400);
    const b = taxiAt('B', BELEM, BEL_LIVRE, 10, -5).stay(400);
    const d = taxiAt('D', BELEM, BEL_LIVRE, 20, 5);
    d.samples.length = 0;
    d.set(hired).emit({ speedKmh: 0 }).stay(40).set(free).stay(200);
    const found = overflow(inTimeOrder(a, b, d));
    expect(found.map((v) => v.vehicleId)).toEqual(['D']);
    // It started waiting when the meter went free (45 s after pulling in), not when it arrived.
    const arrived = at(BELEM, '2026-03-04', '10:00:20').getTime();
    expect(found[0]?.startedAt.getTime()).toBe(arrived + 45_000);
  });
});

describe('BEL_STAND_QUEUE_JUMP / BEL_STAND_UNAUTHORIZED — at a ponto fixo only holders queue (Art. 3 XIV a, Art. 58 item 3.1)', () => {
  it('Art. 3 XIV a: a holder hired ahead of a taxi without a place jumped nobody; the intruder is BEL_STAND_UNAUTHORIZED', () => {
    const x = taxiAt('X', BELEM, BEL_FIXO, 0, -10).stay(400);
    const h = taxiAt('H1', BELEM, BEL_FIXO, 60, 10).stay(60).wait(5).set(hired).emit({ speedKmh: 0 }).drive(60, 30, 90);
    const events = run(belemEngine(), inTimeOrder(x, h));
    expect(latest(events, 'BEL_STAND_QUEUE_JUMP')).toHaveLength(0);
    expect(latest(events, 'BEL_STAND_UNAUTHORIZED').map((v) => v.vehicleId)).toEqual(['X']);
  });

  it('Art. 58 item 3.1: a holder hired ahead of another holder waiting longer jumped the queue (group III, 40 IPCA-E)', () => {
    const h1 = taxiAt('H1', BELEM, BEL_FIXO, 0, -10).stay(400);
    const h2 = taxiAt('H2', BELEM, BEL_FIXO, 60, 10)
      .stay(60)
      .wait(5)
      .set(hired)
      .emit({ speedKmh: 0 })
      .drive(60, 30, 90);
    const found = latest(run(belemEngine(), inTimeOrder(h1, h2)), 'BEL_STAND_QUEUE_JUMP');
    expect(found.map((v) => [v.vehicleId, v.measured.jumpedOver, v.measured.standKind])).toEqual([
      ['H2', ['H1'], 'fixo'],
    ]);
    expect(found[0]?.penalty).toMatchObject({ group: 'III', units: 40 });
  });

  it('Art. 58 item 3.1: a taxi without a place hired ahead of a waiting holder took the holders’ passenger (a jump); the snapshot marks who queues', () => {
    const h1 = taxiAt('H1', BELEM, BEL_FIXO, 0, -10).stay(400);
    const x = taxiAt('X', BELEM, BEL_FIXO, 60, 10).stay(60).wait(5).set(hired).emit({ speedKmh: 0 }).drive(60, 30, 90);
    const found = latest(run(belemEngine(), inTimeOrder(h1, x)), 'BEL_STAND_QUEUE_JUMP');
    expect(found.map((v) => v.vehicleId)).toEqual(['X']);
    expect(JSON.stringify(found[0]?.measured.queueSnapshot)).toContain('"inQueue":false');
  });
});
