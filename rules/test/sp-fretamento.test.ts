import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { RegistryRecordsInput } from '../src/registry/records.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, bus, operator, square } from './helpers/fixtures.js';
import { at, offset, SAO_PAULO, Trace } from './helpers/trace.js';

// A road running east from Praça da Sé; stops sit 29 m north of it at 400 m intervals.
const ORIGIN = { lat: -23.5505, lon: -46.6333 };
const along = (m: number) => offset(ORIGIN.lat, ORIGIN.lon, m, 90);
const stopAt = (m: number, northM = 29) => {
  const p = offset(along(m).lat, along(m).lon, northM, 0);
  return { id: `S${m}`, name: `Parada ${m}`, lat: p.lat, lon: p.lon, source: 'test' };
};

function registry(extra: Partial<RegistryRecordsInput> = {}) {
  return createInMemoryRegistry({
    operators: baseOperators,
    vehicles: [bus('bus-1')],
    stops: [stopAt(400), stopAt(800), stopAt(1200), stopAt(1600, 31)],
    unitValues: [{ unit: 'ORTN', validFrom: '2000-01-01', valueBrl: 100 }],
    ...extra,
  });
}

/** A bus driving east from ORIGIN on a weekday morning. */
const trace = (fields = {}) =>
  new Trace({
    at: at(SAO_PAULO, '2026-03-04', '08:00:00'),
    lat: ORIGIN.lat,
    lon: ORIGIN.lon,
    fields: {
      vehicleId: 'bus-1',
      tachoSpeedKmh: 0,
      tachoDriverId: 'D-9',
      passengers: 10,
      boardings: 0,
      doorOpen: false,
      ...fields,
    },
  });

/** Drive to `m` metres along the road (at 36 km/h) and dwell there, `southM` metres south of the road. */
function dwellAtStop(t: Trace, m: number, dwellS: number, dwellFields: Record<string, unknown>, southM = 0) {
  const start = t.position;
  const target = along(m);
  const metres = Math.abs(target.lon - start.lon) * 111_195 * Math.cos((ORIGIN.lat * Math.PI) / 180);
  // 36 km/h = 10 m/s: drive to just short of the stop (samples every 5 s = 50 m).
  t.drive(Math.floor(metres / 50) * 5, 36, 90, 5, { tachoSpeedKmh: 36 });
  const side = offset(target.lat, target.lon, southM, 180);
  t.wait(5).moveTo(side.lat, side.lon).emit({ speedKmh: 2, tachoSpeedKmh: 2 });
  t.stay(dwellS, 5, dwellFields);
  t.moveTo(target.lat, target.lon).drive(10, 36, 90, 5, { tachoSpeedKmh: 36, doorOpen: false, boardings: 0 });
  return t;
}

describe('FRET_BOARDING_AT_REGULAR_STOP — Art. 10 §3, Art. 11 §3 (Decreto 51.396/2006); Art. 23 V', () => {
  it('fires, confirmed, for a 15 s dwell 29 m from a stop with people boarding (occupancy sensor)', () => {
    const engine = createRuleEngine({ registry: registry() });
    const t = dwellAtStop(trace(), 400, 15, { doorOpen: true, boardings: 3, passengers: 13 });
    const v = only(run(engine, t.samples), 'FRET_BOARDING_AT_REGULAR_STOP');
    expect(v.confidence).toBe('confirmed');
    expect(v.place).toEqual({ id: 'S400', kind: 'stop', name: 'Parada 400' });
    expect(num(v, 'distanceToStopM')).toBeCloseTo(29, 0);
    expect(num(v, 'dwellSeconds')).toBe(15);
    expect(v.measured.boardingEvidence).toBe('occupancy');
    expect(num(v, 'boardings')).toBeGreaterThanOrEqual(3);
    expect(v.penalty).toMatchObject({ unit: 'ORTN', units: 10, amountBrl: 1000, item: 'Art. 23 V' });
    expect(v.legalBasis).toContain('Art. 10 §3');
    expect(v.phase).toBe('final');
  });

  it('does not fire for a 10 s dwell (the threshold is 15 s)', () => {
    const engine = createRuleEngine({ registry: registry() });
    const t = dwellAtStop(trace(), 400, 10, { doorOpen: true, boardings: 3, passengers: 13 });
    expect(latest(run(engine, t.samples), 'FRET_BOARDING_AT_REGULAR_STOP')).toHaveLength(0);
  });

  it('does not fire 31 m from the stop (radius 30 m), but does at 29 m', () => {
    const far = dwellAtStop(trace(), 400, 20, { doorOpen: true, boardings: 2, passengers: 12 }, 2);
    expect(
      latest(run(createRuleEngine({ registry: registry() }), far.samples), 'FRET_BOARDING_AT_REGULAR_STOP'),
    ).toHaveLength(0);
    // Stop S1600 stands 31 m from the road: a dwell on the road there is out of range.
    const s1600 = dwellAtStop(trace(), 1600, 20, { doorOpen: true, boardings: 2, passengers: 12 });
    expect(
      latest(run(createRuleEngine({ registry: registry() }), s1600.samples), 'FRET_BOARDING_AT_REGULAR_STOP'),
    ).toHaveLength(0);
    const s1200 = dwellAtStop(trace(), 1200, 20, { doorOpen: true, boardings: 2, passengers: 12 });
    const v = only(run(createRuleEngine({ registry: registry() }), s1200.samples), 'FRET_BOARDING_AT_REGULAR_STOP');
    expect(num(v, 'distanceToStopM')).toBeCloseTo(29, 0);
  });

  it('does not fire when the occupancy sensor shows only people getting off, even with the door open', () => {
    const engine = createRuleEngine({ registry: registry() });
    const t = dwellAtStop(trace(), 400, 20, { doorOpen: true, boardings: 0, alightings: 4, passengers: 6 });
    expect(latest(run(engine, t.samples), 'FRET_BOARDING_AT_REGULAR_STOP')).toHaveLength(0);
  });

  it('is only suspected with a door opening and no occupancy sensor, or with no sensor at all', () => {
    const doorOnly = dwellAtStop(trace({ passengers: null, boardings: null }), 400, 20, { doorOpen: true });
    const v1 = only(run(createRuleEngine({ registry: registry() }), doorOnly.samples), 'FRET_BOARDING_AT_REGULAR_STOP');
    expect(v1.confidence).toBe('suspected');
    expect(v1.measured.boardingEvidence).toBe('door');
    const none = dwellAtStop(trace({ passengers: null, boardings: null, doorOpen: null }), 400, 20, {});
    const v2 = only(run(createRuleEngine({ registry: registry() }), none.samples), 'FRET_BOARDING_AT_REGULAR_STOP');
    expect(v2.confidence).toBe('suspected');
    expect(v2.measured.boardingEvidence).toBe('no-sensors');
    // A door that never opened (door sensor present, no occupancy sensor): nobody boarded.
    const closed = dwellAtStop(trace({ passengers: null, boardings: null }), 400, 20, { doorOpen: false });
    expect(
      latest(run(createRuleEngine({ registry: registry() }), closed.samples), 'FRET_BOARDING_AT_REGULAR_STOP'),
    ).toHaveLength(0);
  });
});

