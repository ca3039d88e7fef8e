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
 * Issue 7: the taxi first in the queue must not lose its place to its tracker. The classes found
 * by the precision harness, each at and around its boundary (stands.* settings, stand-config.ts):
 * (a) one or two multipath fixes thrown 50–300 m at a standstill; (b) a dropout longer than
 * general.maxGapS while standing in the stand; (c) an urban canyon (accuracy 15–50 m) wandering
 * around the stand; (d) two passengers at once, the taxi behind starting its meter first.
 */

const dfEngine = (): RuleEngine => dfStandEngine(['A', 'C']);

function belemEngine(): RuleEngine {
  return createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: ['A', 'C'].map((id) => taxi(id, 'belem-taxi')),
      stands: [
        {
          id: 'PL-1',
          pack: 'belem-taxi',
          name: 'Ponto livre Estação das Docas',
          geometry: square(BEL_LIVRE.lat, BEL_LIVRE.lon, 25),
          places: 4,
          kind: 'livre',
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

/** Fixes thrown `metres` north of where the taxi stands, every `every` s, the taxi not moving. */
function thrown(t: Trace, fixes: number, metres: number, accuracyM: number, every = 5): Trace {
  const home = t.position;
  const off = offset(home.lat, home.lon, metres, 0);
  for (let i = 0; i < fixes; i++) t.wait(every).moveTo(off.lat, off.lon).emit({ speedKmh: 0, accuracyM });
  return t.moveTo(home.lat, home.lon);
}

/** The meter goes hired where the taxi stands, and it drives off. */
const hire = (t: Trace): Trace => t.wait(5).set(hired).emit({ speedKmh: 0 }).drive(60, 30, 90);

const inTimeOrder = (...traces: Trace[]): Telemetry[] =>
  traces
    .flatMap((t) => t.samples)
    .sort((a, b) => a.ts.getTime() - b.ts.getTime() || (a.vehicleId < b.vehicleId ? -1 : 1));

/** Each device's whole trace in one upload, devices in reverse order (a backlog). */
const asBacklogs = (...traces: Trace[]): Telemetry[] => [...traces].reverse().flatMap((t) => t.samples);

const dfJumps = (samples: Telemetry[]): Violation[] => latest(run(dfEngine(), samples), 'DF_STAND_QUEUE_JUMP');
const belJumps = (samples: Telemetry[]): Violation[] => latest(run(belemEngine(), samples), 'BEL_STAND_QUEUE_JUMP');

/**
 * A is first in the queue (10:00), C pulls in behind it at 10:01 and keeps waiting. `fault`
 * happens to A's tracker from 10:01:40; A is then hired inside the stand. Honest: no jump.
 */
function headOfQueue(
  place: { lat: number; lon: number },
  tz: string,
  fault: (a: Trace) => Trace,
  spotM = -10,
): { a: Trace; c: Trace } {
  const a = fault(taxiAt('A', tz, place, 0, spotM).stay(100));
  hire(a.stay(20));
  const c = taxiAt('C', tz, place, 60, 10).stay(1500);
  return { a, c };
}

describe('DF_STAND_QUEUE_JUMP — Art. 37 m, n: multipath fixes are not a departure (a)', () => {
  it('Art. 37 m: one fix thrown 150 m at a standstill, accuracy falsely small (5 m), keeps the head of the queue in place: no jump', () => {
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, (t) => thrown(t, 1, 150, 5).stay(30));
    expect(dfJumps(inTimeOrder(a, c))).toHaveLength(0);
  });

  it('Art. 37 m: two fixes thrown 300 m (the most the harness sees), accuracy honest (100 m) or not: no jump', () => {
    for (const accuracyM of [5, 100]) {
      const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, (t) => thrown(t, 2, 300, accuracyM).stay(30));
      expect(dfJumps(inTimeOrder(a, c)), `accuracy ${accuracyM} m`).toHaveLength(0);
    }
  });

  it('Art. 37 m: three fixes 150 m off over 15 s (exitConfirmFixes 3, exitConfirmS 10) is sustained absence: A left, came back behind C and jumped it', () => {
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, (t) => thrown(t, 3, 150, 5).stay(60));
    const found = dfJumps(inTimeOrder(a, c));
    expect(found.map((v) => [v.vehicleId, v.measured.jumpedOver, v.confidence])).toEqual([['A', ['C'], 'confirmed']]);
  });

  it('Art. 37 m: driving away at 30 km/h (the reported movement explains the fix) ends the place at once: back 2 minutes later and hired ahead of C, a jump', () => {
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, (t) => {
      const home = t.position;
      return t.drive(20, 30, 0).wait(80).moveTo(home.lat, home.lon).emit({ speedKmh: 0 }).stay(30);
    });
    expect(dfJumps(inTimeOrder(a, c)).map((v) => v.vehicleId)).toEqual(['A']);
  });
});

