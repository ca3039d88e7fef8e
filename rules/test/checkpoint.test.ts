import { serialize } from 'node:v8';
import type { Telemetry } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { CheckpointError, checkpointEngine, restoreEngine } from '../src/engine/checkpoint.js';
import { createRuleEngine, type RuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { ViolationEvent } from '../src/violations/violation.js';
import { latest } from './helpers/events.js';
import { baseOperators, square, taxi } from './helpers/fixtures.js';
import { DF_STAND } from './helpers/stands.js';
import { at, offset, SAO_PAULO, Trace } from './helpers/trace.js';

/**
 * Checkpoint/restore (engine/checkpoint.ts): an engine restored from a checkpoint taken at any
 * sample, then fed the rest, says exactly what an uninterrupted engine says — for a vehicle's own
 * runs (a Bandeira II stretch in progress) and for the packs' shared stand board (a queue jump
 * decided across taxis).
 */

const ESPLANADA = { lat: -15.7939, lon: -47.8828 };
const AIRPORT = { lat: -15.8697, lon: -47.9208 };

const engine = (): RuleEngine =>
  createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: [
        ...['t-1', 'A', 'B', 'C'].map((id) => taxi(id, 'df-taxi')),
        // Past the 12 years of DF Art. 25 in 2026: a registry breach open while it drives.
        taxi('O', 'df-taxi', { manufactureYear: 2008 }),
      ],
      zones: [
        {
          id: 'SBBR',
          pack: 'df-taxi',
          kind: 'airport',
          name: 'Aeroporto',
          geometry: square(AIRPORT.lat, AIRPORT.lon, 800),
        },
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
      ],
      unitValues: [
        { unit: 'UT', pack: 'df-taxi', validFrom: '2020-01-01', valueBrl: 2 },
        { unit: 'UPDF', validFrom: '2020-01-01', valueBrl: 100 },
      ],
    }),
    packs: { 'df-taxi': { tariff: { kmB1Ut: 1, waitingHourUt: 10 } } },
  });

/** A Bandeira II (tariff 2) trip on a Friday from 19:55, before the 20:00 it is allowed from. */
function bandeira2Trip(): Telemetry[] {
  const t = new Trace({
    at: at(SAO_PAULO, '2026-03-06', '19:55:00'),
    lat: ESPLANADA.lat,
    lon: ESPLANADA.lon,
    fields: { vehicleId: 't-1', meterState: 'hired', meterTariff: 2, meterTripId: 'trip-1', passengers: 1 },
  });
  t.emit({ speedKmh: 0 }).drive(295, 30);
  t.set({ meterState: 'free', meterTariff: null, meterTripId: null, passengers: 0 }).drive(10, 30);
  return t.samples;
}

/** Three taxis at a stand; C, last in, is hired ahead of A and B (DF_STAND_QUEUE_JUMP). */
function queueJump(): Telemetry[] {
  const plans = [
    { id: 'A', arrive: 0 },
    { id: 'B', arrive: 60 },
    { id: 'C', arrive: 120, hired: 180 },
  ];
  const all = plans.flatMap((p, i) => {
    const spot = offset(DF_STAND.lat, DF_STAND.lon, 3 * i, 45);
    const t = new Trace({
      at: new Date(at(SAO_PAULO, '2026-03-04', '10:00:00').getTime() + p.arrive * 1000),
      lat: spot.lat,
      lon: spot.lon,
      fields: { vehicleId: p.id, meterState: 'free', passengers: 0 },
    });
    t.emit();
    t.stay((p.hired ?? 600) - p.arrive);
    if (p.hired !== undefined) t.set({ meterState: 'hired', passengers: 1 }).stay(15).drive(60, 30);
    return t.samples;
  });
  return all.sort((a, b) => a.ts.getTime() - b.ts.getTime());
}

/**
 * A taxi too old to operate drives, waits (not operating: the breach's last operating sample stays
 * put) and drives again; the registry-state rule keeps the breach open throughout (DF_VEHICLE_TOO_OLD).
 */
function tooOldDrive(): Telemetry[] {
  const t = new Trace({
    at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
    lat: ESPLANADA.lat,
    lon: ESPLANADA.lon,
    fields: { vehicleId: 'O', meterState: 'free', passengers: 0 },
  });
  t.emit({ speedKmh: 0 }).drive(120, 30).stay(60).drive(120, 30);
  return t.samples;
}

