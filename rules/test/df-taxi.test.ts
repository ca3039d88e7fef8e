import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import type { DfConfigInput } from '../src/packs/df-taxi/config.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { RegistryRecordsInput } from '../src/registry/records.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, square, taxi } from './helpers/fixtures.js';
import { at, offset, SAO_PAULO, Trace } from './helpers/trace.js';

const ESPLANADA = { lat: -15.7939, lon: -47.8828 };
const AIRPORT = { lat: -15.8697, lon: -47.9208 };
const UNPAVED = offset(ESPLANADA.lat, ESPLANADA.lon, 20_000, 0);

function registry(extra: Partial<RegistryRecordsInput> = {}) {
  return createInMemoryRegistry({
    operators: baseOperators,
    vehicles: [taxi('t-1', 'df-taxi')],
    drivers: [{ id: 'D-1', name: 'Motorista Um', pack: 'df-taxi', matriculaValidUntil: '2099-01-01' }],
    zones: [
      {
        id: 'SBBR',
        pack: 'df-taxi',
        kind: 'airport',
        name: 'Aeroporto de Brasília',
        geometry: square(AIRPORT.lat, AIRPORT.lon, 800),
      },
      {
        id: 'U1',
        pack: 'df-taxi',
        kind: 'unpaved',
        name: 'Estrada de terra',
        geometry: square(UNPAVED.lat, UNPAVED.lon, 3000),
      },
    ],
    unitValues: [
      { unit: 'UT', pack: 'df-taxi', validFrom: '2020-01-01', valueBrl: 2 },
      { unit: 'UPDF', validFrom: '2020-01-01', valueBrl: 100 },
    ],
    ...extra,
  });
}

const config: DfConfigInput = {
  tariff: { kmB1Ut: 1, waitingHourUt: 10 },
  groupUpdfPercent: { A: 10, B: 20, C: 50, D: 100 },
};

const engine = (extra: Partial<RegistryRecordsInput> = {}, packConfig: DfConfigInput = config) =>
  createRuleEngine({ registry: registry(extra), packs: { 'df-taxi': packConfig } });

/** A hired trip starting at `date time` local, `seconds` long at 30 km/h, then the meter goes free. */
function trip(date: string, time: string, seconds: number, fields: Record<string, unknown> = {}, start = ESPLANADA) {
  const t = new Trace({
    at: at(SAO_PAULO, date, time),
    lat: start.lat,
    lon: start.lon,
    fields: {
      vehicleId: 't-1',
      meterState: 'hired',
      meterTariff: 2,
      meterTripId: 'trip-1',
      passengers: 1,
      childrenUnder7: 0,
      tachoDriverId: 'D-1',
      ...fields,
    },
  });
  t.emit({ speedKmh: 0 }).drive(seconds, 30);
  t.set({ meterState: 'free', meterTariff: null, meterTripId: null, passengers: 0 }).drive(10, 30);
  return t;
}

