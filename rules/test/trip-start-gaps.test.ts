import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, taxi } from './helpers/fixtures.js';
import { at, BELEM, SAO_PAULO, type SampleFields, Trace } from './helpers/trace.js';

/**
 * A trip whose start the trace did not see (rules/README.md "Overcharge is judged only on complete
 * traces", "DF meter before the ride"). A dropout that hides a boarding hides the meter's start
 * and the count's rise too: the trip priced from its middle looks overcharged, and the passengers
 * who boarded unseen look like nobody. Each class at and around its boundary.
 */

const DF = { lat: -15.7939, lon: -47.8828 };
const BEL = { lat: -1.4558, lon: -48.4902 };

/** DF: bandeirada 4 UT = R$ 8, km B1 = 1 UT = R$ 2, hora parada 10 UT = R$ 20/h (UT = R$ 2). */
const dfEngine = () =>
  createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: [taxi('t-1', 'df-taxi')],
      unitValues: [{ unit: 'UT', pack: 'df-taxi', validFrom: '2020-01-01', valueBrl: 2 }],
    }),
    packs: { 'df-taxi': { tariff: { kmB1Ut: 1, waitingHourUt: 10 } } },
  });

/** Belém: bandeirada R$ 5, km B1 R$ 3. */
const belemEngine = () =>
  createRuleEngine({
    registry: createInMemoryRegistry({ operators: baseOperators, vehicles: [taxi('t-1', 'belem-taxi')] }),
    packs: {
      'belem-taxi': { tariff: { bandeiradaCents: 500, kmB1Cents: 300, kmB2Cents: 400, waitingHourCents: 3000 } },
    },
  });

interface Start {
  /** Samples with the meter free before the hire (none: the vehicle's first sample is hired). */
  freeSamples?: number;
  /** Seconds from the last free sample to the first hired one. */
  silenceS?: number;
  /** Fields of the free samples. */
  free?: SampleFields;
  /** The first hired sample's fare. */
  firstFareCents?: number | null;
  pack?: 'df-taxi' | 'belem-taxi';
}

/**
 * A hailed trip: free samples every 5 s, `silenceS` without samples, then hired at tariff 1 for
 * 450 s at 40 km/h (5 km), 5 s stopped showing `fareCents`, then free. DF: R$ 8 + 5 × R$ 2 = R$ 18.
 */
function trip(fareCents: number, o: Start = {}) {
  const pack = o.pack ?? 'df-taxi';
  const start = pack === 'df-taxi' ? DF : BEL;
  const t = new Trace({
    at: at(pack === 'df-taxi' ? SAO_PAULO : BELEM, '2026-03-04', '10:00:00'),
    lat: start.lat,
    lon: start.lon,
    fields: { vehicleId: 't-1', passengers: 1, meterState: 'free', meterTariff: null, meterFareCents: null, ...o.free },
  });
  const freeSamples = o.freeSamples ?? 4;
  if (freeSamples > 0) t.emit().stay(5 * (freeSamples - 1));
  t.wait(o.silenceS ?? 5).set({ meterState: 'hired', meterTariff: 1, meterTripId: 'f', meterFareCents: null });
  t.emit({ meterFareCents: o.firstFareCents === undefined ? (pack === 'df-taxi' ? 800 : 500) : o.firstFareCents });
  t.drive(450, 40);
  t.wait(5).emit({ meterState: 'stopped', meterFareCents: fareCents });
  t.set({ meterState: 'free', meterTariff: null, meterFareCents: null, meterTripId: null }).drive(10, 30);
  return t.samples;
}

const overcharges = (samples: ReturnType<typeof trip>) => latest(run(dfEngine(), samples), 'DF_OVERCHARGE');