describe('FRET_REGULAR_SERVICE_PATTERN — Art. 18, Art. 29 I', () => {
  it('Art. 29 I: fires when one trip boards at 3 distinct regular stops: no fine of its own, opens cancellation', () => {
    const t = trace();
    dwellAtStop(t, 400, 20, { doorOpen: true, boardings: 2, passengers: 12 });
    dwellAtStop(t, 800, 20, { doorOpen: true, boardings: 1, passengers: 13 });
    dwellAtStop(t, 1200, 20, { doorOpen: true, boardings: 4, passengers: 17 });
    const v = only(run(createRuleEngine({ registry: registry() }), t.samples), 'FRET_REGULAR_SERVICE_PATTERN');
    expect(num(v, 'distinctStops')).toBe(3);
    expect(v.confidence).toBe('confirmed');
    expect(v.penalty).toMatchObject({ unit: null, units: null, amountBrl: null, opensCancellation: true });
    expect(v.penalty.item).toBe('Art. 29 I');
    expect(num(v, 'confirmedBoardings')).toBe(3);
    expect(v.evidence.scope).toBe('whole-trip');
  });

  it('does not fire for boardings at 2 stops', () => {
    const t = trace();
    dwellAtStop(t, 400, 20, { doorOpen: true, boardings: 2, passengers: 12 });
    dwellAtStop(t, 800, 20, { doorOpen: true, boardings: 1, passengers: 13 });
    const events = run(createRuleEngine({ registry: registry() }), t.samples);
    expect(latest(events, 'FRET_REGULAR_SERVICE_PATTERN')).toHaveLength(0);
    expect(latest(events, 'FRET_BOARDING_AT_REGULAR_STOP')).toHaveLength(2);
  });
});

describe('FRET_OVER_CAPACITY — Art. 22 I (seats only: Art. 16 sole paragraph)', () => {
  it('fires after 30 s of driving with 46 passengers in a 44-seat coach', () => {
    const t = trace({ passengers: 46 }).drive(40, 50);
    const v = only(run(createRuleEngine({ registry: registry() }), t.samples), 'FRET_OVER_CAPACITY');
    expect(num(v, 'passengersMax')).toBe(46);
    expect(num(v, 'permittedPassengers')).toBe(44);
    expect(num(v, 'movingSeconds')).toBeGreaterThanOrEqual(30);
    expect(v.confidence).toBe('confirmed');
    expect(v.penalty).toMatchObject({ units: 5, item: 'Art. 22 I' });
  });

  it('does not fire for 25 s over capacity, nor for a full coach (44 of 44)', () => {
    expect(
      latest(
        run(createRuleEngine({ registry: registry() }), trace({ passengers: 46 }).drive(25, 50).samples),
        'FRET_OVER_CAPACITY',
      ),
    ).toHaveLength(0);
    expect(
      latest(
        run(createRuleEngine({ registry: registry() }), trace({ passengers: 44 }).drive(60, 50).samples),
        'FRET_OVER_CAPACITY',
      ),
    ).toHaveLength(0);
  });

  it('does not count standing still towards the 30 s', () => {
    const t = trace({ passengers: 46 }).drive(15, 50).stay(60).drive(10, 50);
    expect(latest(run(createRuleEngine({ registry: registry() }), t.samples), 'FRET_OVER_CAPACITY')).toHaveLength(0);
  });
});

