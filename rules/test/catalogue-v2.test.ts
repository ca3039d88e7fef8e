import { describe, expect, it } from 'vitest';
import type { PackConfigs } from '../src/engine/rule-engine.js';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import type { RegistryRecordsInput } from '../src/registry/records.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, bus, operator, square, taxi } from './helpers/fixtures.js';
import { at, BELEM, offset, SAO_PAULO, Trace } from './helpers/trace.js';

/** The ten rules of RULES.md "Catalogue v2", each at and around its boundary. */

const SP = { lat: -23.55, lon: -46.63 };
const DF = { lat: -15.7939, lon: -47.8828 };
const BEL = { lat: -1.4558, lon: -48.4902 };

type Records = Partial<RegistryRecordsInput>;
const engine = (records: Records, packs: PackConfigs = {}) =>
  createRuleEngine({
    registry: createInMemoryRegistry({
      operators: [
        ...baseOperators,
        operator('op-other', 'sp-fretamento', { registrationValidUntil: '2030-01-01' }),
        operator('op-holder', 'belem-taxi', { kind: 'taxi-autonomous' }),
      ],
      unitValues: [
        { unit: 'ORTN', validFrom: '2020-01-01', valueBrl: 50 },
        { unit: 'IPCA-E', pack: 'belem-taxi', validFrom: '2020-01-01', valueBrl: 4.5 },
      ],
      ...records,
    }),
    packs,
  });

const route = {
  type: 'LineString' as const,
  coordinates: [
    [SP.lon, SP.lat],
    [offset(SP.lat, SP.lon, 20_000, 90).lon, SP.lat],
  ] as [number, number][],
};

function contract(overrides: Partial<NonNullable<RegistryRecordsInput['contracts']>[number]> = {}) {
  return {
    id: 'C-1',
    pack: 'sp-fretamento' as const,
    operatorId: 'op-sp',
    kind: 'continuo' as const,
    vehicleIds: ['b-1'],
    route,
    schedule: [{ daysOfWeek: [1, 2, 3, 4, 5], start: '07:00', end: '08:00' }],
    ...overrides,
  };
}

/** A bus driving east at 40 km/h for `seconds` from a Tuesday `time`, one sample every `every` s. */
function busRun(time: string, seconds: number, fields: Record<string, unknown>, every = 5) {
  const t = new Trace({
    at: at(SAO_PAULO, '2026-06-09', time),
    lat: SP.lat,
    lon: SP.lon,
    fields: { vehicleId: 'b-1', tachoSpeedKmh: 40, tachoDriverId: 'M-1', ...fields },
  });
  return t.emit({ speedKmh: 40 }).drive(seconds, 40, 90, every).samples;
}