describe('DF_OVERCHARGE — Art. 45 / Art. 48 V: a trip whose start the trace did not see is not priced', () => {
  it('Art. 45: the meter seen free 15 s before its first hired sample (the sample-interval limit) is priced: R$ 35 on a R$ 18 trip fires, confirmed', () => {
    const v = only(run(dfEngine(), trip(3500, { silenceS: 15 })), 'DF_OVERCHARGE');
    expect(v.confidence).toBe('confirmed');
    expect(num(v, 'recomputedFareCents')).toBeCloseTo(1800, -1);
  });

  it('Art. 45: 16 s of silence before the first hired sample (just over the limit) hides the start: not priced', () => {
    expect(overcharges(trip(3500, { silenceS: 16 }))).toEqual([]);
  });

  it('Art. 45: a dropout of 8 min (a gap) hid the boarding and the first kilometres: not priced, however high the fare', () => {
    expect(overcharges(trip(9900, { silenceS: 480 }))).toEqual([]);
  });

  it('Art. 45: the meter already hired on the first sample after the tracker starts (engine start): not priced', () => {
    expect(overcharges(trip(9900, { freeSamples: 0 }))).toEqual([]);
  });

  it('Art. 45: the sample before the hire carries no meter reading: the meter may have been running, not priced', () => {
    expect(overcharges(trip(9900, { free: { meterState: null } }))).toEqual([]);
  });

  it('Art. 45 I: a first fare at the bandeirada + tolerance (R$ 8 × 1.1 + R$ 1 = R$ 9,80) is a seen start; R$ 9,81 means the meter ran unseen', () => {
    expect(only(run(dfEngine(), trip(3500, { firstFareCents: 980 })), 'DF_OVERCHARGE').confidence).toBe('confirmed');
    expect(overcharges(trip(3500, { firstFareCents: 981 }))).toEqual([]);
  });

  it('Art. 45 I: a meter that sends no fare on the first hired sample is judged on the interval alone (its first reading may be the final fare)', () => {
    expect(only(run(dfEngine(), trip(3500, { firstFareCents: null })), 'DF_OVERCHARGE').confidence).toBe('confirmed');
    expect(overcharges(trip(3500, { firstFareCents: null, silenceS: 16 }))).toEqual([]);
  });

  it('Art. 45 IV: the possible-baggage variant obeys the same start: R$ 30 is suspected on a seen trip, nothing after a dropout', () => {
    const v = only(run(dfEngine(), trip(3000)), 'DF_OVERCHARGE');
    expect(v).toMatchObject({ confidence: 'suspected', variant: 'possible-baggage' });
    expect(overcharges(trip(3000, { silenceS: 300 }))).toEqual([]);
    expect(overcharges(trip(3000, { silenceS: 16 }))).toEqual([]);
  });

  it('Art. 48 V: back-to-back trips (the trip id changes, the meter restarts at the bandeirada) are each seen from their start', () => {
    const t = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
      lat: DF.lat,
      lon: DF.lon,
      fields: { vehicleId: 't-1', passengers: 1, meterState: 'free', meterTariff: null, meterFareCents: null },
    });
    t.emit().wait(5).set({ meterState: 'hired', meterTariff: 1, meterTripId: 'a', meterFareCents: 800 }).emit();
    t.drive(90, 40).wait(5).emit({ meterState: 'stopped', meterFareCents: 1000 });
    t.wait(5).set({ meterTripId: 'b', meterFareCents: 800 }).emit().drive(450, 40);
    t.wait(5).emit({ meterState: 'stopped', meterFareCents: 3500 });
    t.set({ meterState: 'free', meterTariff: null, meterFareCents: null, meterTripId: null }).drive(10, 30);
    const v = only(run(dfEngine(), t.samples), 'DF_OVERCHARGE');
    expect(v.measured.tripId).toBe('b');
  });
});