describe('FRET_INSPECTION_EXPIRED — Art. 17, Art. 26 VII, Art. 28-A', () => {
  // Made in 2018, inspected 2025-03-01 at age 7: next within 12 months (Art. 17 II) → due 2026-03-01.
  const reg = () => registry({ vehicles: [bus('bus-1', { manufactureYear: 2018, lastInspectionDate: '2025-03-01' })] });
  const drivingOn = (date: string) =>
    new Trace({
      at: at(SAO_PAULO, date, '09:00:00'),
      lat: ORIGIN.lat,
      lon: ORIGIN.lon,
      fields: { vehicleId: 'bus-1', tachoSpeedKmh: 40 },
    }).drive(60, 40);

  it('fires the day after the due date, once for the day, with apprehension', () => {
    const v = only(
      run(createRuleEngine({ registry: reg() }), drivingOn('2026-03-02').samples),
      'FRET_INSPECTION_EXPIRED',
    );
    expect(v.measured.dueDate).toBe('2026-03-01');
    expect(num(v, 'daysOverdue')).toBe(1);
    expect(num(v, 'periodMonths')).toBe(12);
    expect(v.penalty).toMatchObject({ units: 25, apprehension: true, item: 'Art. 26 VII' });
    expect(v.confidence).toBe('confirmed');
  });

  it('does not fire on the due date itself', () => {
    expect(
      latest(run(createRuleEngine({ registry: reg() }), drivingOn('2026-03-01').samples), 'FRET_INSPECTION_EXPIRED'),
    ).toHaveLength(0);
  });

  it('reads the period from the age at the last inspection by default; "operation" is stricter', () => {
    // Made in 2020, inspected 2025-03-01 at age 5 → 18 months (due 2026-09-01); aged 6 in June 2026 → 12 months.
    const r = () => registry({ vehicles: [bus('bus-1', { manufactureYear: 2020, lastInspectionDate: '2025-03-01' })] });
    const june = drivingOn('2026-06-01').samples;
    expect(latest(run(createRuleEngine({ registry: r() }), june), 'FRET_INSPECTION_EXPIRED')).toHaveLength(0);
    const strict = createRuleEngine({
      registry: r(),
      packs: { 'sp-fretamento': { inspection: { ageReference: 'operation' } } },
    });
    expect(only(run(strict, june), 'FRET_INSPECTION_EXPIRED').measured.dueDate).toBe('2026-03-01');
  });

  it('Art. 26 VII: a continuing overdue inspection is one violation across local midnight, not one per day', () => {
    // 23:58 → 00:02 local (02:58Z → 03:02Z): the same breach (due 2026-03-01) keeps growing.
    const t = new Trace({
      at: at(SAO_PAULO, '2026-03-02', '20:58:00'),
      lat: ORIGIN.lat,
      lon: ORIGIN.lon,
      fields: { vehicleId: 'bus-1', tachoSpeedKmh: 40 },
    });
    t.drive(240, 40).wait(10_560).drive(240, 40);
    const v = only(run(createRuleEngine({ registry: reg() }), t.samples), 'FRET_INSPECTION_EXPIRED');
    expect(v.measured.lastOperatingDate).toBe('2026-03-03');
    expect(v.localStartedAt.slice(0, 10)).toBe('2026-03-02');
    expect(v.localEndedAt.slice(0, 10)).toBe('2026-03-03');
  });

  it('Art. 26 VII: two days of operation, and the engine closing the idle bus between them, keep one event key', () => {
    const engine = createRuleEngine({ registry: reg() });
    const first = drivingOn('2026-03-02');
    const day1 = run(engine, first.samples, { close: false });
    // The bus is silent overnight: the engine finishes its events (idle), then it drives again.
    const idle = engine.flush(first.samples.at(-1)!.ts.getTime() + 3_600_000);
    const second = drivingOn('2026-03-03');
    const day2 = run(engine, second.samples);
    const keys = new Set(
      [...day1, ...idle, ...day2]
        .filter((e) => e.violation.ruleId === 'FRET_INSPECTION_EXPIRED')
        .map((e) => e.violation.key),
    );
    expect(keys.size).toBe(1);
    expect(idle.some((e) => e.violation.ruleId === 'FRET_INSPECTION_EXPIRED' && e.violation.phase === 'final')).toBe(
      true,
    );
    expect(num(only(day2, 'FRET_INSPECTION_EXPIRED'), 'daysOverdue')).toBe(2);
  });

  it('Art. 17: a new inspection on record ends the violation', () => {
    const t = drivingOn('2026-03-02');
    t.wait(86_400).drive(30, 40);
    const renewed = registry({
      vehicles: [
        bus('bus-1', { manufactureYear: 2018, lastInspectionDate: '2025-03-01', validTo: '2026-03-03T00:00:00-03:00' }),
        bus('bus-1', {
          manufactureYear: 2018,
          lastInspectionDate: '2026-03-02',
          validFrom: '2026-03-03T00:00:00-03:00',
        }),
      ],
    });
    const v = only(run(createRuleEngine({ registry: renewed }), t.samples), 'FRET_INSPECTION_EXPIRED');
    expect(v.measured.lastOperatingDate).toBe('2026-03-02');
    expect(v.phase).toBe('final');
  });
});

