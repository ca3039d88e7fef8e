import { describe, expect, it } from 'vitest';
import {
  BANDEIRA_2_SURCHARGE,
  bandeira2AllowedByTime,
  driverTariff,
  perKmCents,
  TARIFF_TABLES,
  Taximeter,
  transitionSpeedMs,
} from '../src/tariff.js';

/** Local wall time in Brasília/São Paulo and Belém: both UTC−03:00 all year. */
const local = (isoLocal: string) => Date.parse(`${isoLocal}-03:00`);

describe('Bandeira II by local time', () => {
  it.each([
    // Tuesday 2026-03-10
    ['2026-03-10T19:59', 1],
    ['2026-03-10T20:00', 2],
    ['2026-03-10T05:59', 2],
    ['2026-03-10T06:00', 1],
    ['2026-03-10T14:30', 1],
    // Monday before 06:00 is still Sunday night
    ['2026-03-09T05:59', 2],
    // Saturday 2026-03-14: morning is Bandeira I, from noon Bandeira II; before 06:00 it is Friday night
    ['2026-03-14T11:59', 1],
    ['2026-03-14T12:00', 2],
    ['2026-03-14T05:59', 2],
    ['2026-03-14T06:00', 1],
    // Sunday 2026-03-15, all day
    ['2026-03-15T10:00', 2],
  ] as const)('df-taxi at %s local → tariff %i', (at, tariff) => {
    expect(driverTariff('df-taxi', local(at))).toBe(tariff);
    // Without December, Belém keeps the same hours.
    expect(driverTariff('belem-taxi', local(at))).toBe(tariff);
  });

  it('allows Bandeira II any time in December in Belém, not in Brasília', () => {
    const tuesdayAfternoon = local('2026-12-08T15:00');
    expect(bandeira2AllowedByTime('belem-taxi', tuesdayAfternoon)).toBe(true);
    expect(bandeira2AllowedByTime('df-taxi', tuesdayAfternoon)).toBe(false);
    expect(driverTariff('belem-taxi', local('2026-11-30T23:59'))).toBe(2);
    expect(driverTariff('belem-taxi', local('2026-11-30T12:00'))).toBe(1);
    expect(driverTariff('belem-taxi', local('2026-12-01T00:00'))).toBe(2);
    expect(driverTariff('belem-taxi', local('2026-12-01T12:00'))).toBe(2);
    expect(driverTariff('belem-taxi', local('2027-01-04T12:00'))).toBe(1);
  });

  it('follows local time, not the host time zone: 19:59 in Brasília is 22:59 UTC', () => {
    expect(driverTariff('df-taxi', Date.parse('2026-03-10T22:59:00Z'))).toBe(1);
    expect(driverTariff('df-taxi', Date.parse('2026-03-10T23:00:00Z'))).toBe(2);
  });
});

describe('Taximeter', () => {
  const table = TARIFF_TABLES['df-taxi'];

  it('starts a trip at the bandeirada and charges distance at the bandeira rate', () => {
    const m = new Taximeter(table);
    m.switchOn();
    m.hire('t-1', 1);
    expect(m.fareCents).toBe(table.flagDropCents);
    // 1 km at 15 m/s, in 1-second steps.
    for (let i = 0; i < 1000 / 15; i++) m.charge(15, 1, 15);
    const b1 = m.fareCents - table.flagDropCents;
    expect(b1).toBeGreaterThanOrEqual(table.perKmBandeira1Cents - 1);
    expect(b1).toBeLessThanOrEqual(table.perKmBandeira1Cents + 5);

    const m2 = new Taximeter(table);
    m2.hire('t-2', 2);
    for (let i = 0; i < 1000 / 15; i++) m2.charge(15, 1, 15);
    const b2 = m2.fareCents - table.flagDropCents;
    expect(b2 / b1).toBeCloseTo(1 + BANDEIRA_2_SURCHARGE, 1);
  });

  it('charges waiting time below the transition speed and nothing while paused', () => {
    const m = new Taximeter(table);
    m.hire('t-3', 1);
    const crawl = transitionSpeedMs(table, 1) / 2;
    for (let i = 0; i < 600; i++) m.charge(crawl, 1, crawl);
    const tenMinutes = m.fareCents - table.flagDropCents;
    expect(tenMinutes).toBeGreaterThanOrEqual(Math.floor(table.waitingPerHourCents / 6) - 1);
    expect(tenMinutes).toBeLessThanOrEqual(Math.ceil(table.waitingPerHourCents / 6) + 1);

    m.pause();
    expect(m.state).toBe('stopped');
    const frozen = m.fareCents;
    for (let i = 0; i < 60; i++) m.charge(10, 1, 10);
    expect(m.fareCents).toBe(frozen);
    m.resume();
    m.charge(100, 1, 20);
    expect(m.fareCents).toBeGreaterThan(frozen);
  });

  it('clears the fare and trip when released, and charges nothing when free', () => {
    const m = new Taximeter(table);
    m.hire('t-4', 2);
    m.charge(5000, 300, 16);
    m.release();
    expect(m.state).toBe('free');
    expect(m.fareCents).toBe(0);
    expect(m.tripId).toBeUndefined();
    m.charge(5000, 300, 16);
    expect(m.fareCents).toBe(0);
  });

  it('has a transition speed where distance and time earn the same', () => {
    for (const t of [TARIFF_TABLES['df-taxi'], TARIFF_TABLES['belem-taxi']]) {
      for (const tariff of [1, 2] as const) {
        const v = transitionSpeedMs(t, tariff);
        const perHourByDistance = v * 3.6 * perKmCents(t, tariff);
        expect(perHourByDistance).toBeCloseTo(t.waitingPerHourCents, 6);
      }
    }
  });
});
