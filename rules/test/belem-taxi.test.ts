import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import type { BelemConfigInput } from '../src/packs/belem-taxi/config.js';
import { belemVehicleAge } from '../src/packs/belem-taxi/rules/vehicle-rules.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { RegistryRecordsInput } from '../src/registry/records.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, operator, square, taxi } from './helpers/fixtures.js';
import { at, BELEM, offset, Trace } from './helpers/trace.js';

const CENTRE = { lat: -1.4558, lon: -48.4902 };
const STAND = offset(CENTRE.lat, CENTRE.lon, 2000, 0);

function registry(extra: Partial<RegistryRecordsInput> = {}) {
  return createInMemoryRegistry({
    operators: [
      ...baseOperators,
      operator('radio-ok', 'belem-taxi', {
        kind: 'radio-operator',
        credentialValidUntil: '2027-01-01',
        declaredVehicleIds: ['t-1'],
      }),
      operator('radio-old', 'belem-taxi', {
        kind: 'radio-operator',
        credentialValidUntil: '2026-01-31',
        declaredVehicleIds: ['t-1'],
      }),
    ],
    vehicles: [taxi('t-1', 'belem-taxi'), taxi('t-2', 'belem-taxi')],
    stands: [
      {
        id: 'PF-1',
        pack: 'belem-taxi',
        name: 'Ponto fixo Praça da República',
        geometry: square(STAND.lat, STAND.lon, 25),
        places: 3,
        kind: 'fixo',
        holderVehicleIds: ['t-2'],
        holderOperatorIds: ['coop-x'],
      },
    ],
    unitValues: [{ unit: 'IPCA-E', pack: 'belem-taxi', validFrom: '2025-01-01', valueBrl: 4.5 }],
    ...extra,
  });
}

const config: BelemConfigInput = {
  tariff: { bandeiradaCents: 500, kmB1Cents: 300, kmB2Cents: 400, waitingHourCents: 3000 },
};
const engine = (extra: Partial<RegistryRecordsInput> = {}, c: BelemConfigInput = config) =>
  createRuleEngine({ registry: registry(extra), packs: { 'belem-taxi': c } });

function trip(date: string, time: string, seconds: number, fields: Record<string, unknown> = {}) {
  const t = new Trace({
    at: at(BELEM, date, time),
    lat: CENTRE.lat,
    lon: CENTRE.lon,
    fields: { vehicleId: 't-1', meterState: 'hired', meterTariff: 2, meterTripId: 'b', passengers: 1, ...fields },
  });
  t.emit().drive(seconds, 30);
  t.set({ meterState: 'free', meterTariff: null, passengers: 0 }).drive(10, 30);
  return t;
}

describe('BEL_BANDEIRA2_MISUSE — Art. 35 I; Art. 58 item 3.4', () => {
  it('fires live and confirmed for tariff 2 at 15:00 on a working day: group III, 40 IPCA-E', () => {
    const events = run(engine(), trip('2026-03-03', '15:00:00', 300).samples);
    const v = only(events, 'BEL_BANDEIRA2_MISUSE');
    expect(v.confidence).toBe('confirmed');
    expect(v.penalty).toMatchObject({
      group: 'III',
      unit: 'IPCA-E',
      units: 40,
      amountBrl: 180,
      item: 'Art. 58 item 3.4',
    });
    expect(num(v, 'overchargeEstimateCents')).toBeCloseTo(250, -1); // 2.5 km × (400 − 300) c
    const first = events.find((e) => e.violation.ruleId === 'BEL_BANDEIRA2_MISUSE');
    expect(first?.violation.confidence).toBe('confirmed');
  });

  it('does not fire on 15 December at 15:00 (Art. 35 I d), nor on 12 January (municipal holiday)', () => {
    expect(latest(run(engine(), trip('2026-12-15', '15:00:00', 300).samples), 'BEL_BANDEIRA2_MISUSE')).toHaveLength(0);
    expect(latest(run(engine(), trip('2026-01-12', '15:00:00', 300).samples), 'BEL_BANDEIRA2_MISUSE')).toHaveLength(0);
  });

  it('counts from 06:00 on a Monday after the weekend', () => {
    const v = only(run(engine(), trip('2026-03-09', '05:55:00', 600).samples), 'BEL_BANDEIRA2_MISUSE');
    expect(v.localStartedAt).toBe('2026-03-09T06:00:00-03:00');
    expect(num(v, 'tariff2Seconds')).toBe(300);
  });
});