describe('FRET_UNREGISTERED_VEHICLE — Art. 23 I, Art. 26 VI–VII, Art. 28, Art. 28-A', () => {
  const drive = (vehicleId = 'bus-1') =>
    new Trace({
      at: at(SAO_PAULO, '2026-03-04', '09:00:00'),
      lat: ORIGIN.lat,
      lon: ORIGIN.lon,
      fields: { vehicleId, tachoSpeedKmh: 40 },
    }).drive(60, 40).samples;

  it('fires for a vehicle whose registration was retired (history kept), with apprehension', () => {
    const reg = registry({ vehicles: [bus('bus-1', { validTo: '2026-03-01T00:00:00-03:00' })] });
    const v = only(run(createRuleEngine({ registry: reg }), drive()), 'FRET_UNREGISTERED_VEHICLE');
    expect(v.variant).toBe('vehicle-withdrawn');
    expect(v.plate).toBe('BUS0001');
    expect(v.penalty).toMatchObject({ units: 25, item: 'Art. 26 VI', apprehension: true });
  });

  it('fires for a vehicle marked withdrawn, and for one whose operator’s authorization was revoked', () => {
    const withdrawn = registry({ vehicles: [bus('bus-1', { status: 'withdrawn' })] });
    expect(only(run(createRuleEngine({ registry: withdrawn }), drive()), 'FRET_UNREGISTERED_VEHICLE').variant).toBe(
      'vehicle-withdrawn',
    );
    const revoked = registry({ operators: [operator('op-sp', 'sp-fretamento', { status: 'revoked' })] });
    const v = only(run(createRuleEngine({ registry: revoked }), drive()), 'FRET_UNREGISTERED_VEHICLE');
    expect(v.variant).toBe('operator-not-authorized');
    expect(v.penalty).toMatchObject({ units: 25, item: 'Art. 28', apprehension: true });
    const lapsed = registry({
      operators: [operator('op-sp', 'sp-fretamento', { registrationValidUntil: '2026-03-03' })],
    });
    expect(only(run(createRuleEngine({ registry: lapsed }), drive()), 'FRET_UNREGISTERED_VEHICLE').variant).toBe(
      'operator-not-authorized',
    );
  });

  it('fires for a vehicle the registry never had when the pipeline says it is a São Paulo charter device', () => {
    const engine = createRuleEngine({ registry: registry() });
    const events = drive('ghost').flatMap((s) => engine.ingest(s, { pack: 'sp-fretamento' }));
    events.push(...engine.close());
    const v = only(events, 'FRET_UNREGISTERED_VEHICLE');
    expect(v.variant).toBe('vehicle-not-registered');
    expect(v.penalty.item).toBe('Art. 26 VII');
  });

  it('does not fire for a registered vehicle of an authorized operator', () => {
    expect(latest(run(createRuleEngine({ registry: registry() }), drive()), 'FRET_UNREGISTERED_VEHICLE')).toHaveLength(
      0,
    );
  });
});

describe('FRET_VEHICLE_TOO_OLD — Art. 5 sole paragraph item 1, Art. 17 III', () => {
  const drive = () =>
    new Trace({
      at: at(SAO_PAULO, '2026-03-04', '09:00:00'),
      lat: ORIGIN.lat,
      lon: ORIGIN.lon,
      fields: { vehicleId: 'bus-1', tachoSpeedKmh: 40 },
    }).drive(30, 40).samples;
  it('fires for a 2010 coach in 2026 (16 years) but not a 2011 one (15 years)', () => {
    const old = only(
      run(createRuleEngine({ registry: registry({ vehicles: [bus('bus-1', { manufactureYear: 2010 })] }) }), drive()),
      'FRET_VEHICLE_TOO_OLD',
    );
    expect(num(old, 'ageYears')).toBe(16);
    const ok = run(
      createRuleEngine({
        registry: registry({ vehicles: [bus('bus-1', { manufactureYear: 2011, lastInspectionDate: '2026-01-01' })] }),
      }),
      drive(),
    );
    expect(latest(ok, 'FRET_VEHICLE_TOO_OLD')).toHaveLength(0);
  });
});

describe('FRET_TACHOGRAPH_MISSING — Art. 14, Art. 25 IV', () => {
  it('fires after 10 min of driving with no tachograph data (confirmed: the tracker reads the tachograph)', () => {
    const t = trace({ tachoSpeedKmh: null, tachoDriverId: null }).drive(11 * 60, 40);
    const v = only(run(createRuleEngine({ registry: registry() }), t.samples), 'FRET_TACHOGRAPH_MISSING');
    expect(num(v, 'movingSecondsWithoutTachograph')).toBeGreaterThanOrEqual(600);
    expect(v.confidence).toBe('confirmed');
    expect(v.penalty.units).toBe(20);
  });

  it('does not fire after 9 min, and is suspected when the tracker is not linked to the tachograph', () => {
    expect(
      latest(
        run(
          createRuleEngine({ registry: registry() }),
          trace({ tachoSpeedKmh: null, tachoDriverId: null }).drive(9 * 60, 40).samples,
        ),
        'FRET_TACHOGRAPH_MISSING',
      ),
    ).toHaveLength(0);
    const unlinked = registry({ vehicles: [bus('bus-1', { tachographLinked: false })] });
    const v = only(
      run(
        createRuleEngine({ registry: unlinked }),
        trace({ tachoSpeedKmh: null, tachoDriverId: null }).drive(11 * 60, 40).samples,
      ),
      'FRET_TACHOGRAPH_MISSING',
    );
    expect(v.confidence).toBe('suspected');
  });
});

describe('FRET_TACHOGRAPH_MISMATCH — Art. 26 II (always suspected)', () => {
  it('fires when the tachograph reads 25 % below GPS for over 60 s of steady driving', () => {
    const t = trace().drive(70, 60, 90, 5, { tachoSpeedKmh: 45 });
    const v = only(run(createRuleEngine({ registry: registry() }), t.samples), 'FRET_TACHOGRAPH_MISMATCH');
    expect(v.confidence).toBe('suspected');
    expect(num(v, 'maxDeviationFraction')).toBeCloseTo(0.25, 2);
    expect(num(v, 'meanTachographSpeedKmh')).toBe(45);
  });

  it('does not fire at 11.7 % disagreement, nor for 50 s', () => {
    expect(
      latest(
        run(createRuleEngine({ registry: registry() }), trace().drive(120, 60, 90, 5, { tachoSpeedKmh: 53 }).samples),
        'FRET_TACHOGRAPH_MISMATCH',
      ),
    ).toHaveLength(0);
    expect(
      latest(
        run(createRuleEngine({ registry: registry() }), trace().drive(50, 60, 90, 5, { tachoSpeedKmh: 45 }).samples),
        'FRET_TACHOGRAPH_MISMATCH',
      ),
    ).toHaveLength(0);
  });
});