describe('FRET_NO_CONTRACT_IN_FORCE (Art. 10, Art. 11, Art. 20)', () => {
  it('Art. 10 caput: a contínuo bus carrying 20 passengers for 60 s of driving with no contract fires', () => {
    const v = only(
      run(engine({ vehicles: [bus('b-1')] }), busRun('07:30', 60, { passengers: 20 })),
      'FRET_NO_CONTRACT_IN_FORCE',
    );
    expect(v.confidence).toBe('confirmed');
    expect(num(v, 'movingSecondsWithPassengers')).toBe(60);
    expect(v.penalty).toMatchObject({ unit: 'ORTN', units: 10, item: 'Art. 23 V' });
    expect(v.legalBasis).toContain('Art. 10 caput');
  });
  it('Art. 10 caput: 55 s of driving with passengers is below the 60 s threshold', () => {
    const events = run(engine({ vehicles: [bus('b-1')] }), busRun('07:30', 55, { passengers: 20 }));
    expect(latest(events, 'FRET_NO_CONTRACT_IN_FORCE')).toEqual([]);
  });
  it('Art. 20: inside the schedule window plus the 30-minute margin the contract covers the bus', () => {
    const events = run(
      engine({ vehicles: [bus('b-1')], contracts: [contract()] }),
      busRun('08:29', 120, { passengers: 20 }),
    );
    expect(latest(events, 'FRET_NO_CONTRACT_IN_FORCE')).toEqual([]);
  });
  it('Art. 20: past the window and its margin (08:31 for a 07:00–08:00 window) the contract no longer covers it', () => {
    const events = run(
      engine({ vehicles: [bus('b-1')], contracts: [contract()] }),
      busRun('08:31', 60, { passengers: 20 }),
    );
    expect(latest(events, 'FRET_NO_CONTRACT_IN_FORCE')).toHaveLength(1);
  });
  it('Art. 10 caput: a contract covers the bus through its last day (validUntil), not the day after', () => {
    const last = run(
      engine({ vehicles: [bus('b-1')], contracts: [contract({ validUntil: '2026-06-09' })] }),
      busRun('07:30', 120, { passengers: 20 }),
    );
    expect(latest(last, 'FRET_NO_CONTRACT_IN_FORCE')).toEqual([]);
    const after = run(
      engine({ vehicles: [bus('b-1')], contracts: [contract({ validUntil: '2026-06-08' })] }),
      busRun('07:30', 120, { passengers: 20 }),
    );
    expect(latest(after, 'FRET_NO_CONTRACT_IN_FORCE')).toHaveLength(1);
  });
  it('Art. 12: a serviço particular bus needs no contract', () => {
    const events = run(
      engine({ vehicles: [bus('b-1', { serviceType: 'particular' })] }),
      busRun('07:30', 120, { passengers: 20 }),
    );
    expect(latest(events, 'FRET_NO_CONTRACT_IN_FORCE')).toEqual([]);
  });
  it('Art. 10 caput: an empty bus, a counter that flickers to 1 for one sample, or no counter carries nobody', () => {
    const flicker = busRun('07:30', 120, { passengers: 0 }).map((s, i) => (i === 5 ? { ...s, passengers: 1 } : s));
    expect(latest(run(engine({ vehicles: [bus('b-1')] }), flicker), 'FRET_NO_CONTRACT_IN_FORCE')).toEqual([]);
    const blind = busRun('07:30', 120, {});
    expect(latest(run(engine({ vehicles: [bus('b-1')] }), blind), 'FRET_NO_CONTRACT_IN_FORCE')).toEqual([]);
  });
});

describe('FRET_DOOR_OPEN_MOVING (Art. 26 V)', () => {
  const doorRun = (speedKmh: number, openSeconds: number) => {
    const t = new Trace({
      at: at(SAO_PAULO, '2026-06-09', '07:30'),
      lat: SP.lat,
      lon: SP.lon,
      fields: { vehicleId: 'b-1', tachoSpeedKmh: speedKmh, tachoDriverId: 'M-1', passengers: 10, doorOpen: false },
    });
    t.emit({ speedKmh }).drive(10, speedKmh, 90, 1);
    t.set({ doorOpen: true }).drive(openSeconds + 1, speedKmh, 90, 1);
    return t.set({ doorOpen: false }).drive(10, speedKmh, 90, 1).samples;
  };
  it('Art. 26 V: a door open for 5 s at 20 km/h fires (25 ORTN)', () => {
    const v = only(run(engine({ vehicles: [bus('b-1')] }), doorRun(20, 5)), 'FRET_DOOR_OPEN_MOVING');
    expect(num(v, 'doorOpenSeconds')).toBe(5);
    expect(v.penalty).toMatchObject({ units: 25, item: 'Art. 26 V' });
    expect(v.confidence).toBe('confirmed');
  });
  it('Art. 26 V: a door open for 4 s (a bouncing sensor) stays quiet', () => {
    expect(latest(run(engine({ vehicles: [bus('b-1')] }), doorRun(20, 4)), 'FRET_DOOR_OPEN_MOVING')).toEqual([]);
  });
  it('Art. 26 V: at exactly 10 km/h the door may be open (above 10 only); at 11 km/h it fires', () => {
    expect(latest(run(engine({ vehicles: [bus('b-1')] }), doorRun(10, 20)), 'FRET_DOOR_OPEN_MOVING')).toEqual([]);
    expect(latest(run(engine({ vehicles: [bus('b-1')] }), doorRun(11, 20)), 'FRET_DOOR_OPEN_MOVING')).toHaveLength(1);
  });
});