describe('DF_STAND_QUEUE_JUMP — Art. 37 m, n: a silence of the tracker keeps the place (b)', () => {
  it('Art. 37 m: a 3-minute dropout while first in the queue keeps A’s entry time: no jump', () => {
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, (t) => t.wait(180).emit({ speedKmh: 0 }).stay(10));
    expect(dfJumps(inTimeOrder(a, c))).toHaveLength(0);
  });

  it('Art. 37 m: a 14-minute dropout (within gapKeepsPlaceS, 900 s), found again 20 m from where it was: no jump, live or as backlogs', () => {
    const fault = (t: Trace): Trace => {
      const p = offset(t.position.lat, t.position.lon, 20, 90);
      return t.wait(840).moveTo(p.lat, p.lon).emit({ speedKmh: 0 }).stay(10);
    };
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, fault);
    expect(dfJumps(inTimeOrder(a, c))).toHaveLength(0);
    expect(dfJumps(asBacklogs(a, c))).toHaveLength(0);
  });

  it('Art. 37 m: the first fix after a 4-minute dropout is a canyon fix 40 m beyond the edge with accuracy 45 m: found at the stand, no jump', () => {
    const fault = (t: Trace): Trace => {
      const home = t.position;
      const off = offset(home.lat, home.lon, 70, 0);
      return t
        .wait(240)
        .moveTo(off.lat, off.lon)
        .emit({ speedKmh: 0, accuracyM: 45 })
        .moveTo(home.lat, home.lon)
        .stay(10);
    };
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, fault);
    expect(dfJumps(inTimeOrder(a, c))).toHaveLength(0);
  });

  it('Art. 37 m: a taxi first seen at the stand after a 3-minute silence may have arrived when it went silent: hired ahead of a taxi that arrived during the silence, no jump; one that arrived before the silence was jumped', () => {
    // H drives towards the stand and goes silent 300 m away at 10:00; it is next seen waiting at 10:03.
    const start = offset(DF_STAND.lat, DF_STAND.lon, 300, 270);
    const h = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
      lat: start.lat,
      lon: start.lon,
      fields: { vehicleId: 'C', deviceId: 'dev-C', ...free },
    }).emit({ speedKmh: 30 });
    const spot = offset(DF_STAND.lat, DF_STAND.lon, 10, 90);
    hire(h.wait(180).moveTo(spot.lat, spot.lon).emit({ speedKmh: 0 }).stay(60));
    const during = taxiAt('A', SAO_PAULO, DF_STAND, 60, -10).stay(600);
    expect(dfJumps(inTimeOrder(during, h))).toHaveLength(0);
    const h2 = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
      lat: start.lat,
      lon: start.lon,
      fields: { vehicleId: 'C', deviceId: 'dev-C', ...free },
    }).emit({ speedKmh: 30 });
    hire(h2.wait(180).moveTo(spot.lat, spot.lon).emit({ speedKmh: 0 }).stay(60));
    const before = taxiAt('A', SAO_PAULO, DF_STAND, -40, -10).stay(600);
    const found = dfJumps(inTimeOrder(before, h2));
    expect(found.map((v) => [v.vehicleId, v.measured.jumpedOver])).toEqual([['C', ['A']]]);
    expect(found[0]?.measured.hiredTaxiArrivalHiddenSince).toBe(at(SAO_PAULO, '2026-03-04', '10:00:00').toISOString());
  });

  it('Art. 37 m: found 53 m from where it was after the silence (beyond gapStillM, 50 m, plus both fixes’ accuracies, 1 m each), still inside the stand, A has left and come back: its new place is behind C (a jump)', () => {
    const fault = (t: Trace): Trace => {
      const p = offset(t.position.lat, t.position.lon, 53, 90);
      t.wait(5).emit({ speedKmh: 0, accuracyM: 1 });
      return t.wait(180).moveTo(p.lat, p.lon).emit({ speedKmh: 0, accuracyM: 1 }).stay(40);
    };
    // A waits 26 m west of the centre of the 30 m circle and is found 27 m east of it.
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, fault, -26);
    expect(dfJumps(inTimeOrder(a, c)).map((v) => v.vehicleId)).toEqual(['A']);
  });

  it('Art. 37 m: a jump over a taxi whose presence rests on a silence of its tracker is only suspected, live or as backlogs', () => {
    // A waits from 10:00 but is silent 10:01:40–10:06:40; C pulls in at 10:03 and is hired at 10:08.
    const a = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10).stay(100).wait(300).emit({ speedKmh: 0 }).stay(600);
    const c = hire(taxiAt('C', SAO_PAULO, DF_STAND, 180, 10).stay(295));
    for (const samples of [inTimeOrder(a, c), asBacklogs(a, c)]) {
      const found = dfJumps(samples);
      expect(found.map((v) => [v.vehicleId, v.confidence])).toEqual([['C', 'suspected']]);
      expect(JSON.stringify(found[0]?.measured.queueSnapshot)).toContain('"presenceAcrossSilence":true');
    }
  });

  it('Art. 37 m: C hired while A is silent, A seen hired after its silence: A may have boarded first, no jump', () => {
    const a = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10)
      .stay(100)
      .wait(300)
      .set(hired)
      .emit({ speedKmh: 0 })
      .drive(60, 30, 90);
    const c = hire(taxiAt('C', SAO_PAULO, DF_STAND, 60, 10).stay(175));
    expect(dfJumps(inTimeOrder(a, c))).toHaveLength(0);
  });

  it('Art. 37 m: a hire seen only across a silence of the hired taxi’s tracker is suspected (when it happened is unknown)', () => {
    const a = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10).stay(900);
    const c = taxiAt('C', SAO_PAULO, DF_STAND, 60, 10)
      .stay(60)
      .wait(180)
      .set(hired)
      .emit({ speedKmh: 0 })
      .drive(60, 30, 90);
    const found = dfJumps(inTimeOrder(a, c));
    expect(found.map((v) => [v.vehicleId, v.confidence, v.measured.hireSeenAcrossSilence])).toEqual([
      ['C', 'suspected', true],
    ]);
  });
});