describe('FRET_UNSAFE_DRIVING — Art. 26 IV', () => {
  it('fires at 90 km/h for 25 s (limit 80 + 7 km/h tolerance), not for 15 s', () => {
    const v = only(
      run(createRuleEngine({ registry: registry() }), trace().drive(25, 90).samples),
      'FRET_UNSAFE_DRIVING',
    );
    expect(num(v, 'maxSpeedKmh')).toBe(90);
    expect(num(v, 'limitKmh')).toBe(80);
    expect(v.measured).toMatchObject({ limitSource: 'pack-default', zoneId: null, toleranceKmh: 7, thresholdKmh: 87 });
    expect(v.penalty.units).toBe(25);
    expect(
      latest(run(createRuleEngine({ registry: registry() }), trace().drive(15, 90).samples), 'FRET_UNSAFE_DRIVING'),
    ).toHaveLength(0);
  });

  it('applies a lower limit inside a speed-limit zone', () => {
    const zone = {
      id: 'Z40',
      pack: 'sp-fretamento' as const,
      kind: 'speed-limit' as const,
      name: 'Zona escolar',
      geometry: square(along(300).lat, along(300).lon, 400),
      speedLimitKmh: 40,
    };
    const v = only(
      run(createRuleEngine({ registry: registry({ zones: [zone] }) }), trace().drive(30, 50).samples),
      'FRET_UNSAFE_DRIVING',
    );
    expect(num(v, 'limitKmh')).toBe(40);
    expect(v.place).toEqual({ id: 'Z40', kind: 'zone', name: 'Zona escolar' });
    expect(
      latest(run(createRuleEngine({ registry: registry() }), trace().drive(30, 50).samples), 'FRET_UNSAFE_DRIVING'),
    ).toHaveLength(0);
  });
});

describe('FRET_ROUTE_DEVIATION — Art. 10 §2 item 3, Art. 11 §2 item 3, Art. 20', () => {
  const contract = (schedule = [{ daysOfWeek: [1, 2, 3, 4, 5], start: '07:30', end: '09:30' }]) => ({
    id: 'C-1',
    pack: 'sp-fretamento' as const,
    operatorId: 'op-sp',
    kind: 'continuo' as const,
    client: 'Fábrica Exemplo',
    vehicleIds: ['bus-1'],
    route: {
      type: 'LineString' as const,
      coordinates: [
        [ORIGIN.lon, ORIGIN.lat],
        [along(5000).lon, along(5000).lat],
      ] as [number, number][],
    },
    boardingPlaces: [{ id: 'B1', name: 'Portaria', lat: ORIGIN.lat, lon: ORIGIN.lon, radiusM: 60 }],
    alightingPlaces: [{ id: 'A1', name: 'Fábrica', lat: along(5000).lat, lon: along(5000).lon, radiusM: 80 }],
    schedule,
  });

  it('fires when the bus is more than 500 m off the declared route for over 2 minutes', () => {
    const t = trace().drive(60, 36).drive(200, 36, 0); // 600 m east on route, then 2 000 m north
    const v = only(
      run(createRuleEngine({ registry: registry({ contracts: [contract()] }) }), t.samples),
      'FRET_ROUTE_DEVIATION',
    );
    expect(v.variant).toBe('off-route');
    expect(num(v, 'maxDistanceFromRouteM')).toBeGreaterThan(1900);
    expect(num(v, 'offRouteSeconds')).toBeGreaterThanOrEqual(120);
    expect(v.place).toMatchObject({ id: 'C-1', kind: 'route' });
  });

  it('does not fire 400 m from the route, nor outside the contract’s schedule', () => {
    const near = trace().drive(60, 36).drive(40, 36, 0).drive(300, 36, 90); // 400 m north, then parallel
    expect(
      latest(
        run(createRuleEngine({ registry: registry({ contracts: [contract()] }) }), near.samples),
        'FRET_ROUTE_DEVIATION',
      ),
    ).toHaveLength(0);
    const offHours = trace().drive(60, 36).drive(200, 36, 0);
    const evening = contract([{ daysOfWeek: [1, 2, 3, 4, 5], start: '17:00', end: '19:00' }]);
    expect(
      latest(
        run(createRuleEngine({ registry: registry({ contracts: [evening] }) }), offHours.samples),
        'FRET_ROUTE_DEVIATION',
      ),
    ).toHaveLength(0);
  });

  it('fires for a boarding away from the declared boarding places, not at the declared one', () => {
    const away = trace()
      .drive(100, 36)
      .stay(20, 5, { doorOpen: true, boardings: 2, passengers: 12 })
      .drive(20, 36, 90, 5, { doorOpen: false, boardings: 0 });
    const v = only(
      run(createRuleEngine({ registry: registry({ contracts: [contract()] }) }), away.samples),
      'FRET_ROUTE_DEVIATION',
    );
    expect(v.variant).toBe('boarding-outside-declared-places');
    expect(v.confidence).toBe('confirmed');
    expect(num(v, 'distanceToNearestBoardingPlaceM')).toBeGreaterThan(900);
    const atGate = trace()
      .stay(20, 5, { doorOpen: true, boardings: 5, passengers: 15 })
      .drive(60, 36, 90, 5, { doorOpen: false, boardings: 0 });
    expect(
      latest(
        run(createRuleEngine({ registry: registry({ contracts: [contract()] }) }), atGate.samples),
        'FRET_ROUTE_DEVIATION',
      ),
    ).toHaveLength(0);
  });
});