describe('FRET_DRIVER_NOT_AUTHORIZED (Art. 23 II, Art. 12 sole paragraph)', () => {
  const driver = (status: 'active' | 'withdrawn', operatorId: string | null = 'op-sp') => ({
    id: 'M-1',
    name: 'Motorista',
    pack: 'sp-fretamento' as const,
    status,
    operatorId,
  });
  it('Art. 23 II: a driver whose removal the regulator required drives: 10 ORTN', () => {
    const v = only(
      run(engine({ vehicles: [bus('b-1')], drivers: [driver('withdrawn')] }), busRun('07:30', 30, { passengers: 0 })),
      'FRET_DRIVER_NOT_AUTHORIZED',
    );
    expect(v.variant).toBe('removal-required');
    expect(v.penalty).toMatchObject({ units: 10, item: 'Art. 23 II' });
  });
  it('Art. 23 II: an active driver on a contínuo bus, employee or not, is not this rule', () => {
    const events = run(
      engine({ vehicles: [bus('b-1')], drivers: [driver('active', 'op-other')] }),
      busRun('07:30', 30, { passengers: 0 }),
    );
    expect(latest(events, 'FRET_DRIVER_NOT_AUTHORIZED')).toEqual([]);
  });
  it('Art. 12 sole paragraph: on a serviço particular a driver employed by another company fires; an employee does not', () => {
    const particular = bus('b-1', { serviceType: 'particular' });
    const other = only(
      run(engine({ vehicles: [particular], drivers: [driver('active', 'op-other')] }), busRun('07:30', 30, {})),
      'FRET_DRIVER_NOT_AUTHORIZED',
    );
    expect(other).toMatchObject({ variant: 'not-an-employee', confidence: 'confirmed' });
    expect(other.penalty.item).toBe('Art. 23 V');
    const own = run(engine({ vehicles: [particular], drivers: [driver('active', 'op-sp')] }), busRun('07:30', 30, {}));
    expect(latest(own, 'FRET_DRIVER_NOT_AUTHORIZED')).toEqual([]);
  });
  it('Art. 12 sole paragraph: a driver id the registry does not know is only suspected (or ignored by setting)', () => {
    const particular = bus('b-1', { serviceType: 'particular' });
    const v = only(run(engine({ vehicles: [particular] }), busRun('07:30', 30, {})), 'FRET_DRIVER_NOT_AUTHORIZED');
    expect(v).toMatchObject({ variant: 'driver-unknown', confidence: 'suspected' });
    const ignored = run(
      engine(
        { vehicles: [particular] },
        { 'sp-fretamento': { driverAuthorization: { unknownDriverOnParticular: 'ignore' } } },
      ),
      busRun('07:30', 30, {}),
    );
    expect(latest(ignored, 'FRET_DRIVER_NOT_AUTHORIZED')).toEqual([]);
  });
});