describe('BEL_OVER_CAPACITY — Art. 3 I; Art. 58 item 2.6', () => {
  it('caps the permitted passengers at 5 whatever the registration', () => {
    const big = { vehicles: [taxi('t-1', 'belem-taxi', { capacity: 6 })] };
    const v = only(
      run(engine(big), trip('2026-03-03', '21:00:00', 60, { passengers: 6 }).samples),
      'BEL_OVER_CAPACITY',
    );
    expect(num(v, 'permittedPassengers')).toBe(5);
    expect(v.penalty).toMatchObject({ group: 'II', units: 30 });
    expect(
      latest(run(engine(big), trip('2026-03-03', '21:00:00', 60, { passengers: 5 }).samples), 'BEL_OVER_CAPACITY'),
    ).toHaveLength(0);
  });
});

describe('BEL_STAND_UNAUTHORIZED — Art. 3 XIV a', () => {
  const wait = (vehicleId: string, seconds: number, meterState: 'free' | null = 'free') =>
    new Trace({
      at: at(BELEM, '2026-03-03', '10:00:00'),
      lat: STAND.lat,
      lon: STAND.lon,
      fields: { vehicleId, meterState },
    })
      .emit()
      .stay(seconds).samples;

  it('fires for a free taxi waiting 150 s at a ponto fixo where it holds no place', () => {
    const v = only(run(engine(), wait('t-1', 150)), 'BEL_STAND_UNAUTHORIZED');
    expect(v.place).toMatchObject({ id: 'PF-1', kind: 'stand' });
    expect(num(v, 'waitedSeconds')).toBe(150);
    expect(v.confidence).toBe('confirmed');
    expect(v.penalty.group).toBe('I');
  });

  it('does not fire after 100 s, nor for the holder, nor for a vehicle of the holding cooperative', () => {
    expect(latest(run(engine(), wait('t-1', 100)), 'BEL_STAND_UNAUTHORIZED')).toHaveLength(0);
    expect(latest(run(engine(), wait('t-2', 600)), 'BEL_STAND_UNAUTHORIZED')).toHaveLength(0);
    const coop = { vehicles: [taxi('t-1', 'belem-taxi', { operatorId: 'coop-x' }), taxi('t-2', 'belem-taxi')] };
    expect(latest(run(engine(coop), wait('t-1', 600)), 'BEL_STAND_UNAUTHORIZED')).toHaveLength(0);
  });

  it('is suspected without meter data', () => {
    expect(only(run(engine(), wait('t-1', 150, null)), 'BEL_STAND_UNAUTHORIZED').confidence).toBe('suspected');
  });
});

describe('BEL_DIV_EXPIRED — Art. 30–31; Art. 58 item 4.2', () => {
  it('fires the day after the D.I.V. expired: group IV, 70 IPCA-E', () => {
    const reg = { vehicles: [taxi('t-1', 'belem-taxi', { divValidUntil: '2026-03-01' })] };
    const v = only(run(engine(reg), trip('2026-03-02', '21:00:00', 60).samples), 'BEL_DIV_EXPIRED');
    expect(v.penalty).toMatchObject({ group: 'IV', units: 70, amountBrl: 315 });
    expect(latest(run(engine(reg), trip('2026-03-01', '21:00:00', 60).samples), 'BEL_DIV_EXPIRED')).toHaveLength(0);
  });
});

describe('BEL_VEHICLE_TOO_OLD — Art. 27 (sole paragraph: age to 31 December), Art. 28 II', () => {
  it('counts the first year as completed on 31 December of the model year', () => {
    expect(belemVehicleAge(2016, '2016-12-31')).toBe(1);
    expect(belemVehicleAge(2016, '2017-06-01')).toBe(1);
    expect(belemVehicleAge(2016, '2026-12-30')).toBe(10);
    expect(belemVehicleAge(2016, '2026-12-31')).toBe(11);
  });

  it('fires past 10 years without a current extension; the missed renewal inspection is item 2.3', () => {
    const noExt = only(
      run(
        engine({ vehicles: [taxi('t-1', 'belem-taxi', { modelYear: 2015, manufactureYear: 2015 })] }),
        trip('2026-03-04', '21:00:00', 60).samples,
      ),
      'BEL_VEHICLE_TOO_OLD',
    );
    expect(noExt.variant).toBe('no-extension');
    expect(noExt.penalty.registryNonCompliance).toBe(true);
    const lapsed = only(
      run(
        engine({
          vehicles: [
            taxi('t-1', 'belem-taxi', { modelYear: 2015, manufactureYear: 2015, ageExtensionValidUntil: '2026-02-01' }),
          ],
        }),
        trip('2026-03-04', '21:00:00', 60).samples,
      ),
      'BEL_VEHICLE_TOO_OLD',
    );
    expect(lapsed.variant).toBe('extension-expired');
    expect(lapsed.penalty).toMatchObject({ group: 'II', units: 30, item: 'Art. 58 item 2.3' });
  });

  it('does not fire with a current extension, nor for a 2016 model before 31 December 2026', () => {
    const extended = taxi('t-1', 'belem-taxi', {
      modelYear: 2015,
      manufactureYear: 2015,
      ageExtensionValidUntil: '2026-06-30',
    });
    expect(
      latest(run(engine({ vehicles: [extended] }), trip('2026-03-04', '21:00:00', 60).samples), 'BEL_VEHICLE_TOO_OLD'),
    ).toHaveLength(0);
    const m2016 = { vehicles: [taxi('t-1', 'belem-taxi', { modelYear: 2016, manufactureYear: 2015 })] };
    expect(latest(run(engine(m2016), trip('2026-12-30', '21:00:00', 60).samples), 'BEL_VEHICLE_TOO_OLD')).toHaveLength(
      0,
    );
    expect(latest(run(engine(m2016), trip('2026-12-31', '10:00:00', 60).samples), 'BEL_VEHICLE_TOO_OLD')).toHaveLength(
      1,
    );
  });
});

