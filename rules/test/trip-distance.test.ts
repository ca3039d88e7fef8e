import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, taxi } from './helpers/fixtures.js';
import { at, BELEM, offset, SAO_PAULO, Trace } from './helpers/trace.js';

/**
 * Trip distance is driven distance (RULES.md DF_DETOUR: "GPS jitter while waiting (hora parada,
 * congestion) is not distance"). One measure serves DF/BEL_DETOUR and DF/BEL_OVERCHARGE.
 */

const ESPLANADA = { lat: -15.7939, lon: -47.8828 };
const BELEM_CENTRE = { lat: -1.4558, lon: -48.4902 };

const dfEngine = () =>
  createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: [taxi('t-1', 'df-taxi')],
      unitValues: [{ unit: 'UT', pack: 'df-taxi', validFrom: '2020-01-01', valueBrl: 2 }],
    }),
    packs: { 'df-taxi': { tariff: { kmB1Ut: 1, waitingHourUt: 10 } } },
  });

const belemEngine = () =>
  createRuleEngine({
    registry: createInMemoryRegistry({ operators: baseOperators, vehicles: [taxi('t-1', 'belem-taxi')] }),
  });

/**
 * Fixes wandering around the current position for `seconds`: each one `radiusM` off it in a
 * turning direction (so consecutive fixes are up to 2 × radius apart), reporting `accuracyM` and a
 * small Doppler speed, as a receiver does in a parked car.
 */
function wander(t: Trace, seconds: number, radiusM: number, accuracyM: number, speedKmh = 2): Trace {
  const centre = t.position;
  for (let s = 5, k = 0; s <= seconds; s += 5, k++) {
    const p = offset(centre.lat, centre.lon, radiusM, (k * 137) % 360);
    t.wait(5).moveTo(p.lat, p.lon).emit({ speedKmh, accuracyM });
  }
  return t.moveTo(centre.lat, centre.lon);
}

const dfTrip = () =>
  new Trace({
    at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
    lat: ESPLANADA.lat,
    lon: ESPLANADA.lon,
    fields: {
      vehicleId: 't-1',
      meterState: 'hired',
      meterTariff: 1,
      meterTripId: 'j',
      passengers: 1,
      accuracyM: 5,
      meterFareCents: 800,
    },
  })
    // The meter is seen starting (free 5 s before): an overcharge is judged from the trip's start.
    .emit({ meterState: 'free', meterTariff: null, meterFareCents: null })
    .wait(5)
    .emit();

const endTrip = (t: Trace, fareCents: number) =>
  t
    .wait(5)
    .emit({ speedKmh: 0, meterState: 'stopped', meterFareCents: fareCents })
    .set({ meterState: 'free', meterTariff: null, meterFareCents: null, meterTripId: null, passengers: 0 })
    .drive(10, 30);

describe('DF_DETOUR — Art. 37 j: GPS jitter on hora parada is not distance', () => {
  it('Art. 37 j: 1 h of hora parada with fixes wandering 5 m (accuracy 5 m) adds nothing to a 1.5 km trip', () => {
    const t = dfTrip().drive(180, 30, 90);
    t.set({ meterState: 'stopped' });
    wander(t, 3600, 5, 5);
    t.set({ meterState: 'hired' });
    const events = run(dfEngine(), endTrip(t, 9000).samples);
    expect(latest(events, 'DF_DETOUR')).toHaveLength(0);
  });

  it('Art. 37 j: the same wander with accuracy 2 m is movement (beyond 2 × accuracy) and makes a detour', () => {
    // Fixes 5 m off a point while the receiver claims 2 m: hops of up to 10 m exceed 2 × 2 m.
    const t = dfTrip().set({ accuracyM: 2 }).drive(180, 30, 90);
    t.set({ meterState: 'stopped' });
    wander(t, 3600, 5, 2);
    t.set({ meterState: 'hired' });
    const v = only(run(dfEngine(), endTrip(t, 9000).samples), 'DF_DETOUR');
    expect(num(v, 'tripMetres')).toBeGreaterThan(4500);
  });

  it('Art. 37 j: a real detour is still one, and crawling in a jam still counts as distance', () => {
    // 3 km east, 1.5 km north at 4 km/h (5.6 m per fix, under the 10 m threshold), 3 km west.
    const t = dfTrip().drive(360, 30, 90).drive(1350, 4, 0).drive(360, 30, 270);
    const v = only(run(dfEngine(), endTrip(t, 9000).samples), 'DF_DETOUR');
    expect(num(v, 'tripMetres')).toBeGreaterThan(7400);
    expect(num(v, 'tripMetres')).toBeLessThanOrEqual(7501);
    expect(num(v, 'straightLineMetres')).toBeCloseTo(1500, -1);
  });

  it('tripDistance.accuracyFactor 0 measures every hop: the setting is what filters the jitter', () => {
    const t = dfTrip().drive(180, 30, 90);
    t.set({ meterState: 'stopped' });
    wander(t, 3600, 5, 5);
    t.set({ meterState: 'hired' });
    const engine = createRuleEngine({
      registry: createInMemoryRegistry({ operators: baseOperators, vehicles: [taxi('t-1', 'df-taxi')] }),
      packs: { 'df-taxi': { tripDistance: { accuracyFactor: 0 } } },
    });
    expect(num(only(run(engine, endTrip(t, 9000).samples), 'DF_DETOUR'), 'tripMetres')).toBeGreaterThan(4500);
  });
});

describe('BEL_DETOUR — Art. 58 item 3.5: GPS jitter on hora parada is not distance', () => {
  it('Art. 58 item 3.5: a taxi waiting 1 h with wandering fixes and no reported accuracy (10 m assumed) did not detour', () => {
    const t = new Trace({
      at: at(BELEM, '2026-03-04', '10:00:00'),
      lat: BELEM_CENTRE.lat,
      lon: BELEM_CENTRE.lon,
      fields: { vehicleId: 't-1', meterState: 'hired', meterTariff: 1, meterTripId: 'b', passengers: 1 },
    }).emit();
    t.drive(180, 30, 90).set({ meterState: 'stopped' });
    const centre = t.position;
    for (let k = 0; k < 720; k++) {
      const p = offset(centre.lat, centre.lon, 9, (k * 137) % 360);
      t.wait(5).moveTo(p.lat, p.lon).emit({ speedKmh: null });
    }
    t.moveTo(centre.lat, centre.lon).set({ meterState: 'hired' });
    expect(latest(run(belemEngine(), endTrip(t, 9000).samples), 'BEL_DETOUR')).toHaveLength(0);
  });
});

describe('DF_OVERCHARGE — Art. 45 I–IV: the fare is recomputed on the same trip distance', () => {
  it('Art. 45 II: hired (not stopped) in a jam with wandering fixes is waiting time, not kilometres', () => {
    // 1.5 km at 30 km/h, then 10 min in place with fixes hopping up to 20 m (accuracy 10 m) at a
    // Doppler 14 km/h — above the 10 km/h crossover, so unfiltered hops would be priced as km.
    const t = dfTrip().drive(180, 30, 90);
    wander(t, 600, 10, 10, 14);
    const v = only(run(dfEngine(), endTrip(t, 9000).samples), 'DF_OVERCHARGE');
    expect(num(v, 'tariff1Metres')).toBeCloseTo(1500, -1);
    expect(num(v, 'waitingSeconds')).toBeGreaterThanOrEqual(595);
  });
});
