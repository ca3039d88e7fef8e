import type { Telemetry } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { createRuleEngine, type RuleEngine } from '../src/engine/rule-engine.js';
import { decideOverflow, decideQueueJump } from '../src/packs/common/stand-queue.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { ViolationEvent } from '../src/violations/violation.js';
import { latest, num } from './helpers/events.js';
import { baseOperators, square, taxi } from './helpers/fixtures.js';
import { at, BELEM, offset, SAO_PAULO, Trace } from './helpers/trace.js';

const DF_STAND = { lat: -15.7975, lon: -47.8919 };
const BEL_STAND = { lat: -1.451, lon: -48.487 };

function dfEngine(): RuleEngine {
  return createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: ['A', 'B', 'C', 'D'].map((id) => taxi(id, 'df-taxi')),
      stands: [
        {
          id: 'ST-1',
          pack: 'df-taxi',
          name: 'Ponto Setor Hoteleiro Sul',
          geometry: { type: 'Point', coordinates: [DF_STAND.lon, DF_STAND.lat] },
          radiusM: 30,
          places: 4,
          kind: 'livre',
        },
      ],
    }),
  });
}

function belemEngine(places = 2): RuleEngine {
  return createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: ['A', 'B', 'C', 'D', 'E'].map((id) => taxi(id, 'belem-taxi')),
      stands: [
        {
          id: 'PL-1',
          pack: 'belem-taxi',
          name: 'Ponto livre Estação das Docas',
          geometry: square(BEL_STAND.lat, BEL_STAND.lon, 25),
          places,
          kind: 'livre',
        },
      ],
    }),
  });
}

interface Plan {
  id: string;
  /** Seconds after 10:00 the taxi arrives (stands still inside the stand from then). */
  arrive: number;
  /** Seconds after 10:00 its meter goes to hired (then it drives off 20 s later). */
  hired?: number;
  /** Seconds after 10:00 it drives away free. */
  leave?: number;
  /** Last second to report (default 600). */
  until?: number;
  meter?: 'free' | null;
}

/** Samples every 5 s for each planned taxi at the stand (10:00 local + offsets). */
function standTrace(tz: string, place: { lat: number; lon: number }, plans: Plan[]): Map<string, Telemetry[]> {
  const out = new Map<string, Telemetry[]>();
  plans.forEach((p, i) => {
    const spot = offset(place.lat, place.lon, 3 * i, 45);
    const start = new Date(at(tz, '2026-03-04', '10:00:00').getTime() + p.arrive * 1000);
    const t = new Trace({
      at: start,
      lat: spot.lat,
      lon: spot.lon,
      fields: { vehicleId: p.id, meterState: p.meter === undefined ? 'free' : p.meter, passengers: 0 },
    });
    t.emit();
    const until = p.until ?? 600;
    const end = Math.min(p.hired !== undefined ? p.hired : until, p.leave ?? until);
    t.stay(end - p.arrive);
    if (p.hired !== undefined) t.set({ meterState: 'hired', passengers: 1 }).stay(15).drive(60, 30);
    else if (p.leave !== undefined) t.drive(60, 30);
    out.set(p.id, t.samples);
  });
  return out;
}

/** Interleave by time (what a healthy pipeline delivers). */
const inTimeOrder = (traces: Map<string, Telemetry[]>): Telemetry[] =>
  [...traces.values()].flat().sort((a, b) => a.ts.getTime() - b.ts.getTime());

function feed(engine: RuleEngine, samples: Telemetry[]): ViolationEvent[] {
  const events: ViolationEvent[] = [];
  for (const s of samples) events.push(...engine.ingest(s));
  events.push(...engine.close());
  return events;
}