describe('BEL_VEHICLE_TOO_OLD — Art. 28 II: the extension is 6 months renewable once', () => {
  // Model 2015: past 10 years from 2025-12-31 (age 11 on that day), so no extension runs past 2026-12-31.
  const old = (ageExtensionValidUntil: string) =>
    engine({
      vehicles: [taxi('t-1', 'belem-taxi', { modelYear: 2015, manufactureYear: 2015, ageExtensionValidUntil })],
    });
  it('Art. 28 II: an extension the registry dates beyond 12 months after the limit still ends at 12 months', () => {
    expect(
      latest(run(old('2027-06-30'), trip('2026-12-31', '10:00:00', 60).samples), 'BEL_VEHICLE_TOO_OLD'),
    ).toHaveLength(0);
    const v = only(run(old('2027-06-30'), trip('2027-01-01', '10:00:00', 60).samples), 'BEL_VEHICLE_TOO_OLD');
    expect(v.variant).toBe('replacement-due');
    expect(v.measured).toMatchObject({ ageLimitPassedOn: '2025-12-31', extensionLimit: '2026-12-31' });
    expect(v.penalty).toMatchObject({ registryNonCompliance: true, item: 'Art. 28 II' });
  });
  it('Art. 28 II: within the 12 months a current extension clears it; a lapsed one is item 2.3', () => {
    expect(
      latest(run(old('2026-12-31'), trip('2026-12-31', '10:00:00', 60).samples), 'BEL_VEHICLE_TOO_OLD'),
    ).toHaveLength(0);
    expect(
      only(run(old('2026-06-30'), trip('2026-07-01', '10:00:00', 60).samples), 'BEL_VEHICLE_TOO_OLD').variant,
    ).toBe('extension-expired');
  });
});

describe('BEL_DIV_EXPIRED — Art. 30–31, item 4.2: one continuing violation per lapsed D.I.V.', () => {
  it('Art. 58 item 4.2: two days of operation with the same lapsed D.I.V. keep one event key', () => {
    const e = engine({ vehicles: [taxi('t-1', 'belem-taxi', { divValidUntil: '2026-02-28' })] });
    const events = [
      ...run(e, trip('2026-03-03', '10:00:00', 60).samples, { close: false }),
      ...run(e, trip('2026-03-04', '10:00:00', 60).samples),
    ].filter((x) => x.violation.ruleId === 'BEL_DIV_EXPIRED');
    expect(new Set(events.map((x) => x.violation.key)).size).toBe(1);
    expect(only(events, 'BEL_DIV_EXPIRED').measured).toMatchObject({ daysOverdue: 4, lastOperatingDate: '2026-03-04' });
  });
});

