import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import { ruleIds, ruleIdsByPack } from '../src/violations/rule-ids.js';
import { baseOperators, bus, taxi } from './helpers/fixtures.js';
import { at, SAO_PAULO, Trace } from './helpers/trace.js';

const SP = { lat: -23.5505, lon: -46.6333 };
const registry = () =>
  createInMemoryRegistry({
    operators: baseOperators,
    vehicles: [bus('bus-1', { make: 'Marcopolo', colour: 'branco' }), taxi('t-1', 'df-taxi')],
    unitValues: [{ unit: 'ORTN', validFrom: '2000-01-01', valueBrl: 100 }],
  });

const speeding = (seconds: number) =>
  new Trace({
    at: at(SAO_PAULO, '2026-03-04', '07:00:00'),
    lat: SP.lat,
    lon: SP.lon,
    fields: { vehicleId: 'bus-1', deviceId: 'dev-7', tachoSpeedKmh: 95, tachoDriverId: 'D-5' },
  })
    .emit({ speedKmh: 95 })
    .drive(seconds, 95).samples;

describe('violation events: raised once per event, then updated, then final', () => {
  it('raises once, re-emits at most every updateIntervalS while the event grows, and ends final under the same key', () => {
    const e = createRuleEngine({ registry: registry() });
    const events = speeding(180).flatMap((s) => e.ingest(s));
    const own = events.filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING');
    expect(own[0]?.type).toBe('raised');
    expect(own.filter((x) => x.type === 'raised')).toHaveLength(1);
    // Qualifies at 20 s; grows to 180 s; re-emitted every 30 s of growth: 20, 50, 80, 110, 140, 170.
    expect(own).toHaveLength(6);
    expect(new Set(own.map((x) => x.violation.key)).size).toBe(1);
    expect(own.map((x) => x.violation.revision)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(own.every((x) => x.violation.phase === 'ongoing')).toBe(true);
    const closing = e.close().filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING');
    expect(closing).toHaveLength(1);
    expect(closing[0]).toMatchObject({ type: 'updated', violation: { phase: 'final', revision: 7 } });
    const final = closing[0]?.violation;
    expect(final && final.endedAt.getTime() - final.startedAt.getTime()).toBe(180_000);
  });

  it('carries what an officer needs: vehicle, make/colour, driver, local times, place, evidence window ≥ 2 min either side', () => {
    const e = createRuleEngine({ registry: registry() });
    const events = [...speeding(60).flatMap((s) => e.ingest(s)), ...e.close()];
    const v = events.filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING').at(-1)?.violation;
    expect(v).toMatchObject({
      pack: 'sp-fretamento',
      vehicleId: 'bus-1',
      plate: 'BUS0001',
      make: 'Marcopolo',
      colour: 'branco',
      operatorId: 'op-sp',
      permitNumber: 'R-bus-1',
      driverId: 'D-5',
      timeZone: SAO_PAULO,
      localStartedAt: '2026-03-04T07:00:00-03:00',
      legalBasis: ['Art. 26 IV'],
    });
    expect(v?.description.pt).toMatch(/velocidade/);
    expect(v?.description.en).toMatch(/speed/);
    expect(v?.evidence.from.getTime()).toBe((v?.startedAt.getTime() ?? 0) - 120_000);
    expect(v?.evidence.to.getTime()).toBe((v?.endedAt.getTime() ?? 0) + 120_000);
    expect(v?.evidence).toMatchObject({ vehicleId: 'bus-1', deviceId: 'dev-7', scope: 'around-event' });
    expect(v?.penalty).toMatchObject({
      unit: 'ORTN',
      units: 25,
      amountBrl: 2500,
      unitValueBrl: 100,
      unitValueFrom: '2000-01-01',
    });
  });

  it('flush(now) finishes the events of a vehicle silent for idleCloseS provisionally: a backlog contiguous in event time resumes the same event', () => {
    const trace = () =>
      new Trace({
        at: at(SAO_PAULO, '2026-03-04', '07:00:00'),
        lat: SP.lat,
        lon: SP.lon,
        fields: { vehicleId: 'bus-1', deviceId: 'dev-7', tachoSpeedKmh: 95, tachoDriverId: 'D-5' },
      }).emit({ speedKmh: 95 });
    const first = trace().drive(60, 95).samples;
    const whole = trace().drive(120, 95).samples;
    const rest = whole.slice(first.length);
    const e = createRuleEngine({ registry: registry() });
    for (const s of first) e.ingest(s);
    const last = first.at(-1)?.ts.getTime() ?? 0;
    expect(e.flush(last + 60_000)).toHaveLength(0);
    const flushed = e.flush(last + 901_000).filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING');
    expect(flushed.map((x) => [x.type, x.violation.phase])).toEqual([['updated', 'final']]);
    // Provisional: the event stays open, and a second flush says nothing new.
    expect(e.stats().openEvents).toBe(1);
    expect(e.flush(last + 931_000)).toHaveLength(0);
    // The rest of the drive arrives 30 minutes late: the same event goes on (same key, higher revision).
    const resumed = rest.flatMap((s) => e.ingest(s)).filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING');
    expect(resumed[0]).toMatchObject({
      type: 'updated',
      violation: { key: flushed[0]?.violation.key, phase: 'ongoing' },
    });
    expect(resumed[0]?.violation.revision).toBeGreaterThan(flushed[0]?.violation.revision ?? 0);
    const final = e.close().find((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING')?.violation;
    // Exactly what the drive gives live, with no flush at all.
    const live = createRuleEngine({ registry: registry() });
    const liveFinal = [...whole.flatMap((s) => live.ingest(s)), ...live.close()]
      .filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING')
      .at(-1)?.violation;
    expect(final).toMatchObject({
      key: liveFinal?.key,
      startedAt: liveFinal?.startedAt,
      endedAt: liveFinal?.endedAt,
      measured: liveFinal?.measured,
      phase: 'final',
    });
  });

  it('idle close in event time: a sample more than idleCloseS after the last finishes the vehicle first, and starts afresh', () => {
    const e = createRuleEngine({ registry: registry() });
    const samples = speeding(60);
    for (const s of samples) e.ingest(s);
    const later = speeding(60).map((s) => ({ ...s, ts: new Date(s.ts.getTime() + 61_000 + 901_000) }));
    const events = later.flatMap((s) => e.ingest(s)).filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING');
    expect(events[0]?.violation.phase).toBe('final');
    const keys = new Set(events.map((x) => x.violation.key));
    expect(keys.size).toBe(2);
    // A vehicle silent past general.backlogHorizonS (24 h) is closed for good by flush.
    const lastMs = later.at(-1)?.ts.getTime() ?? 0;
    expect(e.flush(lastMs + 86_401_000).some((x) => x.violation.phase === 'final')).toBe(true);
    expect(e.stats().openEvents).toBe(0);
  });

  it('ignores telemetry of vehicles it cannot place in a pack, and samples with poor GPS accuracy', () => {
    const e = createRuleEngine({ registry: registry() });
    const ghost = speeding(30).map((s) => ({ ...s, vehicleId: 'ghost' }));
    for (const s of ghost) e.ingest(s);
    expect(e.stats().unattributed).toBe(ghost.length);
    const blurry = speeding(30).map((s) => ({ ...s, accuracyM: 250 }));
    for (const s of blurry) e.ingest(s);
    expect(e.stats().inaccurate).toBe(blurry.length);
  });

  it('runs only the enabled packs and rules', () => {
    const e = createRuleEngine({
      registry: registry(),
      enabledPacks: ['df-taxi'],
      packs: { 'df-taxi': { disabledRules: ['DF_DETOUR'] } },
    });
    expect(e.pack('sp-fretamento')).toBeUndefined();
    expect(e.pack('df-taxi')?.ruleIds).not.toContain('DF_DETOUR');
    expect(e.pack('df-taxi')?.ruleIds).toContain('DF_STAND_QUEUE_JUMP');
    const quiet = createRuleEngine({
      registry: registry(),
      packs: { 'sp-fretamento': { disabledRules: ['FRET_UNSAFE_DRIVING'] } },
    });
    const events = [...speeding(60).flatMap((s) => quiet.ingest(s)), ...quiet.close()];
    expect(events.filter((x) => x.violation.ruleId === 'FRET_UNSAFE_DRIVING')).toHaveLength(0);
  });

  it('every rule id of RULES.md is implemented by its pack, with a legal basis and both descriptions', () => {
    expect(ruleIds).toHaveLength(40);
    const e = createRuleEngine({ registry: registry() });
    for (const [pack, ids] of Object.entries(ruleIdsByPack) as [keyof typeof ruleIdsByPack, readonly string[]][]) {
      const runtime = e.pack(pack);
      expect(runtime?.ruleIds.slice().sort()).toEqual([...ids].sort());
      for (const id of runtime?.ruleIds ?? []) {
        expect(runtime?.legalBasis(id).length, id).toBeGreaterThan(0);
        expect(
          runtime?.legalBasis(id).every((a) => /^Art\. \d/.test(a)),
          id,
        ).toBe(true);
        expect(runtime?.description(id).pt.length, id).toBeGreaterThan(10);
        expect(runtime?.description(id).en.length, id).toBeGreaterThan(10);
      }
    }
  });
});
