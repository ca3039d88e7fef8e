import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { fine } from '../src/packs/common/penalty-helpers.js';
import { pricePenalty } from '../src/penalties/price.js';
import type { AssessedViolation, PriorViolation } from '../src/penalties/recidivism.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import { at, BELEM, SAO_PAULO } from './helpers/trace.js';

const engine = createRuleEngine({ registry: createInMemoryRegistry({}) });
const DAY = 86_400_000;

function current(over: Partial<AssessedViolation> = {}): AssessedViolation {
  return {
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack: 'sp-fretamento',
    startedAt: at(SAO_PAULO, '2026-06-10', '10:00:00'),
    vehicleId: 'bus-1',
    operatorId: 'op-sp',
    permitNumber: 'R-1',
    penalty: { group: null, amountBrl: 1000 },
    ...over,
  };
}

function prior(daysBefore: number, over: Partial<PriorViolation> = {}, ref = current()): PriorViolation {
  return {
    key: `k-${daysBefore}-${over.ruleId ?? ref.ruleId}-${over.group ?? ''}`,
    ruleId: ref.ruleId,
    pack: ref.pack,
    group: null,
    occurredAt: new Date(ref.startedAt.getTime() - daysBefore * DAY),
    vehicleId: 'bus-9',
    operatorId: ref.operatorId,
    permitNumber: ref.permitNumber,
    status: 'confirmed',
    ...over,
  };
}

describe('SP Art. 27 — same infraction by the same company within one year doubles the fine', () => {
  it('doubles for a prior 364 days earlier, not 366', () => {
    const within = engine.assessRecidivism(current(), [prior(364)]);
    expect(within).toMatchObject({
      count: 1,
      multiplier: 2,
      amountBrl: 2000,
      escalation: { kind: 'double-fine', basis: 'Art. 27' },
    });
    const outside = engine.assessRecidivism(current(), [prior(366)]);
    expect(outside).toMatchObject({ count: 0, multiplier: 1, amountBrl: 1000, escalation: null });
    expect(within.windowDays).toBe(365);
  });

  it('counts only the same rule, the same company, and violations a reviewer upheld', () => {
    const priors = [
      prior(10, { ruleId: 'FRET_OVER_CAPACITY' }),
      prior(10, { operatorId: 'op-other' }),
      prior(10, { status: 'dismissed' }),
      prior(10, { status: 'open' }),
    ];
    expect(engine.assessRecidivism(current(), priors).count).toBe(0);
    expect(engine.assessRecidivism(current(), [prior(10, { status: 'notified' })]).count).toBe(1);
  });
});

describe('DF Art. 53 — cancellation thresholds within 2 years; Art. 56 — clearing', () => {
  const df = (group: string, over: Partial<AssessedViolation> = {}) =>
    current({
      ruleId: 'DF_OVER_CAPACITY',
      pack: 'df-taxi',
      permitNumber: 'P-7',
      penalty: { group, amountBrl: 20 },
      ...over,
    });
  const dfPrior = (days: number, group: string, ruleId: PriorViolation['ruleId'] = 'DF_RIDE_WITHOUT_METER') =>
    prior(days, { ruleId, pack: 'df-taxi', group, permitNumber: 'P-7', operatorId: null }, df(group));

  it('the 4th group-B infraction within 2 years cancels the permit (§2); the 3rd does not', () => {
    const third = engine.assessRecidivism(df('B'), [dfPrior(100, 'B'), dfPrior(400, 'B')]);
    expect(third.escalation).toBeNull();
    expect(third.byGroup).toEqual({ B: 3 });
    const fourth = engine.assessRecidivism(df('B'), [dfPrior(100, 'B'), dfPrior(400, 'B'), dfPrior(700, 'B')]);
    expect(fourth.escalation).toMatchObject({ kind: 'cancellation', basis: 'Art. 53 §2' });
    expect(fourth.count).toBe(3);
  });

  it('a prior just outside 2 years does not count', () => {
    const r = engine.assessRecidivism(df('B'), [dfPrior(100, 'B'), dfPrior(400, 'B'), dfPrior(731, 'B')]);
    expect(r.count).toBe(2);
    expect(r.escalation).toBeNull();
  });

  it('3 in group C (§3), 1 in group D (§4), 4 across groups (§5), 6 in group A (§1)', () => {
    expect(engine.assessRecidivism(df('C'), [dfPrior(10, 'C'), dfPrior(20, 'C')]).escalation?.basis).toBe('Art. 53 §3');
    expect(engine.assessRecidivism(df('D'), []).escalation?.basis).toBe('Art. 53 §4');
    expect(
      engine.assessRecidivism(df('C'), [dfPrior(10, 'A'), dfPrior(20, 'A'), dfPrior(30, 'B')]).escalation?.basis,
    ).toBe('Art. 53 §5');
    expect(
      engine.assessRecidivism(
        df('A'),
        [1, 2, 3, 4].map((d) => dfPrior(d, 'A')),
      ).escalation,
    ).toBeNull();
    expect(
      engine.assessRecidivism(
        df('A'),
        [1, 2, 3, 4, 5].map((d) => dfPrior(d, 'A')),
      ).escalation?.basis,
    ).toBe('Art. 53 §1');
  });

  it('counts per permit: another permit’s infractions do not count', () => {
    const other = { ...dfPrior(10, 'B'), permitNumber: 'P-8' };
    expect(engine.assessRecidivism(df('B'), [other, other, other]).count).toBe(0);
  });

  it('Art. 56: a prior followed by 2 clear years is cleared (reported)', () => {
    const r = createRuleEngine({
      registry: createInMemoryRegistry({}),
      packs: { 'df-taxi': { recidivism: { windowYears: 5 } } },
    }).assessRecidivism(df('B'), [dfPrior(1500, 'B'), dfPrior(100, 'B')]);
    expect(r.clearedBefore).not.toBeNull();
    expect(r.count).toBe(1);
  });
});