describe('FRET_VEHICLE_OF_ANOTHER_COMPANY (Art. 24 II)', () => {
  const foreign = (auth: { vehicleId: string; validUntil?: string | null }[] = []) =>
    contract({ operatorId: 'op-other', otherCompanyAuthorizations: auth });
  it("Art. 24 II: another company's contract run by this operator's bus for 60 s, no authorization: 15 ORTN, suspected (socorro)", () => {
    const v = only(
      run(engine({ vehicles: [bus('b-1')], contracts: [foreign()] }), busRun('07:30', 60, { passengers: 20 })),
      'FRET_VEHICLE_OF_ANOTHER_COMPANY',
    );
    expect(v).toMatchObject({ confidence: 'suspected' });
    expect(v.measured).toMatchObject({ contractOperatorId: 'op-other', vehicleOperatorId: 'op-sp' });
    expect(v.penalty).toMatchObject({ units: 15, item: 'Art. 24 II' });
    const confirmed = only(
      run(
        engine(
          { vehicles: [bus('b-1')], contracts: [foreign()] },
          { 'sp-fretamento': { vehicleOfAnotherCompany: { confidence: 'confirmed' } } },
        ),
        busRun('07:30', 60, { passengers: 20 }),
      ),
      'FRET_VEHICLE_OF_ANOTHER_COMPANY',
    );
    expect(confirmed.confidence).toBe('confirmed');
  });
  it('Art. 24 II: 55 s of driving is below the threshold; the own company’s contract is no case', () => {
    expect(
      latest(
        run(engine({ vehicles: [bus('b-1')], contracts: [foreign()] }), busRun('07:30', 55, { passengers: 20 })),
        'FRET_VEHICLE_OF_ANOTHER_COMPANY',
      ),
    ).toEqual([]);
    expect(
      latest(
        run(engine({ vehicles: [bus('b-1')], contracts: [contract()] }), busRun('07:30', 120, { passengers: 20 })),
        'FRET_VEHICLE_OF_ANOTHER_COMPANY',
      ),
    ).toEqual([]);
  });
  it('Art. 24 II: an authorization valid through the day clears it; one that expired the day before does not', () => {
    const valid = run(
      engine({ vehicles: [bus('b-1')], contracts: [foreign([{ vehicleId: 'b-1', validUntil: '2026-06-09' }])] }),
      busRun('07:30', 120, { passengers: 20 }),
    );
    expect(latest(valid, 'FRET_VEHICLE_OF_ANOTHER_COMPANY')).toEqual([]);
    const lapsed = run(
      engine({ vehicles: [bus('b-1')], contracts: [foreign([{ vehicleId: 'b-1', validUntil: '2026-06-08' }])] }),
      busRun('07:30', 120, { passengers: 20 }),
    );
    expect(latest(lapsed, 'FRET_VEHICLE_OF_ANOTHER_COMPANY')).toHaveLength(1);
  });
});

/** A hailed taxi trip: free for 20 s, then hired driving `metres` east at 36 km/h. */
function taxiRun(
  pack: 'df-taxi' | 'belem-taxi',
  metres: number,
  hired: Record<string, unknown>,
  before: Record<string, unknown> = { meterState: 'free', passengers: 0 },
) {
  const start = pack === 'df-taxi' ? DF : BEL;
  const t = new Trace({
    at: at(pack === 'df-taxi' ? SAO_PAULO : BELEM, '2026-06-09', '10:00'),
    lat: start.lat,
    lon: start.lon,
    fields: { vehicleId: 't-1', ...before },
  });
  t.emit().stay(20);
  t.set(hired).drive(metres / 10, 36, 90, 1);
  return t.samples;
}