/**
 * Drive to the stop at `m` metres and dwell there through `phases` ([seconds, readings] each, a
 * sample every 5 s), then set `after` (the readings the bus moves off with) and drive on.
 */
function stopPhases(t: Trace, m: number, phases: [number, Record<string, unknown>][], after: Record<string, unknown>) {
  const start = t.position;
  const target = along(m);
  const metres = Math.abs(target.lon - start.lon) * 111_195 * Math.cos((ORIGIN.lat * Math.PI) / 180);
  t.drive(Math.floor(metres / 50) * 5, 36, 90, 5, { tachoSpeedKmh: 36 });
  t.wait(5).moveTo(target.lat, target.lon).emit({ speedKmh: 2, tachoSpeedKmh: 2 });
  for (const [seconds, readings] of phases) t.stay(seconds, 5, readings);
  t.set(after).drive(30, 36, 90, 5, { tachoSpeedKmh: 36 });
  return t;
}

const boardingAt400 = (
  phases: [number, Record<string, unknown>][],
  after: Record<string, unknown>,
  fields: Record<string, unknown> = {},
) =>
  latest(
    run(createRuleEngine({ registry: registry() }), stopPhases(trace(fields), 400, phases, after).samples),
    'FRET_BOARDING_AT_REGULAR_STOP',
  );

describe('FRET_BOARDING_AT_REGULAR_STOP — Art. 10 §3: passenger-counter flicker is not a boarding', () => {
  it('Art. 10 §3: a count that rises and falls back within the dwell with the door closed boards nobody', () => {
    expect(
      boardingAt400(
        [
          [5, { passengers: 10 }],
          [10, { passengers: 13 }],
          [10, { passengers: 10 }],
        ],
        { passengers: 10 },
      ),
    ).toHaveLength(0);
  });

  it('Art. 10 §3: a counter phantom with the door closed (boardings 3, then alightings 3) boards nobody', () => {
    const phantom = boardingAt400(
      [
        [5, { passengers: 10 }],
        [5, { passengers: 13, boardings: 3 }],
        [5, { passengers: 13, boardings: 0 }],
        [10, { passengers: 10, alightings: 3 }],
      ],
      { passengers: 10, alightings: 0 },
    );
    expect(phantom).toHaveLength(0);
    // The same counts with the door open are a boarding.
    const real = boardingAt400(
      [
        [5, { passengers: 13, boardings: 3, doorOpen: true }],
        [15, { passengers: 13, boardings: 0, doorOpen: true }],
      ],
      {
        passengers: 13,
        boardings: 0,
        doorOpen: false,
      },
    );
    expect(real.map((v) => [v.confidence, v.measured.boardings])).toEqual([['confirmed', 3]]);
  });

  it('Art. 10 §3: a count that rises with the door closed and stays boards nobody either (the door never opened)', () => {
    expect(
      boardingAt400(
        [
          [5, { passengers: 10 }],
          [20, { passengers: 13 }],
        ],
        { passengers: 13 },
      ),
    ).toHaveLength(0);
  });

  it('Art. 10 §3: the door opens and the count is higher when the bus moves off: confirmed, before and after shown', () => {
    const [v, ...rest] = boardingAt400(
      [
        [5, { passengers: 10 }],
        [10, { passengers: 13, doorOpen: true }],
        [10, { passengers: 13, doorOpen: false }],
      ],
      { passengers: 13, doorOpen: false },
      { boardings: null },
    );
    expect(rest).toHaveLength(0);
    expect(v?.confidence).toBe('confirmed');
    expect(v?.measured).toMatchObject({ boardingEvidence: 'occupancy', passengersBefore: 10, passengersAfter: 13 });
  });

  it('Art. 10 §3: one passenger more when the bus moves off is a boarding; the same count after the door opened is not', () => {
    const phases = (after: number): [number, Record<string, unknown>][] => [
      [10, { passengers: 12, doorOpen: true }],
      [10, { passengers: after, doorOpen: true }],
    ];
    const one = boardingAt400(phases(11), { passengers: 11, doorOpen: false }, { boardings: null });
    expect(one.map((v) => v.measured.passengersAfter)).toEqual([11]);
    // Rose while the door was open, fell back before it moved off: nobody stayed aboard.
    expect(boardingAt400(phases(10), { passengers: 10, doorOpen: false }, { boardings: null })).toHaveLength(0);
  });

  it('Art. 10 §3: no door reading: a rise held for the settle time (15 s) is suspected, a 10 s rise is noise', () => {
    const held = boardingAt400(
      [
        [5, { passengers: 10 }],
        [25, { passengers: 13 }],
      ],
      { passengers: 13 },
      { doorOpen: null, boardings: null },
    );
    expect(held.map((v) => [v.confidence, v.measured.boardingEvidence])).toEqual([['suspected', 'count']]);
    expect(
      boardingAt400(
        [
          [5, { passengers: 10 }],
          [10, { passengers: 13 }],
          [10, { passengers: 10 }],
        ],
        { passengers: 10 },
        { doorOpen: null, boardings: null },
      ),
    ).toHaveLength(0);
  });

  it('Art. 10 §3: door data only is suspected (it may be alighting); counted boardings are confirmed live', () => {
    const door = boardingAt400([[20, { doorOpen: true }]], { doorOpen: false }, { passengers: null, boardings: null });
    expect(door.map((v) => [v.confidence, v.measured.boardingEvidence])).toEqual([['suspected', 'door']]);
    const engine = createRuleEngine({ registry: registry() });
    const t = stopPhases(trace(), 400, [[20, { boardings: 2, doorOpen: true }]], { boardings: 0 });
    const liveIdx = t.samples.findIndex((s) => s.boardings === 2) + 3;
    const live = t.samples.slice(0, liveIdx + 1).flatMap((s) => engine.ingest(s));
    expect(latest(live, 'FRET_BOARDING_AT_REGULAR_STOP').map((v) => [v.phase, v.confidence])).toEqual([
      ['ongoing', 'confirmed'],
    ]);
  });
});