describe('SP Art. 27 — "a mesma infração" is the same article and item, not the same rule id', () => {
  const sp = (ruleId: PriorViolation['ruleId'], item: string) =>
    current({ ruleId, penalty: { group: null, amountBrl: 1000, item } });
  const spPrior = (ruleId: PriorViolation['ruleId'], item: string) => prior(30, { ruleId, item });

  it('Art. 26 VI and Art. 26 VII are different infractions even when one rule id reports both', () => {
    const withdrawn = sp('FRET_UNREGISTERED_VEHICLE', 'Art. 26 VI');
    expect(engine.assessRecidivism(withdrawn, [spPrior('FRET_UNREGISTERED_VEHICLE', 'Art. 26 VII')]).multiplier).toBe(
      1,
    );
    expect(engine.assessRecidivism(withdrawn, [spPrior('FRET_UNREGISTERED_VEHICLE', 'Art. 26 VI')]).multiplier).toBe(2);
  });

  it('Art. 26 VII is one infraction whichever rule reports it (unregistered vehicle, inspection sticker expired)', () => {
    const r = engine.assessRecidivism(sp('FRET_INSPECTION_EXPIRED', 'Art. 26 VII'), [
      spPrior('FRET_UNREGISTERED_VEHICLE', 'Art. 26 VII'),
    ]);
    expect(r).toMatchObject({ count: 1, multiplier: 2, amountBrl: 2000 });
  });

  it('Art. 23 V (any other provision infringed): the same item is the same infraction only for the same provision', () => {
    const boarding = sp('FRET_BOARDING_AT_REGULAR_STOP', 'Art. 23 V');
    expect(engine.assessRecidivism(boarding, [spPrior('FRET_ROUTE_DEVIATION', 'Art. 23 V')]).multiplier).toBe(1);
    expect(engine.assessRecidivism(boarding, [spPrior('FRET_BOARDING_AT_REGULAR_STOP', 'Art. 23 V')]).multiplier).toBe(
      2,
    );
    // recidivism.catchAllItems []: the item alone decides.
    const literal = createRuleEngine({
      registry: createInMemoryRegistry({}),
      packs: { 'sp-fretamento': { recidivism: { catchAllItems: [] } } },
    });
    expect(literal.assessRecidivism(boarding, [spPrior('FRET_ROUTE_DEVIATION', 'Art. 23 V')]).multiplier).toBe(2);
  });
});

