import type { Telemetry } from '@vigia/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRuleEngine, type RuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { ViolationEvent } from '../src/violations/violation.js';
import { baseOperators, bus, square, taxi } from './helpers/fixtures.js';
import { at, BELEM, offset, SAO_PAULO, Trace } from './helpers/trace.js';

/**
 * RULES.md "Late and buffered data": the rules judge in event time. The same telemetry fed
 * interleaved in time order with a periodic flush(ts) (live), or device by device as whole
 * backlogs — in reverse order, or in random chunks — with wall-clock flushes 30 minutes to hours
 * ahead of the data before and between them (late), gives the same final violations.
 */

const DF_STAND = { lat: -15.7975, lon: -47.8919 };
const BEL_LIVRE = { lat: -1.451, lon: -48.487 };
const BEL_FIXO = { lat: -1.46, lon: -48.49 };
const SP = { lat: -23.5505, lon: -46.6333 };

const engine = (): RuleEngine =>
  createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: [
        ...['A', 'B', 'C', 'D'].map((id) => taxi(`df-${id}`, 'df-taxi')),
        ...['A', 'B', 'C', 'D', 'E', 'H1', 'H2', 'X'].map((id) => taxi(`bel-${id}`, 'belem-taxi')),
        bus('bus-1'),
      ],
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
          holderVehicleIds: ['bel-H1', 'bel-H2'],
        },
      ],
      unitValues: [{ unit: 'ORTN', validFrom: '2000-01-01', valueBrl: 100 }],
    }),
  });

const free = { meterState: 'free' as const, passengers: 0 };
const hired = { meterState: 'hired' as const, passengers: 1 };

function taxiAt(id: string, tz: string, place: { lat: number; lon: number }, arriveS: number, spotM: number): Trace {
  const spot = offset(place.lat, place.lon, spotM, 90);
  return new Trace({
    at: new Date(at(tz, '2026-03-04', '10:00:00').getTime() + arriveS * 1000),
    lat: spot.lat,
    lon: spot.lon,
    fields: { vehicleId: id, deviceId: `dev-${id}`, ...free },
  }).emit({ speedKmh: 0 });
}

const hire = (t: Trace): Trace => t.wait(5).set(hired).emit({ speedKmh: 0 }).drive(60, 30, 90);

/** Stand scenes of both taxi packs and a bus that speeds, goes silent 20 min (past idleCloseS) and speeds again. */
function devices(): Telemetry[][] {
  const df = [
    taxiAt('df-A', SAO_PAULO, DF_STAND, 0, -15).stay(400),
    taxiAt('df-D', SAO_PAULO, DF_STAND, 30, -5).stay(120).drive(60, 30, 90),
    taxiAt('df-B', SAO_PAULO, DF_STAND, 60, 5).stay(400),
    hire(taxiAt('df-C', SAO_PAULO, DF_STAND, 120, 15).stay(60)),
  ];
  const dropOff = taxiAt('bel-D', BELEM, BEL_LIVRE, 25, 5);
  dropOff.samples.length = 0;
  dropOff.set(hired).emit({ speedKmh: 0 }).stay(40).set(free).stay(60).drive(60, 30, 90);
  const belem = [
    taxiAt('bel-A', BELEM, BEL_LIVRE, 0, -15).stay(150).drive(60, 30, 90),
    taxiAt('bel-B', BELEM, BEL_LIVRE, 10, -5).stay(400),
    taxiAt('bel-C', BELEM, BEL_LIVRE, 20, 10).stay(300),
    dropOff,
    taxiAt('bel-E', BELEM, BEL_LIVRE, 200, 15).stay(200),
    taxiAt('bel-X', BELEM, BEL_FIXO, 0, -10).stay(300),
    taxiAt('bel-H1', BELEM, BEL_FIXO, 20, 0).stay(400),
    hire(taxiAt('bel-H2', BELEM, BEL_FIXO, 80, 10).stay(60)),
  ];
  const coach = new Trace({
    at: at(SAO_PAULO, '2026-03-04', '09:58:00'),
    lat: SP.lat,
    lon: SP.lon,
    fields: { vehicleId: 'bus-1', deviceId: 'dev-bus', tachoSpeedKmh: 95, tachoDriverId: 'D-5' },
  });
  coach.emit({ speedKmh: 95 }).drive(90, 95).wait(1200).drive(60, 95);
  return [...df, ...belem, coach].map((t) => t.samples);
}