describe('DF_OPERATING_WHILE_SUSPENDED (Art. 15, Art. 18, Art. 54)', () => {
  const dfConfig: PackConfigs = { 'df-taxi': { groupUpdfPercent: { C: 50 } } };
  it.each([
    ['suspended', 'Art. 15'],
    ['withdrawn', 'Art. 54'],
    ['cancelled', 'Art. 18'],
  ] as const)('%s permit (%s): a hired trip fires, group C by default', (permitStatus, basis) => {
    const v = only(
      run(
        engine({ vehicles: [taxi('t-1', 'df-taxi', { permitStatus })] }, dfConfig),
        taxiRun('df-taxi', 500, { meterState: 'hired', passengers: 1 }),
      ),
      'DF_OPERATING_WHILE_SUSPENDED',
    );
    expect(v.variant).toBe(`permit-${permitStatus}`);
    expect(v.measured.basis).toBe(basis);
    expect(v.penalty.group).toBe('C');
  });
  it('Art. 15: a taxi with an active permit, or a suspended one driving empty with the meter free, is quiet', () => {
    const active = run(
      engine({ vehicles: [taxi('t-1', 'df-taxi')] }),
      taxiRun('df-taxi', 500, { meterState: 'hired', passengers: 1 }),
    );
    expect(latest(active, 'DF_OPERATING_WHILE_SUSPENDED')).toEqual([]);
    const empty = run(
      engine({ vehicles: [taxi('t-1', 'df-taxi', { permitStatus: 'suspended' })] }),
      taxiRun('df-taxi', 500, { meterState: 'free', passengers: 0 }),
    );
    expect(latest(empty, 'DF_OPERATING_WHILE_SUSPENDED')).toEqual([]);
  });
  it('Art. 15: a counter flickering to 1 for 10 s with the doors shut is not a ride; a passenger boarding through the door is', () => {
    const samples = taxiRun(
      'df-taxi',
      500,
      { meterState: 'off', passengers: 0, doorOpen: false },
      { meterState: 'off', passengers: 0, doorOpen: false },
    );
    const reg = { vehicles: [taxi('t-1', 'df-taxi', { permitStatus: 'suspended' })] };
    const flicker = samples.map((s, i) => (i >= 30 && i < 40 ? { ...s, passengers: 1 } : s));
    expect(latest(run(engine(reg), flicker), 'DF_OPERATING_WHILE_SUSPENDED')).toEqual([]);
    const boarded = samples.map((s, i) => (i >= 3 ? { ...s, passengers: 1, doorOpen: i < 5 } : s));
    expect(latest(run(engine(reg), boarded), 'DF_OPERATING_WHILE_SUSPENDED')).toHaveLength(1);
  });
  it('Art. 54: a driver whose matrícula is recolhida (status withdrawn) drives a hired trip on a permit in force', () => {
    const driver = (status: 'active' | 'withdrawn') => ({
      id: 'D-1',
      name: 'Motorista',
      pack: 'df-taxi' as const,
      status,
    });
    const drivers = [driver('withdrawn')];
    const v = only(
      run(
        engine({ vehicles: [taxi('t-1', 'df-taxi')], drivers }),
        taxiRun('df-taxi', 500, { meterState: 'hired', passengers: 1, tachoDriverId: 'D-1' }),
      ),
      'DF_OPERATING_WHILE_SUSPENDED',
    );
    expect(v).toMatchObject({ variant: 'matricula-withdrawn', driverId: 'D-1' });
    expect(v.measured.basis).toBe('Art. 54');
    const active = run(
      engine({ vehicles: [taxi('t-1', 'df-taxi')], drivers: [driver('active')] }),
      taxiRun('df-taxi', 500, { meterState: 'hired', passengers: 1, tachoDriverId: 'D-1' }),
    );
    expect(latest(active, 'DF_OPERATING_WHILE_SUSPENDED')).toEqual([]);
  });
  it('Art. 15: the groups setting changes the group', () => {
    const v = only(
      run(
        engine(
          { vehicles: [taxi('t-1', 'df-taxi', { status: 'suspended' })] },
          { 'df-taxi': { groups: { DF_OPERATING_WHILE_SUSPENDED: 'D' } } },
        ),
        taxiRun('df-taxi', 500, { meterState: 'hired', passengers: 1 }),
      ),
      'DF_OPERATING_WHILE_SUSPENDED',
    );
    expect(v).toMatchObject({ variant: 'vehicle-suspended' });
    expect(v.penalty.group).toBe('D');
  });
});

