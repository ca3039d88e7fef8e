import type { Telemetry } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { createRuleEngine, type RuleEngine } from '../src/engine/rule-engine.js';
import { decideQueueJump, legalQueue, type StandMemberSnapshot } from '../src/packs/common/stand-queue.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { ViolationEvent } from '../src/violations/violation.js';
import { latest } from './helpers/events.js';
import { baseOperators, square, taxi } from './helpers/fixtures.js';
import { at, BELEM, offset, SAO_PAULO, Trace } from './helpers/trace.js';

/**
 * The legal queue dispatch reads (issue 10 item 3): the stand board's own view of who waits at a
 * stand, first in line first, with the queue-jump rule's predicate of who is waiting for hire.
 */

const DF_STAND = { lat: -15.7975, lon: -47.8919 };
const BEL_STAND = { lat: -1.451, lon: -48.487 };

describe('legalQueue (pure)', () => {
  const m = (vehicleId: string, enteredMs: number, extra: Partial<StandMemberSnapshot> = {}): StandMemberSnapshot => ({
    vehicleId,
    enteredMs,
    presentAtT: true,
    meterAtT: 'free',
    ...extra,
  });

  it('keeps the present taxis of the queue whose meter is free or unknown, first entered first', () => {
    const members = [
      m('E', 50_000),
      m('A', 10_000),
      m('B', 20_000, { meterAtT: null }),
      m('C', 5_000, { meterAtT: 'hired' }),
      m('D', 1_000, { inQueue: false }),
      m('F', 2_000, { presentAtT: false }),
      m('G', 3_000, { hiredOrLeftAtSameTime: true }),
      m('AA', 10_000),
    ];
    expect(legalQueue(members).map((x) => x.vehicleId)).toEqual(['A', 'AA', 'B', 'E']);
  });

  it('a hire jumps exactly the taxis of the legal queue that entered a tolerance before it', () => {
    const members = [m('A', 0), m('B', 40_000, { meterAtT: null }), m('C', 5_000, { inQueue: false }), m('D', 80_000)];
    const jump = decideQueueJump({ enteredMs: 100_000, viaMeter: true }, members, 30);
    const ahead = legalQueue(members).filter((x) => x.enteredMs <= 100_000 - 30_000);
    expect(jump?.jumpedOver.map((x) => x.vehicleId)).toEqual(ahead.map((x) => x.vehicleId));
  });
});

interface Plan {
  readonly id: string;
  /** Seconds after 10:00 it arrives and stays. */
  readonly arrive: number;
  /** Seconds after 10:00 its meter goes hired (a passenger boards), then it drives off 15 s later. */
  readonly hired?: number;
  readonly meter?: 'free' | null;
  /** Seconds after 10:00 a passenger boards with no meter data (it stays). */
  readonly boards?: number;
}

function trace(tz: string, place: { lat: number; lon: number }, plans: readonly Plan[], until = 400): Telemetry[] {
  return plans
    .flatMap((p, i) => {
      const spot = offset(place.lat, place.lon, 3 * i, 45);
      const t = new Trace({
        at: new Date(at(tz, '2026-03-04', '10:00:00').getTime() + p.arrive * 1000),
        lat: spot.lat,
        lon: spot.lon,
        fields: { vehicleId: p.id, meterState: p.meter === undefined ? 'free' : p.meter, passengers: 0 },
      });
      t.emit();
      if (p.hired !== undefined)
        t.stay(p.hired - p.arrive)
          .set({ meterState: 'hired', passengers: 1 })
          .stay(15)
          .drive(60, 30);
      else if (p.boards !== undefined)
        t.stay(p.boards - p.arrive)
          .set({ passengers: 1 })
          .stay(until - p.boards);
      else t.stay(until - p.arrive);
      return t.samples;
    })
    .sort((a, b) => a.ts.getTime() - b.ts.getTime() || (a.vehicleId < b.vehicleId ? -1 : 1));
}

const tenOClock = (tz: string): number => at(tz, '2026-03-04', '10:00:00').getTime();

/** Feeds the samples up to `untilS` after 10:00; returns the events raised. */
function feedUntil(
  engine: RuleEngine,
  samples: Telemetry[],
  fromS: number,
  untilS: number,
  tz: string,
): ViolationEvent[] {
  const t0 = tenOClock(tz);
  const events: ViolationEvent[] = [];
  for (const s of samples) {
    const dt = (s.ts.getTime() - t0) / 1000;
    if (dt >= fromS && dt < untilS) events.push(...engine.ingest(s));
  }
  return events;
}