/** The final state of every violation, as the store would hold it once everything is in. */
function finals(events: readonly ViolationEvent[]): string[] {
  const byKey = new Map<string, ViolationEvent['violation']>();
  for (const e of events) {
    if (e.type === 'withdrawn') byKey.delete(e.violation.key);
    else byKey.set(e.violation.key, e.violation);
  }
  return [...byKey.values()]
    .map((v) =>
      JSON.stringify({
        key: v.key,
        ruleId: v.ruleId,
        startedAt: v.startedAt.toISOString(),
        endedAt: v.endedAt.toISOString(),
        confidence: v.confidence,
        measured: v.measured,
        phase: v.phase,
      }),
    )
    .sort();
}

/** Live: every device's samples interleaved in time order, flush(ts) every 30 s of event time. */
function live(all: Telemetry[][]): string[] {
  const e = engine();
  const events: ViolationEvent[] = [];
  let nextFlush = Number.NEGATIVE_INFINITY;
  const ordered = all.flat().sort((a, b) => a.ts.getTime() - b.ts.getTime() || (a.vehicleId < b.vehicleId ? -1 : 1));
  for (const s of ordered) {
    const ms = s.ts.getTime();
    if (ms >= nextFlush) {
      events.push(...e.flush(ms));
      nextFlush = ms + 30_000;
    }
    events.push(...e.ingest(s));
  }
  events.push(...e.close());
  return finals(events);
}

/** Late: uploads in the given order (each a device's consecutive samples), flush(now) before and between them. */
function late(uploads: Telemetry[][], nowMs: (i: number) => number): string[] {
  const e = engine();
  const events: ViolationEvent[] = [];
  uploads.forEach((upload, i) => {
    events.push(...e.flush(nowMs(i)));
    for (const s of upload) events.push(...e.ingest(s));
  });
  events.push(...e.close());
  return finals(events);
}