describe('DF_METER_BEFORE_RIDE (Art. 37 g)', () => {
  it('Art. 37 g: the meter hired for just over 1 km with nobody on board fires, group B by default', () => {
    const v = only(
      run(
        engine({ vehicles: [taxi('t-1', 'df-taxi')] }),
        taxiRun('df-taxi', 1020, { meterState: 'hired', passengers: 0 }),
      ),
      'DF_METER_BEFORE_RIDE',
    );
    expect(num(v, 'metresHiredEmpty')).toBeGreaterThanOrEqual(1000);
    expect(v.penalty.group).toBe('B');
  });
  it('Art. 37 g: just under 1 km hired and empty, a passenger on board, or no occupancy sensor stay quiet', () => {
    const reg = { vehicles: [taxi('t-1', 'df-taxi')] };
    expect(
      latest(run(engine(reg), taxiRun('df-taxi', 990, { meterState: 'hired', passengers: 0 })), 'DF_METER_BEFORE_RIDE'),
    ).toEqual([]);
    expect(
      latest(
        run(engine(reg), taxiRun('df-taxi', 3000, { meterState: 'hired', passengers: 1 })),
        'DF_METER_BEFORE_RIDE',
      ),
    ).toEqual([]);
    expect(
      latest(
        run(engine(reg), taxiRun('df-taxi', 3000, { meterState: 'hired', passengers: null }, { meterState: 'free' })),
        'DF_METER_BEFORE_RIDE',
      ),
    ).toEqual([]);
  });
});

describe('BEL_OPERATING_WHILE_SUSPENDED (Art. 3 IX, Art. 8, Art. 15, Art. 59)', () => {
  it.each([
    ['suspended', 'Art. 15'],
    ['withdrawn', 'Art. 59'],
    ['cancelled', 'Art. 8'],
  ] as const)('%s authorization (%s): a hired trip fires, group IV (70 IPCA-E) by default', (permitStatus, basis) => {
    const v = only(
      run(
        engine({ vehicles: [taxi('t-1', 'belem-taxi', { permitStatus })] }),
        taxiRun('belem-taxi', 500, { meterState: 'hired', passengers: 1 }),
      ),
      'BEL_OPERATING_WHILE_SUSPENDED',
    );
    expect(v.measured.basis).toBe(basis);
    expect(v.penalty).toMatchObject({ unit: 'IPCA-E', units: 70, group: 'IV' });
  });
  it('Art. 15: an authorization in force is quiet; suspension.group changes the group', () => {
    const ok = run(
      engine({ vehicles: [taxi('t-1', 'belem-taxi')] }),
      taxiRun('belem-taxi', 500, { meterState: 'hired', passengers: 1 }),
    );
    expect(latest(ok, 'BEL_OPERATING_WHILE_SUSPENDED')).toEqual([]);
    const v = only(
      run(
        engine(
          { vehicles: [taxi('t-1', 'belem-taxi', { permitStatus: 'suspended' })] },
          { 'belem-taxi': { suspension: { group: 'II' } } },
        ),
        taxiRun('belem-taxi', 500, { meterState: 'hired', passengers: 1 }),
      ),
      'BEL_OPERATING_WHILE_SUSPENDED',
    );
    expect(v.penalty).toMatchObject({ units: 30, group: 'II' });
  });
});