describe('DF_STAND_QUEUE_JUMP — Art. 37 m, n: an urban canyon wandering around the stand (c)', () => {
  // 36 fixes over 3 minutes, every one 40 m beyond the area's edge (70 m from the centre).
  const canyon =
    (accuracyM: number) =>
    (t: Trace): Trace =>
      thrown(t, 36, 70, accuracyM).stay(30);

  it('Art. 37 m: fixes 40 m beyond the edge with accuracy 40 m (reaching the stand) neither keep nor end the place: no jump', () => {
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, canyon(40));
    expect(dfJumps(inTimeOrder(a, c))).toHaveLength(0);
  });

  it('Art. 37 m: the same fixes reporting accuracy 10 m are outside for 3 minutes: A left and its return is behind C (a jump)', () => {
    const { a, c } = headOfQueue(DF_STAND, SAO_PAULO, canyon(10));
    expect(dfJumps(inTimeOrder(a, c)).map((v) => v.vehicleId)).toEqual(['A']);
  });
});

describe('DF_STAND_QUEUE_JUMP — Art. 37 m, n: two passengers at once (d)', () => {
  /** A (ahead) is hired `lagS` after C (behind): both board at once, C starting its meter first. */
  function together(lagS: number, order: (...t: Trace[]) => Telemetry[] = inTimeOrder): Telemetry[] {
    const a = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10)
      .stay(195 + lagS)
      .wait(5)
      .set(hired)
      .emit({ speedKmh: 0 })
      .drive(60, 30, 90);
    const c = hire(taxiAt('C', SAO_PAULO, DF_STAND, 60, 10).stay(135));
    return order(a, c);
  }

  it('Art. 37 m: A hired 10 s or 20 s (hireOrderToleranceS) after C: boarding at the same time, no jump', () => {
    expect(dfJumps(together(10))).toHaveLength(0);
    expect(dfJumps(together(20))).toHaveLength(0);
    // C's backlog first: its decision waits for A's data to reach 20 s past C's hire.
    expect(dfJumps(together(10, asBacklogs))).toHaveLength(0);
  });

  it('Art. 37 m: A hired 30 s after C: C jumped A', () => {
    const found = dfJumps(together(30));
    expect(found.map((v) => [v.vehicleId, v.measured.jumpedOver, v.confidence])).toEqual([['C', ['A'], 'confirmed']]);
    expect(dfJumps(together(30, asBacklogs)).map((v) => v.vehicleId)).toEqual(['C']);
    expect(found[0]?.measured.hireOrderToleranceS).toBe(20);
  });
});