describe('DF Art. 53 — counted apart for the permit and for each driver’s matrícula (Art. 55: joint, not twice)', () => {
  const df = (group: string, matricula: string | null) =>
    current({
      ruleId: 'DF_OVER_CAPACITY',
      pack: 'df-taxi',
      permitNumber: 'P-7',
      penalty: { group, amountBrl: 20 },
      matricula,
    });
  const dfPrior = (days: number, group: string, matricula: string | null) =>
    prior(
      days,
      { ruleId: 'DF_RIDE_WITHOUT_METER', pack: 'df-taxi', group, permitNumber: 'P-7', operatorId: null, matricula },
      df(group, null),
    );

  it('Art. 53 §3: two group-C infractions of the auxiliary driver and one of the holder cancel nothing', () => {
    const holderThird = engine.assessRecidivism(df('C', null), [dfPrior(10, 'C', 'D-AUX'), dfPrior(20, 'C', 'D-AUX')]);
    expect(holderThird).toMatchObject({ count: 0, escalation: null });
    const driverThird = engine.assessRecidivism(df('C', 'D-AUX'), [dfPrior(10, 'C', 'D-AUX'), dfPrior(20, 'C', null)]);
    expect(driverThird).toMatchObject({ count: 1, escalation: null });
  });

  it('Art. 53 §3: the third group-C infraction of one driver cancels that driver’s matrícula, not the permit', () => {
    const r = engine.assessRecidivism(df('C', 'D-AUX'), [dfPrior(10, 'C', 'D-AUX'), dfPrior(20, 'C', 'D-AUX')]);
    expect(r.escalation).toMatchObject({ kind: 'cancellation', basis: 'Art. 53 §3' });
    expect(r.escalation?.detail).toContain('matrícula of driver D-AUX');
    const permit = engine.assessRecidivism(df('C', null), [dfPrior(10, 'C', null), dfPrior(20, 'C', null)]);
    expect(permit.escalation?.detail).toContain('cancellation of the permit');
  });
});

describe('Belém — group counts, no escalation in the law', () => {
  it('reports counts per group within the window', () => {
    const v = current({
      ruleId: 'BEL_BANDEIRA2_MISUSE',
      pack: 'belem-taxi',
      startedAt: at(BELEM, '2026-06-10', '10:00:00'),
      permitNumber: 'A-1',
      penalty: { group: 'III', amountBrl: 180 },
    });
    const p = (days: number, group: string, ruleId: PriorViolation['ruleId']) =>
      prior(days, { ruleId, pack: 'belem-taxi', group, permitNumber: 'A-1' }, v);
    const r = engine.assessRecidivism(v, [
      p(30, 'III', 'BEL_BANDEIRA2_MISUSE'),
      p(60, 'II', 'BEL_OVER_CAPACITY'),
      p(400, 'III', 'BEL_BANDEIRA2_MISUSE'),
    ]);
    expect(r.byGroup).toEqual({ III: 2, II: 1 });
    expect(r.count).toBe(1);
    expect(r.escalation).toBeNull();
  });
});

describe('BRL amounts at the unit value in force on the event date', () => {
  const registry = createInMemoryRegistry({
    unitValues: [
      { unit: 'IPCA-E', pack: 'belem-taxi', validFrom: '2026-01-01', valueBrl: 4.5 },
      { unit: 'IPCA-E', pack: 'belem-taxi', validFrom: '2026-07-01', valueBrl: 4.75 },
      { unit: 'ORTN', validFrom: '2020-01-01', valueBrl: 100 },
    ],
  });
  const spec = fine('IPCA-E', 40, 'Art. 58 item 3.4', { group: 'III' });
  it('uses the old value on 30 June and the new one on 1 July', () => {
    expect(pricePenalty(spec, 1, registry, 'belem-taxi', '2026-06-30')).toMatchObject({
      amountBrl: 180,
      unitValueBrl: 4.5,
      unitValueFrom: '2026-01-01',
    });
    expect(pricePenalty(spec, 1, registry, 'belem-taxi', '2026-07-01')).toMatchObject({
      amountBrl: 190,
      unitValueBrl: 4.75,
      unitValueFrom: '2026-07-01',
    });
  });
  it('leaves the amount blank before any value is in force, or for another pack’s value', () => {
    expect(pricePenalty(spec, 1, registry, 'belem-taxi', '2025-12-31').amountBrl).toBeNull();
    expect(pricePenalty(spec, 1, registry, 'df-taxi', '2026-07-01').amountBrl).toBeNull();
    expect(pricePenalty(fine('ORTN', 10, 'Art. 29 I'), 3, registry, 'sp-fretamento', '2026-07-01')).toMatchObject({
      units: 30,
      amountBrl: 3000,
    });
  });
});