const queueOf = (engine: RuleEngine, standId: string): string[] | undefined => {
  const changes = engine.standQueueChanges().filter((c) => c.standId === standId);
  return changes[changes.length - 1]?.items.map((i) => i.vehicleId);
};

describe('the engine reports the legal queues that changed', () => {
  function dfEngine(): RuleEngine {
    return createRuleEngine({
      registry: createInMemoryRegistry({
        operators: baseOperators,
        vehicles: ['A', 'B', 'C', 'D'].map((id) => taxi(id, 'df-taxi')),
        stands: [
          {
            id: 'ST-FIXO',
            pack: 'df-taxi',
            name: 'Ponto fixo Rodoviária',
            geometry: { type: 'Point', coordinates: [DF_STAND.lon, DF_STAND.lat] },
            radiusM: 30,
            places: 4,
            kind: 'fixo',
            holderVehicleIds: ['A', 'B', 'C'],
          },
        ],
      }),
    });
  }

  it('DF ponto fixo: holders in entry order, the non-holder left out, the hired one gone; the jump names those ahead', () => {
    const engine = dfEngine();
    const samples = trace(SAO_PAULO, DF_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'B', arrive: 60 },
      { id: 'D', arrive: 90 },
      { id: 'C', arrive: 120, hired: 200 },
    ]);
    feedUntil(engine, samples, 0, 70, SAO_PAULO);
    const first = engine.standQueueChanges();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ standId: 'ST-FIXO', pack: 'df-taxi' });
    expect(first[0]?.items).toEqual([
      { vehicleId: 'A', enteredMs: tenOClock(SAO_PAULO) },
      { vehicleId: 'B', enteredMs: tenOClock(SAO_PAULO) + 60_000 },
    ]);
    // Nothing moved at the stand: nothing to report.
    feedUntil(engine, samples, 70, 85, SAO_PAULO);
    expect(engine.standQueueChanges()).toEqual([]);

    feedUntil(engine, samples, 85, 190, SAO_PAULO);
    const before = queueOf(engine, 'ST-FIXO');
    expect(before).toEqual(['A', 'B', 'C']);
    const events = feedUntil(engine, samples, 190, 250, SAO_PAULO);
    expect(queueOf(engine, 'ST-FIXO')).toEqual(['A', 'B']);
    events.push(...feedUntil(engine, samples, 250, 10_000, SAO_PAULO), ...engine.close());
    const jump = latest(events, 'DF_STAND_QUEUE_JUMP');
    expect(jump.map((v) => v.vehicleId)).toEqual(['C']);
    expect(jump[0]?.measured.jumpedOver).toEqual(before?.slice(0, before.indexOf('C')));
  });

  it('an empty queue is reported once when the stand empties', () => {
    const engine = dfEngine();
    const samples = trace(SAO_PAULO, DF_STAND, [{ id: 'A', arrive: 0, hired: 60 }]);
    feedUntil(engine, samples, 0, 30, SAO_PAULO);
    expect(queueOf(engine, 'ST-FIXO')).toEqual(['A']);
    feedUntil(engine, samples, 30, 10_000, SAO_PAULO);
    expect(queueOf(engine, 'ST-FIXO')).toEqual([]);
    expect(engine.standQueueChanges()).toEqual([]);
  });

  it('Belém ponto livre: a taxi with no meter data waits until a passenger boards', () => {
    const engine = createRuleEngine({
      registry: createInMemoryRegistry({
        operators: baseOperators,
        vehicles: ['A', 'B'].map((id) => taxi(id, 'belem-taxi')),
        stands: [
          {
            id: 'PL-1',
            pack: 'belem-taxi',
            name: 'Ponto livre Estação das Docas',
            geometry: square(BEL_STAND.lat, BEL_STAND.lon, 25),
            places: 4,
            kind: 'livre',
          },
        ],
      }),
    });
    const samples = trace(BELEM, BEL_STAND, [
      { id: 'A', arrive: 0, meter: null, boards: 120 },
      { id: 'B', arrive: 30 },
    ]);
    feedUntil(engine, samples, 0, 100, BELEM);
    expect(queueOf(engine, 'PL-1')).toEqual(['A', 'B']);
    feedUntil(engine, samples, 100, 140, BELEM);
    expect(queueOf(engine, 'PL-1')).toEqual(['B']);
  });
});