/** Feeds the samples, moving to a fresh engine through a checkpoint before sample `cut`. */
function runWithRestart(samples: readonly Telemetry[], cut: number | null): ViolationEvent[] {
  let current = engine();
  const events: ViolationEvent[] = [];
  samples.forEach((s, i) => {
    if (i === cut) {
      assertPlainData(current.exportState(), 'state', new Set());
      const bytes = checkpointEngine(current);
      current = engine();
      restoreEngine(current, bytes);
    }
    events.push(...current.ingest(s));
  });
  events.push(...current.close());
  return events;
}

describe('rule engine checkpoint and restore', () => {
  it.each([
    ['a Bandeira II stretch in progress', bandeira2Trip, 'DF_BANDEIRA2_MISUSE'],
    ['a stand queue across taxis', queueJump, 'DF_STAND_QUEUE_JUMP'],
    ['an open registry breach', tooOldDrive, 'DF_VEHICLE_TOO_OLD'],
  ] as const)('continues %s exactly, wherever the checkpoint falls', (_name, scenario, ruleId) => {
    const samples = scenario();
    const uninterrupted = runWithRestart(samples, null);
    expect(latest(uninterrupted, ruleId)).toHaveLength(1);
    const expected = JSON.stringify(uninterrupted);
    const step = Math.max(1, Math.floor(samples.length / 25));
    for (let cut = 1; cut < samples.length; cut += step) {
      expect(JSON.stringify(runWithRestart(samples, cut)), `checkpoint before sample ${cut}`).toBe(expected);
    }
  });

  it.each([
    ['a hired trip on tariff 2', bandeira2Trip],
    ['an open registry breach', tooOldDrive],
  ] as const)('exports %s as a snapshot, and imports it as its own', (_name, scenario) => {
    // The trip tracker, the overcharge accumulator, sustained runs and the registry breach's last
    // instant are updated in place while a vehicle runs (rules/README.md, Benchmark): what
    // exportState hands out, and what importState is given, must never be those objects.
    const samples = scenario();
    const half = Math.floor(samples.length / 2);
    const reference = engine();
    for (const s of samples.slice(0, half)) reference.ingest(s);
    const rest = JSON.stringify([...samples.slice(half).flatMap((s) => reference.ingest(s)), ...reference.close()]);

    // The rules' part of an export (the engine's open events are shared with an in-memory import
    // and always were: importState is meant for a checkpoint's own data).
    const rulesOf = (state: ReturnType<RuleEngine['exportState']>) => serialize(state.vehicles.map((v) => v.rules));
    const feedRest = (e: RuleEngine) =>
      JSON.stringify([...samples.slice(half).flatMap((s) => e.ingest(s)), ...e.close()]);

    const running = engine();
    for (const s of samples.slice(0, half)) running.ingest(s);
    const exported = running.exportState();
    const bytes = rulesOf(exported);
    expect(feedRest(running)).toBe(rest);
    expect(rulesOf(exported).equals(bytes), 'the export, after its engine went on').toBe(true);

    const source = engine();
    for (const s of samples.slice(0, half)) source.ingest(s);
    const given = source.exportState();
    const givenBytes = rulesOf(given);
    const restored = engine();
    restored.importState(given);
    expect(feedRest(restored)).toBe(rest);
    expect(rulesOf(given).equals(givenBytes), 'the imported state, after the engine went on').toBe(true);
  });

  it('writes an open registry breach as it always has: its last operating sample inside the breach', () => {
    // The rule keeps that instant beside the breach while it runs (rules/README.md, Benchmark);
    // the checkpoint folds it back in, so checkpoints written before and after read alike.
    const samples = tooOldDrive();
    const current = engine();
    let lastOperating = 0;
    for (const s of samples) {
      current.ingest(s);
      if ((s.speedKmh ?? 0) > 0) lastOperating = s.ts.getTime();
    }
    // The trace ends driving; cut it at the wait so the last sample is not an operating one.
    const waitEnd = samples.findIndex((s, i) => i > 0 && s.speedKmh === 0 && (samples[i + 1]?.speedKmh ?? 0) > 0);
    const partial = engine();
    let lastBeforeWait = 0;
    for (const s of samples.slice(0, waitEnd + 1)) {
      partial.ingest(s);
      if ((s.speedKmh ?? 0) > 0) lastBeforeWait = s.ts.getTime();
    }
    for (const [e, last] of [
      [current, lastOperating],
      [partial, lastBeforeWait],
    ] as const) {
      const vehicle = e.exportState().vehicles.find((v) => v.vehicleId === 'O');
      const slot = vehicle?.rules.slots.find((x) => x.ruleId === 'DF_VEHICLE_TOO_OLD');
      const state = slot?.state as { open: { lastMs: number; startMs: number } | null };
      expect(Object.keys(state)).toEqual(['open', 'inputs', 'breach']);
      expect(state.open?.lastMs).toBe(last);
      expect(state.open?.startMs).toBe(samples[1]?.ts.getTime());
    }
    expect(lastBeforeWait).toBeLessThan(samples[waitEnd]?.ts.getTime() ?? 0);
  });

  it('restores an engine that has judged nothing yet (a partition without vehicles)', () => {
    const restored = engine();
    expect(restoreEngine(restored, checkpointEngine(engine()))).toEqual({ vehicles: 0, dropped: 0 });
    const samples = bandeira2Trip();
    expect(JSON.stringify(runWithRestart(samples, null))).toBe(
      JSON.stringify([...samples.flatMap((s) => restored.ingest(s)), ...restored.close()]),
    );
  });

  it('loses the open run without a checkpoint (the test above could fail)', () => {
    const samples = bandeira2Trip();
    const half = Math.floor(samples.length / 2);
    const first = engine();
    for (const s of samples.slice(0, half)) first.ingest(s);
    const fresh = engine();
    const events = samples.slice(half).flatMap((s) => fresh.ingest(s));
    events.push(...fresh.close());
    const found = latest(events, 'DF_BANDEIRA2_MISUSE');
    // A fresh engine sees only the second half: not the stretch the uninterrupted one measured.
    expect(found.map((v) => v.startedAt.getTime())).not.toEqual(
      latest(runWithRestart(samples, null), 'DF_BANDEIRA2_MISUSE').map((v) => v.startedAt.getTime()),
    );
  });

  it('continues from a version 1 checkpoint, whose open events held their whole violation record', () => {
    const samples = bandeira2Trip();
    const expected = JSON.stringify(runWithRestart(samples, null));
    const half = Math.floor(samples.length / 2);
    const first = engine();
    const events = samples.slice(0, half).flatMap((s) => first.ingest(s));
    // The state as a version 1 release wrote it: each open event with the record last emitted for it.
    const lastRecord = new Map(events.map((e) => [e.violation.key, e.violation]));
    const state = first.exportState();
    let open = 0;
    for (const vehicle of state.vehicles) {
      const v1 = new Map<string, unknown>();
      for (const [key, { revision, confidence, variant, ...rest }] of vehicle.open) {
        const violation = lastRecord.get(key);
        expect({ revision, confidence, variant }).toEqual({
          revision: violation?.revision,
          confidence: violation?.confidence,
          variant: violation?.variant,
        });
        v1.set(key, { ...rest, violation });
        open++;
      }
      (vehicle as { open: unknown }).open = v1;
    }
    expect(open).toBeGreaterThan(0);
    const restored = engine();
    restoreEngine(restored, serialize({ format: 'vigia-rule-state', version: 1, state }));
    events.push(...samples.slice(half).flatMap((s) => restored.ingest(s)), ...restored.close());
    expect(JSON.stringify(events)).toBe(expected);
  });

  it('refuses bytes that are not a checkpoint of this version, with a code', () => {
    const target = engine();
    expect(() => restoreEngine(target, Buffer.from('not a checkpoint'))).toThrow(CheckpointError);
    const other = serialize({ format: 'vigia-rule-state', version: 99, state: {} });
    expect(() => restoreEngine(target, other)).toThrow(/refused/);
    try {
      restoreEngine(target, other);
    } catch (err) {
      expect((err as CheckpointError).code).toBe('RULE_CHECKPOINT_INVALID');
    }
  });
});

/** Rule states must be data: a function or a class instance in them would not survive a checkpoint. */
function assertPlainData(x: unknown, path: string, seen: Set<unknown>): void {
  if (typeof x === 'function') throw new Error(`a function in the rule state at ${path}`);
  if (x === null || typeof x !== 'object' || seen.has(x)) return;
  seen.add(x);
  if (x instanceof Date || x instanceof Set) return;
  if (x instanceof Map) {
    for (const [k, v] of x) assertPlainData(v, `${path}[${String(k)}]`, seen);
    return;
  }
  const proto: unknown = Object.getPrototypeOf(x);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
    throw new Error(`a class instance in the rule state at ${path}`);
  }
  for (const [k, v] of Object.entries(x)) assertPlainData(v, `${path}.${k}`, seen);
}