describe('BEL_UNREGISTERED_DRIVER (Art. 8 IV, Art. 23 §1, item 4.3)', () => {
  const drv = (id: string, badgeValidUntil: string | null, operatorId: string | null = null) => ({
    id,
    name: id,
    pack: 'belem-taxi' as const,
    badgeValidUntil,
    operatorId,
  });
  const hired = { meterState: 'hired', passengers: 1 };
  it('Art. 8 IV: a driver not registered for the authorization fires (item 4.3, opens cassação)', () => {
    const v = only(
      run(
        engine({ vehicles: [taxi('t-1', 'belem-taxi', { driverIds: ['D-1'] })], drivers: [drv('D-9', '2027-01-01')] }),
        taxiRun('belem-taxi', 500, { ...hired, tachoDriverId: 'D-9' }),
      ),
      'BEL_UNREGISTERED_DRIVER',
    );
    expect(v).toMatchObject({ variant: 'not-registered', confidence: 'confirmed' });
    expect(v.penalty).toMatchObject({ units: 70, group: 'IV', opensCancellation: true });
  });
  it('item 4.3: a badge that expired the day before fires; one valid through the day does not', () => {
    const reg = (badge: string) => ({
      vehicles: [taxi('t-1', 'belem-taxi', { driverIds: ['D-1'] })],
      drivers: [drv('D-1', badge)],
    });
    const v = only(
      run(engine(reg('2026-06-08')), taxiRun('belem-taxi', 500, { ...hired, tachoDriverId: 'D-1' })),
      'BEL_UNREGISTERED_DRIVER',
    );
    expect(v).toMatchObject({ variant: 'badge-expired', confidence: 'confirmed' });
    expect(v.penalty.opensCancellation).toBe(false);
    const ok = run(engine(reg('2026-06-09')), taxiRun('belem-taxi', 500, { ...hired, tachoDriverId: 'D-1' }));
    expect(latest(ok, 'BEL_UNREGISTERED_DRIVER')).toEqual([]);
  });
  it('Art. 23 §1: the autonomous holder is registered on their own authorization', () => {
    const events = run(
      engine({
        vehicles: [taxi('t-1', 'belem-taxi', { operatorId: 'op-holder', driverIds: ['D-1'] })],
        drivers: [drv('H-1', '2027-01-01', 'op-holder')],
      }),
      taxiRun('belem-taxi', 500, { ...hired, tachoDriverId: 'H-1' }),
    );
    expect(latest(events, 'BEL_UNREGISTERED_DRIVER')).toEqual([]);
  });
  it('Art. 23 §1: no driver on record is a registry gap (suspected); no badge date on record is ignored by default, suspected by setting', () => {
    const none = only(
      run(
        engine({ vehicles: [taxi('t-1', 'belem-taxi', { driverIds: [] })] }),
        taxiRun('belem-taxi', 500, { ...hired, tachoDriverId: 'D-1' }),
      ),
      'BEL_UNREGISTERED_DRIVER',
    );
    expect(none).toMatchObject({ variant: 'no-drivers-on-record', confidence: 'suspected' });
    const noBadgeRegistry = {
      vehicles: [taxi('t-1', 'belem-taxi', { driverIds: ['D-1'] })],
      drivers: [drv('D-1', null)],
    };
    const ignored = run(engine(noBadgeRegistry), taxiRun('belem-taxi', 500, { ...hired, tachoDriverId: 'D-1' }));
    expect(latest(ignored, 'BEL_UNREGISTERED_DRIVER')).toEqual([]);
    const noBadge = only(
      run(
        engine(noBadgeRegistry, { 'belem-taxi': { unregisteredDriver: { noBadgeOnRecord: 'suspected' } } }),
        taxiRun('belem-taxi', 500, { ...hired, tachoDriverId: 'D-1' }),
      ),
      'BEL_UNREGISTERED_DRIVER',
    );
    expect(noBadge).toMatchObject({ variant: 'no-badge-on-record', confidence: 'suspected' });
  });
});