describe('DF_BANDEIRA2_MISUSE — Art. 45 III (Decreto 16.616/1995), Art. 48 III', () => {
  it('fires for tariff 2 from 19:55 to 19:59:55 on a Friday, with the 50 % overcharge estimate', () => {
    const events = run(engine(), trip('2026-03-06', '19:55:00', 295).samples);
    const v = only(events, 'DF_BANDEIRA2_MISUSE');
    expect(v.confidence).toBe('confirmed');
    expect(v.phase).toBe('final');
    expect(num(v, 'tariff2Seconds')).toBe(295);
    // 295 s at 30 km/h ≈ 2 458 m; surcharge = 50 % × 1 UT × R$ 2 per km = 100 c/km.
    expect(num(v, 'tariff2Metres')).toBeCloseTo(2458, -1);
    expect(num(v, 'overchargeEstimateCents')).toBeCloseTo(246, -1);
    expect(v.penalty).toMatchObject({ group: 'C', unit: 'UPDF', units: 0.5, amountBrl: 50 });
    expect(v.evidence.scope).toBe('whole-trip');
    expect(v.localStartedAt).toBe('2026-03-06T19:55:00-03:00');
    // Raised live as a provisional suspicion, then decided at trip end under the same key.
    const first = events.find((e) => e.violation.ruleId === 'DF_BANDEIRA2_MISUSE');
    expect(first?.type).toBe('raised');
    expect(first?.violation.confidence).toBe('suspected');
    expect(first?.violation.key).toBe(v.key);
  });

  it('does not fire for tariff 2 from 20:00:30 on a Friday', () => {
    expect(latest(run(engine(), trip('2026-03-06', '20:00:30', 300).samples), 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);
  });

  it('counts only the part of a trip before 20:00', () => {
    const v = only(run(engine(), trip('2026-03-06', '19:58:00', 300).samples), 'DF_BANDEIRA2_MISUSE');
    expect(num(v, 'tariff2Seconds')).toBe(115);
  });

  it('does not fire for a stretch under both 60 s and 200 m', () => {
    expect(latest(run(engine(), trip('2026-03-04', '10:00:00', 20).samples), 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);
  });

  it('is withdrawn when the trip ends at the airport (Art. 45 III d), and never raised when it starts there', () => {
    const t = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
      lat: ESPLANADA.lat,
      lon: ESPLANADA.lon,
      fields: {
        vehicleId: 't-1',
        meterState: 'hired',
        meterTariff: 2,
        meterTripId: 'a',
        passengers: 1,
        childrenUnder7: 0,
      },
    });
    t.emit().drive(300, 30);
    t.moveTo(AIRPORT.lat, AIRPORT.lon).drive(10, 30).set({ meterState: 'free', meterTariff: null }).drive(10, 20);
    const events = run(engine(), t.samples);
    expect(events.some((e) => e.type === 'raised' && e.violation.ruleId === 'DF_BANDEIRA2_MISUSE')).toBe(true);
    const withdrawn = events.filter((e) => e.type === 'withdrawn');
    expect(withdrawn).toHaveLength(1);
    expect(withdrawn[0]?.reason).toMatch(/airport/);
    expect(latest(events, 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);

    const fromAirport = trip('2026-03-04', '10:00:00', 300, {}, AIRPORT);
    const evs = run(engine(), fromAirport.samples);
    expect(evs.filter((e) => e.violation.ruleId === 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);
  });

  it('more than 3 passengers not counting children under 7 (Art. 45 III g): 4 adults allowed, 3 adults + 1 child not', () => {
    expect(
      latest(
        run(engine(), trip('2026-03-04', '10:00:00', 300, { passengers: 4, childrenUnder7: 0 }).samples),
        'DF_BANDEIRA2_MISUSE',
      ),
    ).toHaveLength(0);
    const v = only(
      run(engine(), trip('2026-03-04', '10:00:00', 300, { passengers: 4, childrenUnder7: 1 }).samples),
      'DF_BANDEIRA2_MISUSE',
    );
    expect(v.confidence).toBe('confirmed');
  });

  it('is only suspected when the passenger count is unknown', () => {
    const v = only(
      run(engine(), trip('2026-03-04', '10:00:00', 300, { passengers: null, childrenUnder7: null }).samples),
      'DF_BANDEIRA2_MISUSE',
    );
    expect(v.confidence).toBe('suspected');
    expect(JSON.stringify(v.measured.doubts)).toMatch(/passenger count unknown/);
  });

  it('is allowed on an unpaved road (Art. 45 III e), on a holiday (III c); suspected on Carnaval Tuesday', () => {
    expect(
      latest(run(engine(), trip('2026-03-04', '10:00:00', 300, {}, UNPAVED).samples), 'DF_BANDEIRA2_MISUSE'),
    ).toHaveLength(0);
    expect(latest(run(engine(), trip('2026-09-07', '10:00:00', 300).samples), 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);
    const carnaval = only(run(engine(), trip('2026-02-17', '10:00:00', 300).samples), 'DF_BANDEIRA2_MISUSE');
    expect(carnaval.confidence).toBe('suspected');
    // A decree making Carnaval Tuesday a holiday (registry override) clears it.
    const decreed = engine({
      holidayOverrides: [{ pack: 'df-taxi', date: '2026-02-17', name: 'Carnaval (decreto)', action: 'add' }],
    });
    expect(latest(run(decreed, trip('2026-02-17', '10:00:00', 300).samples), 'DF_BANDEIRA2_MISUSE')).toHaveLength(0);
  });

  it('stays suspected when the trip’s end was never observed (the airport cannot be excluded)', () => {
    const t = trip('2026-03-04', '10:00:00', 300);
    const samples = t.samples.slice(0, -2); // telemetry stops while still hired
    const v = only(run(engine(), samples), 'DF_BANDEIRA2_MISUSE');
    expect(v.confidence).toBe('suspected');
    expect(v.phase).toBe('final');
  });
});

describe('DF_OVER_CAPACITY — Art. 24', () => {
  it('fires with 5 passengers in a 4-seat taxi for 30 s of driving', () => {
    const t = trip('2026-03-04', '21:00:00', 60, { passengers: 5 });
    const v = only(run(engine(), t.samples), 'DF_OVER_CAPACITY');
    expect(num(v, 'permittedPassengers')).toBe(4);
    expect(v.penalty.group).toBe('B');
  });

  it('never permits more than 6, whatever the registered capacity', () => {
    const big = { vehicles: [taxi('t-1', 'df-taxi', { capacity: 8 })] };
    const v = only(run(engine(big), trip('2026-03-04', '21:00:00', 60, { passengers: 7 }).samples), 'DF_OVER_CAPACITY');
    expect(num(v, 'permittedPassengers')).toBe(6);
    expect(
      latest(run(engine(big), trip('2026-03-04', '21:00:00', 60, { passengers: 6 }).samples), 'DF_OVER_CAPACITY'),
    ).toHaveLength(0);
  });
});

describe('DF_RIDE_WITHOUT_METER — Art. 37 g', () => {
  const ride = (seconds: number, meterState: 'free' | 'off' | 'hired') =>
    new Trace({
      at: at(SAO_PAULO, '2026-03-04', '10:00:00'),
      lat: ESPLANADA.lat,
      lon: ESPLANADA.lon,
      fields: { vehicleId: 't-1', meterState, passengers: 2 },
    }).drive(seconds, 36);
  it('fires after 1 km with passengers and the meter free (120 s at 36 km/h = 1 200 m)', () => {
    const v = only(run(engine(), ride(120, 'free').samples), 'DF_RIDE_WITHOUT_METER');
    expect(num(v, 'metresWithoutMeter')).toBeGreaterThanOrEqual(1000);
    expect(v.confidence).toBe('confirmed');
  });
  it('does not fire after 800 m, nor with the meter running', () => {
    expect(latest(run(engine(), ride(80, 'off').samples), 'DF_RIDE_WITHOUT_METER')).toHaveLength(0);
    expect(latest(run(engine(), ride(300, 'hired').samples), 'DF_RIDE_WITHOUT_METER')).toHaveLength(0);
  });
});

describe('DF_DETOUR — Art. 37 j (suspected, for review)', () => {
  const base = () =>
    new Trace({
      at: at(SAO_PAULO, '2026-03-04', '21:00:00'),
      lat: ESPLANADA.lat,
      lon: ESPLANADA.lon,
      fields: { vehicleId: 't-1', meterState: 'hired', meterTariff: 2, meterTripId: 'd', passengers: 1 },
    }).emit();
  const end = (t: Trace) => t.set({ meterState: 'free', meterTariff: null }).drive(10, 30);
  it('fires for 9 km driven to end 3 km from the start', () => {
    const t = end(base().drive(360, 30, 90).drive(360, 30, 0).drive(360, 30, 270));
    const v = only(run(engine(), t.samples), 'DF_DETOUR');
    expect(v.confidence).toBe('suspected');
    expect(num(v, 'ratio')).toBeGreaterThan(2.9);
    expect(num(v, 'straightLineMetres')).toBeCloseTo(3000, -2);
  });
  it('does not fire for a direct trip, nor for 1.5× the straight line', () => {
    expect(latest(run(engine(), end(base().drive(720, 30, 90)).samples), 'DF_DETOUR')).toHaveLength(0);
    const mild = end(base().drive(360, 30, 90).drive(360, 30, 0));
    expect(latest(run(engine(), mild.samples), 'DF_DETOUR')).toHaveLength(0);
  });
});

describe('DF_VEHICLE_TOO_OLD — Art. 25, §1, §2', () => {
  const drive = () => trip('2026-03-04', '21:00:00', 60).samples;
  it('fires over 12 years (2013 in 2026) and after the 8th year without a safety certificate', () => {
    expect(
      only(
        run(engine({ vehicles: [taxi('t-1', 'df-taxi', { manufactureYear: 2013 })] }), drive()),
        'DF_VEHICLE_TOO_OLD',
      ).variant,
    ).toBe('over-age');
    const v = only(
      run(engine({ vehicles: [taxi('t-1', 'df-taxi', { manufactureYear: 2015 })] }), drive()),
      'DF_VEHICLE_TOO_OLD',
    );
    expect(v.variant).toBe('no-safety-certificate');
    expect(v.penalty.registryNonCompliance).toBe(true);
  });
  it('does not fire at 12 years with a valid certificate, nor at 8 years', () => {
    const certified = taxi('t-1', 'df-taxi', { manufactureYear: 2014, safetyCertificateValidUntil: '2026-12-31' });
    expect(latest(run(engine({ vehicles: [certified] }), drive()), 'DF_VEHICLE_TOO_OLD')).toHaveLength(0);
    expect(
      latest(
        run(engine({ vehicles: [taxi('t-1', 'df-taxi', { manufactureYear: 2018 })] }), drive()),
        'DF_VEHICLE_TOO_OLD',
      ),
    ).toHaveLength(0);
  });
});

describe('DF_PERMIT_EXPIRED — Art. 14, §3, Art. 17 II', () => {
  const expired = { vehicles: [taxi('t-1', 'df-taxi', { permitValidUntil: '2026-03-01' })] };
  it('Art. 14 §3: within the 30-day grace a suspected notice with no group; past it group C and cancellation (Art. 17 II)', () => {
    const within = only(run(engine(expired), trip('2026-03-10', '21:00:00', 60).samples), 'DF_PERMIT_EXPIRED');
    expect(within.variant).toBe('permit-expired-in-grace');
    expect(within.confidence).toBe('suspected');
    expect(num(within, 'daysOverdue')).toBe(9);
    expect(within.penalty).toMatchObject({ group: null, opensCancellation: false, registryNonCompliance: true });
    const past = only(run(engine(expired), trip('2026-04-15', '21:00:00', 60).samples), 'DF_PERMIT_EXPIRED');
    expect(past.variant).toBe('permit-expired-past-grace');
    expect(past.confidence).toBe('confirmed');
    expect(past.penalty).toMatchObject({ group: 'C', opensCancellation: true });
  });
  it('Art. 14 §3: day 30 after expiry is still in the grace, day 31 is past it', () => {
    const day30 = only(run(engine(expired), trip('2026-03-31', '10:00:00', 60).samples), 'DF_PERMIT_EXPIRED');
    expect(day30).toMatchObject({ variant: 'permit-expired-in-grace', confidence: 'suspected' });
    expect(day30.penalty.group).toBeNull();
    const day31 = only(run(engine(expired), trip('2026-04-01', '10:00:00', 60).samples), 'DF_PERMIT_EXPIRED');
    expect(day31).toMatchObject({ variant: 'permit-expired-past-grace', confidence: 'confirmed' });
    expect(day31.penalty).toMatchObject({ group: 'C', opensCancellation: true });
  });
  it('Art. 53 §3: three days of driving past the grace are one group-C violation that grows, not three', () => {
    const e = engine(expired);
    const events = [
      ...run(e, trip('2026-04-14', '10:00:00', 60).samples, { close: false }),
      ...run(e, trip('2026-04-15', '10:00:00', 60).samples, { close: false }),
      ...run(e, trip('2026-04-16', '10:00:00', 60).samples),
    ].filter((x) => x.violation.ruleId === 'DF_PERMIT_EXPIRED');
    // One event key: the store's upsert grows one violation from the first day's start.
    expect(new Set(events.map((x) => x.violation.key)).size).toBe(1);
    expect(events[0]?.violation.localStartedAt.slice(0, 10)).toBe('2026-04-14');
    const v = only(events, 'DF_PERMIT_EXPIRED');
    expect(v.measured.lastOperatingDate).toBe('2026-04-16');
    expect(num(v, 'daysOverdue')).toBe(46);
  });
  it('Art. 14 §3 / Art. 17 II: the grace notice and the past-grace violation are two events of one lapse', () => {
    const e = engine(expired);
    const events = [
      ...run(e, trip('2026-03-31', '10:00:00', 60).samples, { close: false }),
      ...run(e, trip('2026-04-01', '10:00:00', 60).samples),
    ];
    expect(
      latest(events, 'DF_PERMIT_EXPIRED')
        .map((v) => `${v.variant}:${v.confidence}:${v.phase}`)
        .sort(),
    ).toEqual(['permit-expired-in-grace:suspected:final', 'permit-expired-past-grace:confirmed:final']);
  });
  it('does not fire on the last day of validity; fires for the identified driver’s lapsed matrícula', () => {
    expect(latest(run(engine(expired), trip('2026-03-01', '21:00:00', 60).samples), 'DF_PERMIT_EXPIRED')).toHaveLength(
      0,
    );
    const lapsed = {
      drivers: [{ id: 'D-1', name: 'Um', pack: 'df-taxi' as const, matriculaValidUntil: '2026-02-01' }],
    };
    expect(only(run(engine(lapsed), trip('2026-03-04', '21:00:00', 60).samples), 'DF_PERMIT_EXPIRED').variant).toBe(
      'matricula-expired-past-grace',
    );
  });
});

describe('DF_UNREGISTERED_DRIVER — Art. 36, Art. 37 x', () => {
  it('Art. 37 x: fires for a driver card not registered on the permit, one violation per driver', () => {
    const v = only(
      run(engine(), trip('2026-03-04', '21:00:00', 60, { tachoDriverId: 'D-X' }).samples),
      'DF_UNREGISTERED_DRIVER',
    );
    expect(v.driverId).toBe('D-X');
    expect(v.measured.driverId).toBe('D-X');
    expect(v.penalty.group).toBe('C');
    expect(v.confidence).toBe('confirmed');
  });
  it('does not fire for the registered driver', () => {
    expect(latest(run(engine(), trip('2026-03-04', '21:00:00', 60).samples), 'DF_UNREGISTERED_DRIVER')).toHaveLength(0);
  });
  const holderRegistry = (driverIds: string[]) => ({
    operators: [
      ...baseOperators,
      {
        id: 'op-holder',
        name: 'Titular',
        pack: 'df-taxi' as const,
        kind: 'taxi-autonomous' as const,
        status: 'authorized' as const,
        document: '123.456.789-09',
      },
    ],
    vehicles: [taxi('t-1', 'df-taxi', { operatorId: 'op-holder', permitKind: 'autonomous', driverIds })],
    drivers: [
      { id: 'D-1', name: 'Motorista Um', pack: 'df-taxi' as const },
      { id: 'D-H', name: 'Titular', pack: 'df-taxi' as const, document: '12345678909' },
      { id: 'D-O', name: 'Outro', pack: 'df-taxi' as const, document: '98765432100' },
    ],
  });
  it('Art. 36: the permit holder is registered on their own permit even when not listed among its drivers', () => {
    const events = run(
      engine(holderRegistry(['D-1'])),
      trip('2026-03-04', '21:00:00', 60, { tachoDriverId: 'D-H' }).samples,
    );
    expect(latest(events, 'DF_UNREGISTERED_DRIVER')).toHaveLength(0);
    const other = run(
      engine(holderRegistry(['D-1'])),
      trip('2026-03-04', '21:00:00', 60, { tachoDriverId: 'D-O' }).samples,
    );
    expect(only(other, 'DF_UNREGISTERED_DRIVER').confidence).toBe('confirmed');
  });
  it('Art. 36: a permit with no drivers listed is a registry gap: suspected at most', () => {
    const v = only(
      run(engine(holderRegistry([])), trip('2026-03-04', '21:00:00', 60, { tachoDriverId: 'D-O' }).samples),
      'DF_UNREGISTERED_DRIVER',
    );
    expect(v).toMatchObject({ variant: 'no-drivers-on-record', confidence: 'suspected' });
    // The holder on a permit with no drivers listed is still registered.
    const holder = run(
      engine(holderRegistry([])),
      trip('2026-03-04', '21:00:00', 60, { tachoDriverId: 'D-H' }).samples,
    );
    expect(latest(holder, 'DF_UNREGISTERED_DRIVER')).toHaveLength(0);
  });
});

describe('DF_OVERCHARGE — Art. 45 I–IV, Art. 48 V', () => {
  // Bandeirada 4 UT = R$ 8; km B1 = 1 UT = R$ 2. 450 s at 40 km/h = 5 km at tariff 1 → R$ 18.
  const ride = (fareCents: number) => {
    const t = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '21:00:00'),
      lat: ESPLANADA.lat,
      lon: ESPLANADA.lon,
      fields: {
        vehicleId: 't-1',
        meterState: 'hired',
        meterTariff: 1,
        meterTripId: 'f',
        passengers: 1,
        meterFareCents: 800,
      },
    });
    // The meter is seen starting: free 5 s before the first hired sample (Art. 45 I: bandeirada).
    t.emit({ meterState: 'free', meterTariff: null, meterFareCents: null }).wait(5).emit().drive(450, 40);
    t.wait(5).emit({ speedKmh: 0, meterState: 'stopped', meterFareCents: fareCents });
    t.set({ meterState: 'free', meterTariff: null, meterFareCents: null }).drive(10, 30);
    return t.samples;
  };
  it('fires, confirmed, for R$ 35 on a R$ 18 trip (above even the 50 % baggage allowance + tolerance)', () => {
    const v = only(run(engine(), ride(3500)), 'DF_OVERCHARGE');
    expect(v.confidence).toBe('confirmed');
    expect(num(v, 'recomputedFareCents')).toBeCloseTo(1800, -1);
    expect(num(v, 'excessCents')).toBeCloseTo(1700, -1);
  });
  it('is only suspected for R$ 30 (baggage could explain it), and silent for R$ 19', () => {
    const v = only(run(engine(), ride(3000)), 'DF_OVERCHARGE');
    expect(v.confidence).toBe('suspected');
    expect(v.variant).toBe('possible-baggage');
    expect(latest(run(engine(), ride(1900)), 'DF_OVERCHARGE')).toHaveLength(0);
  });
  it('is off when the km price is not configured', () => {
    expect(latest(run(engine({}, {}), ride(9000)), 'DF_OVERCHARGE')).toHaveLength(0);
  });
});