describe('judgement in event time (RULES.md "Late and buffered data")', () => {
  const all = devices();
  const lastMs = Math.max(...all.flat().map((s) => s.ts.getTime()));
  const expected = live(all);

  it('the scenes raise what they should live: jumps, overflows, the intruder, the bus twice', () => {
    const rules = expected.map((x) => (JSON.parse(x) as { ruleId: string; key: string }).key);
    expect(rules.filter((k) => k.includes('DF_STAND_QUEUE_JUMP'))).toEqual([expect.stringContaining(':df-C:')]);
    expect(rules.filter((k) => k.includes('BEL_STAND_QUEUE_JUMP'))).toEqual([expect.stringContaining(':bel-H2:')]);
    expect(rules.filter((k) => k.includes('BEL_STAND_UNAUTHORIZED'))).toEqual([expect.stringContaining(':bel-X:')]);
    expect(rules.filter((k) => k.includes('BEL_STAND_OVERFLOW')).length).toBeGreaterThan(0);
    expect(rules.filter((k) => k.includes('bel-D')).filter((k) => k.includes('OVERFLOW'))).toHaveLength(0);
    // The bus: two runs, split by the 20-minute silence (idle close in event time).
    expect(rules.filter((k) => k.includes('FRET_UNSAFE_DRIVING'))).toHaveLength(2);
  });

  it('whole backlogs 30 minutes late, devices in reverse order, flush(now + 30 min) before and between them: the same final violations', () => {
    const reversed = [...all].reverse();
    expect(late(reversed, (i) => lastMs + 30 * 60_000 + i * 1000)).toEqual(expected);
  });

  it('a taxi that left the stand before the hire, its backlog arriving last, still appears in the queue snapshot (as gone)', () => {
    const d = all.filter((x) => x[0]?.vehicleId === 'df-D');
    const others = all.filter((x) => x[0]?.vehicleId !== 'df-D');
    const result = late([...others, ...d], (i) => lastMs + 30 * 60_000 + i * 1000);
    expect(result).toEqual(expected);
    const jump = result.map((x) => JSON.parse(x) as { key: string; measured: { queueSnapshot: unknown } });
    expect(JSON.stringify(jump.find((v) => v.key.includes('DF_STAND_QUEUE_JUMP'))?.measured.queueSnapshot)).toContain(
      '"vehicleId":"df-D"',
    );
  });

  it('a scene whose data is behind the pack’s watermark is decided as its data comes, with no flush or close', () => {
    const e = engine();
    const events: ViolationEvent[] = [];
    // A taxi at another stand of the pack reports 150 s later first: the watermark stays ahead of the whole scene, within the decision wait.
    const ahead = (all.find((d) => d[0]?.vehicleId === 'bel-X') ?? []).map((x) => ({
      ...x,
      ts: new Date(x.ts.getTime() + 150_000),
      receivedAt: new Date(x.ts.getTime() + 150_000),
    }));
    for (const x of ahead) events.push(...e.ingest(x));
    const livre = ['bel-A', 'bel-B', 'bel-C', 'bel-D', 'bel-E'].flatMap(
      (id) => all.find((d) => d[0]?.vehicleId === id) ?? [],
    );
    for (const x of livre.sort((a, b) => a.ts.getTime() - b.ts.getTime())) events.push(...e.ingest(x));
    const raised = events.filter((x) => x.violation.ruleId === 'BEL_STAND_OVERFLOW').map((x) => x.violation.vehicleId);
    expect(raised).toContain('bel-C');
  });

  it('a jump decided before a late taxi’s backlog came is revised under the same key, at a higher revision', () => {
    const e = engine();
    const events: ViolationEvent[] = [];
    for (const id of ['df-C', 'df-A', 'df-D', 'df-B']) {
      events.push(...e.flush(lastMs + 1_800_000));
      for (const x of all.find((d) => d[0]?.vehicleId === id) ?? []) events.push(...e.ingest(x));
    }
    const jumps = events.filter((x) => x.violation.ruleId === 'DF_STAND_QUEUE_JUMP');
    expect(jumps[0]).toMatchObject({ type: 'raised', violation: { revision: 1, measured: { jumpedOver: ['df-A'] } } });
    expect(new Set(jumps.map((x) => x.violation.key)).size).toBe(1);
    const last = jumps.at(-1);
    expect(last?.type).toBe('updated');
    expect(last?.violation.revision).toBe(jumps.length);
    expect(last?.violation.measured.jumpedOver).toEqual(['df-A', 'df-B']);
  });

  it('flush(now) never moves a stand decision: a taxi whose backlog comes after a wall-clock flush still counts', () => {
    // Only the hired taxi's data, then a flush an hour on: no decision can be taken without A and B.
    const e = engine();
    const events: ViolationEvent[] = [];
    const c = all.find((d) => d[0]?.vehicleId === 'df-C') ?? [];
    for (const s of c) events.push(...e.ingest(s));
    events.push(...e.flush(lastMs + 3_600_000));
    expect(events.filter((x) => x.violation.ruleId === 'DF_STAND_QUEUE_JUMP')).toHaveLength(0);
    for (const id of ['df-A', 'df-B', 'df-D']) {
      for (const s of all.find((d) => d[0]?.vehicleId === id) ?? []) events.push(...e.ingest(s));
    }
    const jump = events.filter((x) => x.violation.ruleId === 'DF_STAND_QUEUE_JUMP').at(-1)?.violation;
    expect(jump?.vehicleId).toBe('df-C');
    expect(jump?.measured.jumpedOver).toEqual(['df-A', 'df-B']);
  });

  it('property: any device order, backlogs split in any chunks, wall-clock flushes up to hours ahead: the same final violations', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: all.length, maxLength: all.length }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: all.length, maxLength: all.length }),
        fc.array(fc.integer({ min: 0, max: 4 * 3_600_000 }), { minLength: 40, maxLength: 40 }),
        (order, cuts, aheadMs) => {
          // Each device's samples cut into up to four consecutive chunks.
          const chunks = all.map((samples, d) => {
            const n = (cuts[d] ?? 0) + 1;
            const size = Math.ceil(samples.length / n);
            return Array.from({ length: n }, (_, k) => samples.slice(k * size, (k + 1) * size)).filter(
              (c) => c.length > 0,
            );
          });
          // Interleave the chunks: devices picked by `order`, each device's chunks kept in order.
          const uploads: Telemetry[][] = [];
          const next = chunks.map(() => 0);
          const rank = all.map((_, d) => d).sort((a, b) => (order[a] ?? 0) - (order[b] ?? 0));
          for (let round = 0; uploads.length < chunks.flat().length; round++) {
            for (const d of round % 2 === 0 ? rank : [...rank].reverse()) {
              const c = chunks[d]?.[next[d] ?? 0];
              if (c) {
                uploads.push(c);
                next[d] = (next[d] ?? 0) + 1;
              }
            }
          }
          let now = lastMs;
          const nowMs = (i: number) => {
            now = Math.max(now, lastMs + (aheadMs[i % aheadMs.length] ?? 0));
            return now;
          };
          expect(late(uploads, nowMs)).toEqual(expected);
        },
      ),
      { numRuns: 25 },
    );
  });
});