describe('stand queue decisions (pure) — DF Art. 37 m, n; Belém Art. 58 item 1.5, Art. 3 XIV b', () => {
  const member = (
    vehicleId: string,
    enteredMs: number,
    meterAtT: 'free' | 'hired' | null = 'free',
    presentAtT = true,
  ) => ({ vehicleId, enteredMs, meterAtT, presentAtT });
  it('a hired taxi jumped the taxis that entered ≥ 30 s before it and were still there and free', () => {
    const d = decideQueueJump(
      { enteredMs: 100_000, viaMeter: true },
      [member('A', 0), member('B', 80_000), member('C', 10_000, 'hired'), member('D', 5_000, 'free', false)],
      30,
    );
    expect(d?.jumpedOver.map((m) => m.vehicleId)).toEqual(['A']);
    expect(d?.confidence).toBe('confirmed');
    expect(decideQueueJump({ enteredMs: 100_000, viaMeter: true }, [member('A', 75_000)], 30)).toBeNull();
    expect(decideQueueJump({ enteredMs: 100_000, viaMeter: true }, [member('A', 0, null)], 30)?.confidence).toBe(
      'suspected',
    );
  });
  it('a ponto livre overflows only for taxis with at least `places` waiting taxis ahead of them', () => {
    const waiting = (id: string, since: number, meter: 'free' | 'hired' | null = 'free') => ({
      ...member(id, since, meter),
      waitingSinceMs: meter === 'hired' ? null : since,
    });
    const ahead = [waiting('A', 0), waiting('B', 10_000)];
    const entrant = (since: number | null) => ({ waitingSinceMs: since, meterAtCheck: 'free' as const });
    expect(decideOverflow(entrant(20_000), ahead, 2)?.ahead).toHaveLength(2);
    expect(decideOverflow(entrant(20_000), ahead, 2)?.confidence).toBe('confirmed');
    expect(decideOverflow(entrant(20_000), ahead, 3)).toBeNull();
    expect(decideOverflow(entrant(null), ahead, 2)).toBeNull();
    expect(decideOverflow(entrant(5_000), ahead, 2)).toBeNull();
    // Art. 3 XIV b: a hired taxi dropping a passenger off is not waiting, so it takes no place.
    expect(decideOverflow(entrant(20_000), [waiting('A', 0), waiting('B', 10_000, 'hired')], 2)).toBeNull();
    // No meter data: the stand may be full, but only a suspicion.
    expect(decideOverflow(entrant(20_000), [waiting('A', 0), waiting('B', 10_000, null)], 2)?.confidence).toBe(
      'suspected',
    );
  });
});