describe('BEL_DETOUR — Art. 58 item 3.5; BEL_OVERCHARGE — Art. 58 item 3.3', () => {
  it('flags a 9 km trip that ends 3 km from its start as a suspected detour', () => {
    const t = new Trace({
      at: at(BELEM, '2026-03-04', '21:00:00'),
      lat: CENTRE.lat,
      lon: CENTRE.lon,
      fields: { vehicleId: 't-1', meterState: 'hired', meterTariff: 2, meterTripId: 'd' },
    });
    t.emit()
      .drive(360, 30, 90)
      .drive(360, 30, 0)
      .drive(360, 30, 270)
      .set({ meterState: 'free', meterTariff: null })
      .drive(10, 30);
    const v = only(run(engine(), t.samples), 'BEL_DETOUR');
    expect(v.penalty).toMatchObject({ group: 'III', units: 40 });
    expect(v.confidence).toBe('suspected');
    const direct = new Trace({
      at: at(BELEM, '2026-03-04', '21:00:00'),
      lat: CENTRE.lat,
      lon: CENTRE.lon,
      fields: { vehicleId: 't-1', meterState: 'hired', meterTariff: 2, meterTripId: 'e' },
    });
    direct.emit().drive(720, 30, 90).set({ meterState: 'free', meterTariff: null }).drive(10, 30);
    expect(latest(run(engine(), direct.samples), 'BEL_DETOUR')).toHaveLength(0);
  });

  it('recomputes the fare from Belém’s tariff: 5 km at B1 = R$ 5 + 5 × R$ 3 = R$ 20; R$ 30 is an overcharge, R$ 21 is not', () => {
    const ride = (fare: number) => {
      const t = new Trace({
        at: at(BELEM, '2026-03-04', '21:00:00'),
        lat: CENTRE.lat,
        lon: CENTRE.lon,
        fields: { vehicleId: 't-1', meterState: 'hired', meterTariff: 1, meterTripId: 'f', meterFareCents: 500 },
      });
      t.emit({ meterState: 'free', meterTariff: null, meterFareCents: null })
        .wait(5)
        .emit()
        .drive(450, 40)
        .wait(5)
        .emit({ meterState: 'stopped', meterFareCents: fare })
        .set({ meterState: 'free', meterFareCents: null, meterTariff: null })
        .drive(10, 30);
      return t.samples;
    };
    const v = only(run(engine(), ride(3000)), 'BEL_OVERCHARGE');
    expect(num(v, 'recomputedFareCents')).toBeCloseTo(2000, -1);
    expect(v.confidence).toBe('confirmed');
    expect(latest(run(engine(), ride(2100)), 'BEL_OVERCHARGE')).toHaveLength(0);
  });
});

describe('BEL_UNSAFE_DRIVING — Art. 58 item 2.5', () => {
  it('fires at 70 km/h for 25 s (limit 60 + 7 km/h tolerance), not at 67 km/h', () => {
    const fast = new Trace({
      at: at(BELEM, '2026-03-04', '21:00:00'),
      lat: CENTRE.lat,
      lon: CENTRE.lon,
      fields: { vehicleId: 't-1' },
    }).drive(25, 70);
    expect(only(run(engine(), fast.samples), 'BEL_UNSAFE_DRIVING').penalty).toMatchObject({ group: 'II', units: 30 });
    const ok = new Trace({
      at: at(BELEM, '2026-03-04', '21:00:00'),
      lat: CENTRE.lat,
      lon: CENTRE.lon,
      fields: { vehicleId: 't-1' },
    }).drive(120, 67);
    expect(latest(run(engine(), ok.samples), 'BEL_UNSAFE_DRIVING')).toHaveLength(0);
  });
});

describe('BEL_UNAUTHORIZED_RADIO — Art. 42–44; Art. 58 item 4.1 (dispatch records)', () => {
  const dispatch = (radioOperatorId: string, vehicleId = 't-1', ts = '2026-03-04T13:00:00Z') => ({
    id: `d-${radioOperatorId}-${vehicleId}`,
    ts,
    radioOperatorId,
    vehicleId,
  });

  it('fires for a dispatch through an unknown operator and through one whose credential lapsed', () => {
    const unknown = engine().ingestDispatch(dispatch('radio-pirata'));
    expect(unknown).toHaveLength(1);
    expect(unknown[0]?.violation).toMatchObject({
      ruleId: 'BEL_UNAUTHORIZED_RADIO',
      variant: 'operator-not-credentialed',
      plate: 'TAX0001',
      confidence: 'confirmed',
    });
    expect(unknown[0]?.violation.penalty).toMatchObject({ group: 'IV', units: 70, amountBrl: 315 });
    expect(engine().ingestDispatch(dispatch('radio-old'))[0]?.violation.variant).toBe('operator-not-credentialed');
  });

  it('fires for a vehicle the operator has not declared; not for a declared one', () => {
    expect(engine().ingestDispatch(dispatch('radio-ok', 't-2'))[0]?.violation.variant).toBe('vehicle-not-declared');
    expect(engine().ingestDispatch(dispatch('radio-ok', 't-1'))).toHaveLength(0);
  });

  it('gives the same key to a re-sent dispatch, so the store upserts it once', () => {
    const e = engine();
    const a = e.ingestDispatch(dispatch('radio-pirata'))[0]?.violation.key;
    const b = e.ingestDispatch(dispatch('radio-pirata'))[0]?.violation.key;
    expect(a).toBeDefined();
    expect(a).toBe(b);
  });
});