describe('BEL_OVERCHARGE — item 3.3: a trip whose start the trace did not see is not priced', () => {
  it('item 3.3: R$ 30 on a R$ 20 trip fires when the meter is seen free 15 s before; not after 16 s or a dropout', () => {
    const v = only(run(belemEngine(), trip(3000, { pack: 'belem-taxi', silenceS: 15 })), 'BEL_OVERCHARGE');
    expect(num(v, 'recomputedFareCents')).toBeCloseTo(2000, -1);
    expect(v.confidence).toBe('confirmed');
    for (const silenceS of [16, 420]) {
      expect(latest(run(belemEngine(), trip(3000, { pack: 'belem-taxi', silenceS })), 'BEL_OVERCHARGE')).toEqual([]);
    }
  });

  it('item 3.3: the meter already hired at the tracker’s first sample, or a first fare above the bandeirada + tolerance (R$ 6,50): not priced', () => {
    expect(latest(run(belemEngine(), trip(3000, { pack: 'belem-taxi', freeSamples: 0 })), 'BEL_OVERCHARGE')).toEqual(
      [],
    );
    expect(
      latest(run(belemEngine(), trip(3000, { pack: 'belem-taxi', firstFareCents: 651 })), 'BEL_OVERCHARGE'),
    ).toEqual([]);
    expect(
      only(run(belemEngine(), trip(3000, { pack: 'belem-taxi', firstFareCents: 650 })), 'BEL_OVERCHARGE').confidence,
    ).toBe('confirmed');
  });
});

/**
 * DF_METER_BEFORE_RIDE scenes: free and empty with the door closed (door sensor fitted), then
 * `silenceS` without samples, then the meter hired driving east at 36 km/h (10 m/s), a sample
 * every `every` s, with the counter reading `hiredCount`.
 */
function hiredEmpty(o: {
  silenceS: number;
  hiredCount: number;
  metres: number;
  every?: number;
  door?: boolean | null;
}) {
  const t = new Trace({
    at: at(SAO_PAULO, '2026-06-09', '10:00:00'),
    lat: DF.lat,
    lon: DF.lon,
    fields: { vehicleId: 't-1', passengers: 0, doorOpen: o.door ?? false, meterState: 'free' },
  });
  t.emit().stay(30);
  t.wait(o.silenceS).set({ meterState: 'hired', meterTariff: 1, meterTripId: 'm', passengers: o.hiredCount });
  t.emit().drive(o.metres / 10, 36, 90, o.every ?? 5);
  return t;
}

const meterBeforeRide = (samples: ReturnType<typeof hiredEmpty>['samples']) =>
  latest(run(dfEngine(), samples), 'DF_METER_BEFORE_RIDE');

describe('DF_METER_BEFORE_RIDE — Art. 37 g: only a stretch that positively shows nobody on board', () => {
  it('Art. 37 g: a count that rose across a 20 s dropout (the boarding and the door unseen) is unknown, not zero: 3 km hired stay quiet', () => {
    // The door-gated count rejects the rise (door closed, not seen open): accepted 0, sent 2.
    expect(meterBeforeRide(hiredEmpty({ silenceS: 20, hiredCount: 2, metres: 3000 }).samples)).toEqual([]);
  });

  it('Art. 37 g: the same 3 km with the counter reading 0 after the dropout fires (the stretch starts after the silence)', () => {
    const v = only(
      run(dfEngine(), hiredEmpty({ silenceS: 20, hiredCount: 0, metres: 3000 }).samples),
      'DF_METER_BEFORE_RIDE',
    );
    expect(num(v, 'metresHiredEmpty')).toBeGreaterThanOrEqual(2900);
  });

  it('Art. 37 g: an interval of 15 s (the limit) inside the empty stretch keeps it whole; 16 s restarts it (900 m + 900 m each fall short of 1 km)', () => {
    const scene = (pauseS: number) => {
      const t = hiredEmpty({ silenceS: 5, hiredCount: 0, metres: 900 });
      t.wait(pauseS - 5).drive(90, 36, 90, 5); // 90 s at 10 m/s: 900 m
      return t.samples;
    };
    // Driving 10 m/s, the 15 s interval itself adds its chord to the stretch.
    expect(num(only(run(dfEngine(), scene(15)), 'DF_METER_BEFORE_RIDE'), 'metresHiredEmpty')).toBeGreaterThanOrEqual(
      1800,
    );
    expect(meterBeforeRide(scene(16))).toEqual([]);
  });

  it('Art. 37 g: a counter that sends no count on the hired samples shows nobody nothing: quiet', () => {
    const t = hiredEmpty({ silenceS: 5, hiredCount: 0, metres: 0 });
    t.set({ passengers: null }).drive(300, 36, 90, 5); // 3 km
    expect(meterBeforeRide(t.samples)).toEqual([]);
  });
});