describe('FRET_REGULAR_SERVICE_PATTERN — Art. 18, Art. 29 I: suspected boardings never make a pattern', () => {
  it('Art. 29 I: door-only boardings at 3 stops are 3 suspected boardings and no pattern', () => {
    const t = trace({ passengers: null, boardings: null });
    for (const m of [400, 800, 1200]) stopPhases(t, m, [[20, { doorOpen: true }]], { doorOpen: false });
    const events = run(createRuleEngine({ registry: registry() }), t.samples);
    expect(latest(events, 'FRET_BOARDING_AT_REGULAR_STOP').map((v) => v.confidence)).toEqual([
      'suspected',
      'suspected',
      'suspected',
    ]);
    expect(latest(events, 'FRET_REGULAR_SERVICE_PATTERN')).toHaveLength(0);
  });

  it('Art. 29 I: 2 confirmed boardings and 1 suspected are no pattern; a third confirmed one is', () => {
    const board = (passengers: number): [number, Record<string, unknown>][] => [[20, { doorOpen: true, passengers }]];
    const mixed = trace({ boardings: null });
    stopPhases(mixed, 400, board(12), { doorOpen: false, passengers: 12 });
    stopPhases(mixed, 800, board(14), { doorOpen: false, passengers: 14 });
    // The door sensor goes silent before the third stop: the rise there is only suspected.
    mixed.set({ doorOpen: null });
    stopPhases(mixed, 1200, [[25, { doorOpen: null, passengers: 16 }]], { doorOpen: null, passengers: 16 });
    const m = run(createRuleEngine({ registry: registry() }), mixed.samples);
    expect(latest(m, 'FRET_BOARDING_AT_REGULAR_STOP').map((v) => v.confidence)).toEqual([
      'confirmed',
      'confirmed',
      'suspected',
    ]);
    expect(latest(m, 'FRET_REGULAR_SERVICE_PATTERN')).toHaveLength(0);

    const all = trace({ boardings: null });
    stopPhases(all, 400, board(12), { doorOpen: false, passengers: 12 });
    stopPhases(all, 800, board(14), { doorOpen: false, passengers: 14 });
    stopPhases(all, 1200, board(16), { doorOpen: false, passengers: 16 });
    const v = only(run(createRuleEngine({ registry: registry() }), all.samples), 'FRET_REGULAR_SERVICE_PATTERN');
    expect(v.measured).toMatchObject({ confirmedDistinctStops: 3, confirmedBoardings: 3 });
    expect(v.penalty).toMatchObject({ units: null, amountBrl: null, opensCancellation: true });
  });
});

describe('FRET_OVER_CAPACITY — Art. 22 I: counter flicker is not overloading', () => {
  it('Art. 22 I: 48 counted on a 40-passenger bus with the door closed all along is noise; after a door opening it is not', () => {
    const closed = trace({ passengers: 40 }).drive(20, 50).set({ passengers: 48 }).drive(60, 50);
    expect(latest(run(createRuleEngine({ registry: registry() }), closed.samples), 'FRET_OVER_CAPACITY')).toHaveLength(
      0,
    );
    const boarded = trace({ passengers: 40 })
      .drive(20, 50)
      .stay(10, 5, { doorOpen: true, passengers: 48 })
      .set({ passengers: 48 })
      .drive(40, 50);
    const v = only(run(createRuleEngine({ registry: registry() }), boarded.samples), 'FRET_OVER_CAPACITY');
    expect(num(v, 'passengersMax')).toBe(48);
  });

  it('Art. 22 I: with no door reading, 48 held 15 s then 30 s driving fires; a 10 s spike does not', () => {
    const held = trace({ passengers: 40, doorOpen: null }).drive(20, 50).set({ passengers: 48 }).drive(50, 50);
    expect(only(run(createRuleEngine({ registry: registry() }), held.samples), 'FRET_OVER_CAPACITY').confidence).toBe(
      'confirmed',
    );
    const spike = trace({ passengers: 40, doorOpen: null })
      .drive(20, 50)
      .drive(10, 50, 90, 5, { passengers: 48 })
      .drive(60, 50);
    expect(latest(run(createRuleEngine({ registry: registry() }), spike.samples), 'FRET_OVER_CAPACITY')).toHaveLength(
      0,
    );
  });
});