describe('DF_STAND_QUEUE_JUMP — Art. 37 m, n: the taxi ahead boarding or leaving at the same time (d)', () => {
  /** C (behind) is hired at 10:03:20; A (ahead) pulls out `afterS` later, to 25 m east of the area, and `then`. */
  function pullOut(afterS: number, then: (a: Trace) => Trace, order: (...t: Trace[]) => Telemetry[]): Telemetry[] {
    const a = taxiAt('A', SAO_PAULO, DF_STAND, 0, -10).stay(195 + afterS);
    const out = offset(DF_STAND.lat, DF_STAND.lon, 55, 90);
    then(a.wait(5).moveTo(out.lat, out.lon).emit({ speedKmh: 20 }));
    const c = hire(taxiAt('C', SAO_PAULO, DF_STAND, 60, 10).stay(135));
    return order(a, c);
  }
  const hiredOut = (a: Trace): Trace => a.wait(5).set(hired).emit({ speedKmh: 0 }).drive(60, 30, 90);
  const away = (a: Trace): Trace => a.drive(60, 30, 90);

  it('Art. 37 m: A pulls out as C is hired and starts its meter 25 m out 10 s after C (a hire at the stand, within hireOrderToleranceS): no jump, live or as backlogs', () => {
    expect(dfJumps(pullOut(5, hiredOut, inTimeOrder))).toHaveLength(0);
    expect(dfJumps(pullOut(5, hiredOut, asBacklogs))).toHaveLength(0);
  });

  it('Art. 37 m: A pulls out free 5 s after C’s hire (leaving at the same time; device clocks differ by seconds): no jump, live or as backlogs', () => {
    expect(dfJumps(pullOut(5, away, inTimeOrder))).toHaveLength(0);
    expect(dfJumps(pullOut(5, away, asBacklogs))).toHaveLength(0);
  });

  it('Art. 37 m: A still waits 25 s after C’s hire (beyond hireOrderToleranceS, 20 s), then leaves free: C jumped it, live or as backlogs', () => {
    for (const order of [inTimeOrder, asBacklogs]) {
      expect(dfJumps(pullOut(25, away, order)).map((v) => [v.vehicleId, v.measured.jumpedOver])).toEqual([
        ['C', ['A']],
      ]);
    }
  });
});

describe('BEL_STAND_QUEUE_JUMP — Art. 3 XIV, Art. 58 item 3.1: GPS faults do not move the queue', () => {
  it('Art. 58 item 3.1: a multipath fix, then a 10-minute dropout while first at the ponto livre: no jump, live or as backlogs', () => {
    const { a, c } = headOfQueue(BEL_LIVRE, BELEM, (t) =>
      thrown(t, 2, 200, 8).stay(20).wait(600).emit({ speedKmh: 0 }).stay(10),
    );
    expect(belJumps(inTimeOrder(a, c))).toHaveLength(0);
    expect(belJumps(asBacklogs(a, c))).toHaveLength(0);
  });

  it('Art. 58 item 3.1: a taxi that really drives off and returns behind the queue, then is hired, jumped it', () => {
    const { a, c } = headOfQueue(BEL_LIVRE, BELEM, (t) => {
      const home = t.position;
      return t.drive(20, 30, 0).wait(80).moveTo(home.lat, home.lon).emit({ speedKmh: 0 }).stay(30);
    });
    const found = belJumps(inTimeOrder(a, c));
    expect(found.map((v) => [v.vehicleId, v.measured.jumpedOver])).toEqual([['A', ['C']]]);
    expect(found[0]?.penalty).toMatchObject({ group: 'III' });
  });

  it('Art. 58 item 3.1: two passengers at once, the taxi behind starting its meter 8 s first: no jump', () => {
    const a = taxiAt('A', BELEM, BEL_LIVRE, 0, -10)
      .stay(205)
      .wait(3)
      .set(hired)
      .emit({ speedKmh: 0 })
      .drive(60, 30, 90);
    const c = hire(taxiAt('C', BELEM, BEL_LIVRE, 60, 10).stay(135));
    expect(belJumps(inTimeOrder(a, c))).toHaveLength(0);
  });
});