describe('DF_STAND_QUEUE_JUMP — Art. 37 m, n', () => {
  it('flags the taxi hired at the back of the queue, with the queue snapshot', () => {
    const traces = standTrace(SAO_PAULO, DF_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'B', arrive: 60 },
      { id: 'C', arrive: 120, hired: 180 },
    ]);
    const found = latest(feed(dfEngine(), inTimeOrder(traces)), 'DF_STAND_QUEUE_JUMP');
    expect(found).toHaveLength(1);
    const v = found[0];
    expect(v?.vehicleId).toBe('C');
    expect(v?.measured.jumpedOver).toEqual(['A', 'B']);
    expect(v?.place).toMatchObject({ id: 'ST-1', kind: 'stand' });
    expect(v?.confidence).toBe('confirmed');
    // The hire is seen on C's first sample with the meter hired, 185 s after A arrived.
    if (v) expect(num(v, 'longestWaitS')).toBe(185);
    expect(JSON.stringify(v?.measured.queueSnapshot)).toContain('"vehicleId":"A"');
    expect(v?.penalty.group).toBe('A');
  });

  it('does not flag the taxi at the head of the queue, nor one that arrived within 30 s of the one ahead', () => {
    const head = standTrace(SAO_PAULO, DF_STAND, [
      { id: 'A', arrive: 0, hired: 180 },
      { id: 'B', arrive: 60 },
    ]);
    expect(latest(feed(dfEngine(), inTimeOrder(head)), 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
    const close = standTrace(SAO_PAULO, DF_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'B', arrive: 20, hired: 180 },
    ]);
    expect(latest(feed(dfEngine(), inTimeOrder(close)), 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
  });

  it('does not flag a hire after the taxis ahead have left or been hired', () => {
    const traces = standTrace(SAO_PAULO, DF_STAND, [
      { id: 'A', arrive: 0, hired: 100 },
      { id: 'B', arrive: 30, leave: 150 },
      { id: 'C', arrive: 90, hired: 200 },
    ]);
    expect(latest(feed(dfEngine(), inTimeOrder(traces)), 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
  });

  it('waits for late telemetry: a taxi that had left before the hire, reported late, is not jumped', () => {
    const traces = standTrace(SAO_PAULO, DF_STAND, [
      { id: 'A', arrive: 0, leave: 150 },
      { id: 'C', arrive: 60, hired: 180 },
    ]);
    // C's whole trace arrives first, A's afterwards (a device that buffered while offline).
    const lateA = [...(traces.get('C') ?? []), ...(traces.get('A') ?? [])];
    expect(latest(feed(dfEngine(), lateA), 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
    // Same delivery order, but A was still waiting: the jump is found once A's telemetry catches up.
    const stayed = standTrace(SAO_PAULO, DF_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'C', arrive: 60, hired: 180 },
    ]);
    const found = latest(
      feed(dfEngine(), [...(stayed.get('C') ?? []), ...(stayed.get('A') ?? [])]),
      'DF_STAND_QUEUE_JUMP',
    );
    expect(found.map((v) => v.vehicleId)).toEqual(['C']);
  });
});

describe('BEL_STAND_OVERFLOW — Art. 3 XIV b (ponto livre), Art. 58 item 1.5', () => {
  it('flags only the taxis that entered after the stand was full', () => {
    const traces = standTrace(BELEM, BEL_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'B', arrive: 60 },
      { id: 'C', arrive: 120 },
      { id: 'D', arrive: 150 },
    ]);
    const found = latest(feed(belemEngine(2), inTimeOrder(traces)), 'BEL_STAND_OVERFLOW');
    expect(found.map((v) => v.vehicleId).sort()).toEqual(['C', 'D']);
    const c = found.find((v) => v.vehicleId === 'C');
    expect(c && num(c, 'places')).toBe(2);
    expect(c && num(c, 'waitingAheadAtCheck')).toBe(2);
    expect(c?.penalty).toMatchObject({ group: 'I', units: 20 });
    expect(c?.phase).toBe('final');
  });

  it('clears a taxi when a place frees up within a minute of its arrival', () => {
    const traces = standTrace(BELEM, BEL_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'B', arrive: 60, leave: 140 },
      { id: 'C', arrive: 120 },
      { id: 'D', arrive: 150 },
    ]);
    const found = latest(feed(belemEngine(2), inTimeOrder(traces)), 'BEL_STAND_OVERFLOW');
    expect(found.map((v) => v.vehicleId)).toEqual(['D']);
  });

  it('flags nothing while the stand has room', () => {
    const traces = standTrace(BELEM, BEL_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'B', arrive: 60 },
      { id: 'C', arrive: 120 },
    ]);
    expect(latest(feed(belemEngine(3), inTimeOrder(traces)), 'BEL_STAND_OVERFLOW')).toHaveLength(0);
  });
});

describe('BEL_STAND_QUEUE_JUMP — Art. 3 XIV, Art. 58 item 3.1', () => {
  it('Art. 58 item 3.1: flags a taxi hired ahead of one waiting longer at a ponto livre (group III, 40 IPCA-E)', () => {
    const traces = standTrace(BELEM, BEL_STAND, [
      { id: 'A', arrive: 0 },
      { id: 'B', arrive: 60, hired: 120 },
    ]);
    const found = latest(feed(belemEngine(4), inTimeOrder(traces)), 'BEL_STAND_QUEUE_JUMP');
    expect(found.map((v) => v.vehicleId)).toEqual(['B']);
    expect(found[0]?.penalty).toMatchObject({ group: 'III', units: 40, item: 'Art. 58 item 3.1' });
    expect(found[0]?.legalBasis).toEqual(['Art. 3 XIV', 'Art. 58 item 3.1']);
  });
});