describe('FRET_ROUTE_DEVIATION — Art. 20: an empty positioning run is not a deviation', () => {
  const contract = {
    id: 'C-1',
    pack: 'sp-fretamento' as const,
    operatorId: 'op-sp',
    kind: 'continuo' as const,
    client: 'Fábrica Exemplo',
    vehicleIds: ['bus-1'],
    route: {
      type: 'LineString' as const,
      coordinates: [
        [ORIGIN.lon, ORIGIN.lat],
        [along(5000).lon, along(5000).lat],
      ] as [number, number][],
    },
    boardingPlaces: [{ id: 'B1', name: 'Portaria', lat: ORIGIN.lat, lon: ORIGIN.lon, radiusM: 60 }],
    alightingPlaces: [{ id: 'A1', name: 'Fábrica', lat: along(5000).lat, lon: along(5000).lon, radiusM: 80 }],
    schedule: [{ daysOfWeek: [1, 2, 3, 4, 5], start: '07:30', end: '09:30' }],
  };
  const deviations = (t: Trace) =>
    latest(run(createRuleEngine({ registry: registry({ contracts: [contract] }) }), t.samples), 'FRET_ROUTE_DEVIATION');
  // 600 m on route, then 2 000 m north (far off route for over 2 minutes).
  const offRoute = (fields: Record<string, unknown>) => trace(fields).drive(60, 36).drive(200, 36, 0);

  it('Art. 20: driving empty (count 0, door closed) 2 km off the route is a positioning run; loaded, it deviates', () => {
    expect(deviations(offRoute({ passengers: 0 }))).toHaveLength(0);
    expect(deviations(offRoute({ passengers: 1 })).map((v) => [v.variant, v.confidence])).toEqual([
      ['off-route', 'confirmed'],
    ]);
  });

  it('Art. 20: after the last passenger alights the empty run back is not judged', () => {
    const t = trace({ passengers: 20 }).drive(60, 36);
    t.stay(15, 5, { doorOpen: true, passengers: 0 }).set({ passengers: 0 }).drive(200, 36, 0);
    expect(deviations(t)).toHaveLength(0);
  });

  it('Art. 20: a boarding at the declared gate whose first fix jumped 300 m away (multipath) is at the gate', () => {
    const t = trace({ passengers: 10 });
    const jumped = offset(ORIGIN.lat, ORIGIN.lon, 300, 0);
    t.moveTo(jumped.lat, jumped.lon).emit({ speedKmh: 0 }).moveTo(ORIGIN.lat, ORIGIN.lon);
    t.stay(20, 5, { doorOpen: true, boardings: 5, passengers: 15 }).set({ passengers: 15 }).drive(60, 36);
    expect(deviations(t)).toHaveLength(0);
    // Every fix of the stop 300 m away: a boarding outside the declared places.
    const away = trace({ passengers: 10 });
    away.moveTo(jumped.lat, jumped.lon).stay(20, 5, { doorOpen: true, boardings: 5, passengers: 15 });
    away.set({ passengers: 15 }).drive(60, 36);
    expect(deviations(away).map((v) => v.variant)).toEqual(['boarding-outside-declared-places']);
  });

  it('Art. 20: no passenger count: only the stretch after the first door opening counts, and it is suspected', () => {
    const noCount = { passengers: null, boardings: null };
    expect(deviations(offRoute(noCount))).toHaveLength(0);
    const t = trace(noCount).stay(15, 5, { doorOpen: true }).drive(60, 36).drive(200, 36, 0);
    const [v, ...rest] = deviations(t);
    expect(rest).toHaveLength(0);
    expect(v).toMatchObject({ variant: 'off-route', confidence: 'suspected' });
    expect(v?.measured.loadEvidence).toBe('door-opened-no-count');
  });
});

describe('FRET_UNSAFE_DRIVING — Art. 26 IV: the limit in force and the measurement tolerance', () => {
  const zone = (limit: number) => ({
    id: `Z${limit}`,
    pack: 'sp-fretamento' as const,
    kind: 'speed-limit' as const,
    name: `Trecho ${limit} km/h`,
    geometry: square(along(1000).lat, along(1000).lon, 2000),
    speedLimitKmh: limit,
  });
  const speeding = (speed: number, zones: ReturnType<typeof zone>[] = []) =>
    latest(
      run(createRuleEngine({ registry: registry({ zones }) }), trace().drive(30, speed).samples),
      'FRET_UNSAFE_DRIVING',
    );

  it('Art. 26 IV: 87 km/h (80 + 7 tolerance) is tolerated, 88 km/h is not', () => {
    expect(speeding(87)).toHaveLength(0);
    expect(speeding(88).map((v) => v.measured.thresholdKmh)).toEqual([87]);
  });

  it('Art. 26 IV: a zone raising the limit to 100 km/h: 100 and 107 km/h pass, 108 km/h fires against the zone', () => {
    expect(speeding(100)).toHaveLength(1); // default 80 without the zone
    expect(speeding(100, [zone(100)])).toHaveLength(0);
    expect(speeding(107, [zone(100)])).toHaveLength(0);
    const [v] = speeding(108, [zone(100)]);
    expect(v?.measured).toMatchObject({ limitKmh: 100, limitSource: 'zone', zoneId: 'Z100', toleranceKmh: 7 });
    expect(v?.place).toMatchObject({ id: 'Z100', kind: 'zone' });
  });

  it('Art. 26 IV: a zone lowering the limit to 40 km/h: 47 km/h passes, 48 km/h fires', () => {
    expect(speeding(47, [zone(40)])).toHaveLength(0);
    expect(speeding(48, [zone(40)]).map((v) => v.measured.limitKmh)).toEqual([40]);
  });

  it('Art. 26 IV: above 100 km/h the tolerance is 7 %: a 120 zone tolerates 128 km/h, not 129', () => {
    expect(speeding(128, [zone(120)])).toHaveLength(0);
    expect(speeding(129, [zone(120)]).map((v) => v.measured.thresholdKmh)).toEqual([128.4]);
  });

  it('Art. 26 IV: the tolerance is a setting (0 restores the bare limit)', () => {
    const strict = createRuleEngine({
      registry: registry(),
      packs: { 'sp-fretamento': { speed: { toleranceKmh: 0 } } },
    });
    expect(latest(run(strict, trace().drive(30, 81).samples), 'FRET_UNSAFE_DRIVING')).toHaveLength(1);
  });
});