describe('BEL_STAND_ABANDONED (item 1.1)', () => {
  const STAND = offset(BEL.lat, BEL.lon, 3000, 0);
  const stands = [
    {
      id: 'PL-1',
      pack: 'belem-taxi' as const,
      name: 'Ponto livre',
      geometry: square(STAND.lat, STAND.lon, 25),
      places: 3,
      kind: 'livre' as const,
    },
  ];
  /** Parks at the stand with the ignition off and reports every `every` s for `seconds`. */
  const parked = (seconds: number, every = 300, fields: Record<string, unknown> = {}) => {
    const t = new Trace({
      at: at(BELEM, '2026-06-09', '20:00'),
      lat: STAND.lat,
      lon: STAND.lon,
      fields: { vehicleId: 't-1', ignition: false, meterState: 'off', ...fields },
    });
    t.emit().stay(seconds, every);
    return t.set({ ignition: true, meterState: 'free' }).drive(60, 30, 90, 5).samples;
  };
  it('item 1.1: 2 h at a ponto livre with the ignition and meter off and no driver fires (group I, 20 IPCA-E)', () => {
    const v = only(run(engine({ vehicles: [taxi('t-1', 'belem-taxi')], stands }), parked(7200)), 'BEL_STAND_ABANDONED');
    expect(num(v, 'abandonedSeconds')).toBe(7200);
    expect(v.penalty).toMatchObject({ units: 20, group: 'I', item: 'Art. 58 item 1.1' });
    expect(v.place?.id).toBe('PL-1');
  });
  it('item 1.1: 1 h 55 min stays quiet; so does a driver card in the reader or the meter free', () => {
    const reg = { vehicles: [taxi('t-1', 'belem-taxi')], stands };
    expect(latest(run(engine(reg), parked(6900)), 'BEL_STAND_ABANDONED')).toEqual([]);
    expect(latest(run(engine(reg), parked(9000, 300, { tachoDriverId: 'D-1' })), 'BEL_STAND_ABANDONED')).toEqual([]);
    expect(latest(run(engine(reg), parked(9000, 300, { meterState: 'free' })), 'BEL_STAND_ABANDONED')).toEqual([]);
  });
  it('item 1.1: a silence longer than maxReportGapS (600 s) breaks the stay; no meter data makes it suspected', () => {
    const reg = { vehicles: [taxi('t-1', 'belem-taxi')], stands };
    expect(latest(run(engine(reg), parked(9000, 660)), 'BEL_STAND_ABANDONED')).toEqual([]);
    const blind = only(run(engine(reg), parked(7200, 300, { meterState: null })), 'BEL_STAND_ABANDONED');
    expect(blind.confidence).toBe('suspected');
  });
});

describe('BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD (Art. 36, Art. 37)', () => {
  const drive = () => taxiRun('belem-taxi', 500, { meterState: 'hired', passengers: 1 });
  it('Art. 37: a special-tariff vehicle of model year 2018 operating in 2026 (8 years) fires as registry non-compliance', () => {
    const v = only(
      run(
        engine({
          vehicles: [taxi('t-1', 'belem-taxi', { specialTariffService: true, manufactureYear: 2018, modelYear: 2018 })],
        }),
        drive(),
      ),
      'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD',
    );
    expect(num(v, 'ageYears')).toBe(8);
    expect(v.penalty.registryNonCompliance).toBe(true);
  });
  it('Art. 37: 7 years is allowed; an ordinary taxi of 8 years is not this rule', () => {
    const seven = run(
      engine({
        vehicles: [taxi('t-1', 'belem-taxi', { specialTariffService: true, manufactureYear: 2019, modelYear: 2019 })],
      }),
      drive(),
    );
    expect(latest(seven, 'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD')).toEqual([]);
    const ordinary = run(
      engine({ vehicles: [taxi('t-1', 'belem-taxi', { manufactureYear: 2018, modelYear: 2018 })] }),
      drive(),
    );
    expect(latest(ordinary, 'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD')).toEqual([]);
  });
  it('Art. 37: counted by manufacture year (setting), a 2018 vehicle with model year 2019 is 8 years old', () => {
    const reg = {
      vehicles: [taxi('t-1', 'belem-taxi', { specialTariffService: true, manufactureYear: 2018, modelYear: 2019 })],
    };
    expect(latest(run(engine(reg), drive()), 'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD')).toEqual([]);
    const byManufacture = run(
      engine(reg, { 'belem-taxi': { specialTariff: { ageCounting: 'manufacture-year' } } }),
      drive(),
    );
    expect(latest(byManufacture, 'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD')).toHaveLength(1);
  });
});
