import { RegistryBuilder } from './registry.js';
import { site } from './sites.js';
import { driving, taxiTrip } from './taxi.js';
import { describeLocal, localInstantMs, pastOrdinaryDate } from './time.js';
import { Trace } from './trace.js';
import { hiddenBoardingTrip } from './trip-start.js';
import type { BuildContext, Scenario, ScenarioPlan } from './types.js';

/**
 * Distrito Federal taxi rules of RULES.md "Catalogue v2" (Art. 15, 18, 54; Art. 37 g). Sites
 * from 100 on, clear of the first catalogue's scenarios. Local time: America/Sao_Paulo.
 */

const pack = 'df-taxi' as const;
const tuesday = (ctx: BuildContext) => pastOrdinaryDate(ctx.nowMs, 2, 7);

/**
 * A dispatched taxi: meter free, then hired `hiredEmptyM` metres before anyone is on board
 * (driving to the pickup), a passenger boards, and it drives 1 km more with them.
 */
function meterToPickup(ctx: BuildContext, siteIndex: number, hiredEmptyM: number): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const { vehicleId, deviceId } = reg.vehicle('taxi', pack);
  const start = localInstantMs(tuesday(ctx), '10:00:00');
  const tripId = `pickup-${ctx.runId}`;
  const t = new Trace(deviceId, start, site(pack, siteIndex), { passengers: 0, meter: { state: 'free', tariff: 1 } });
  t.emit().stay(15);
  t.wait(5)
    .set({ meter: { state: 'hired', tariff: 1, fareCents: 500, tripId } })
    .emit();
  t.driveMetres(hiredEmptyM, 36, 90);
  t.set({ passengers: 1 }).stay(20).driveMetres(1000, 36, 90);
  t.set({ passengers: 0, meter: { state: 'free', tariff: 1 } }).stay(30);
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(start) };
}

export const catalogueV2DfScenarios: Scenario[] = [
  {
    name: 'df-operating-while-suspended',
    ruleId: 'DF_OPERATING_WHILE_SUSPENDED',
    pack,
    article: 'Art. 15',
    expect: 'fires',
    summary: 'A hired trip while the permit is interrupted (permitStatus suspended, Art. 15)',
    confidence: 'confirmed',
    measured: { permitStatus: 'suspended', basis: 'Art. 15' },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 100,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        vehicle: { permitStatus: 'suspended' },
      }),
  },
  {
    name: 'df-operating-while-suspended-near-miss',
    ruleId: 'DF_OPERATING_WHILE_SUSPENDED',
    pack,
    article: 'Art. 15',
    expect: 'quiet',
    summary: 'The same suspended taxi driven empty with the meter off (to the garage): not in service',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 101,
        date: tuesday,
        time: '10:00:00',
        vehicle: { permitStatus: 'suspended' },
        fields: { passengers: 0, meter: { state: 'off' } },
        segments: [[120, 36]],
      }),
  },
  {
    name: 'df-meter-before-ride',
    ruleId: 'DF_METER_BEFORE_RIDE',
    pack,
    article: 'Art. 37 g',
    expect: 'fires',
    summary: 'The meter hired for 1.5 km to the pickup with nobody on board',
    confidence: 'confirmed',
    measured: { passengers: 0, minMetres: 1000 },
    build: (ctx) => meterToPickup(ctx, 102, 1500),
  },
  {
    name: 'df-meter-before-ride-near-miss',
    ruleId: 'DF_METER_BEFORE_RIDE',
    pack,
    article: 'Art. 37 g',
    expect: 'quiet',
    summary: 'The meter hired 800 m before the passenger boards (under the 1 km threshold)',
    build: (ctx) => meterToPickup(ctx, 103, 800),
  },
  {
    name: 'df-meter-before-ride-hidden-boarding-near-miss',
    ruleId: 'DF_METER_BEFORE_RIDE',
    pack,
    article: 'Art. 37 g',
    expect: 'quiet',
    summary:
      'A 20 s dropout hid the boarding (door opening and count rise): hired 3 km with the counter reading 2, door closed — unknown, not nobody',
    build: (ctx) =>
      hiddenBoardingTrip(ctx, {
        pack,
        site: 93,
        date: tuesday,
        time: '10:00:00',
        silenceS: 20,
        count: 2,
        stretchesM: [3000],
      }),
  },
  {
    name: 'df-meter-before-ride-after-dropout',
    ruleId: 'DF_METER_BEFORE_RIDE',
    pack,
    article: 'Art. 37 g',
    expect: 'fires',
    summary: 'After the same 20 s dropout the counter reads 0: hired 3 km with nobody on board',
    confidence: 'confirmed',
    measured: { passengers: 0, minMetres: 1000 },
    build: (ctx) =>
      hiddenBoardingTrip(ctx, {
        pack,
        site: 94,
        date: tuesday,
        time: '10:00:00',
        silenceS: 20,
        count: 0,
        stretchesM: [3000],
      }),
  },
  {
    name: 'df-meter-before-ride-interval-15s',
    ruleId: 'DF_METER_BEFORE_RIDE',
    pack,
    article: 'Art. 37 g',
    expect: 'fires',
    summary: 'Hired and empty 900 m, 15 s without samples (the limit), 900 m more: one stretch of 1.8 km',
    confidence: 'confirmed',
    measured: { passengers: 0 },
    build: (ctx) =>
      hiddenBoardingTrip(ctx, {
        pack,
        site: 95,
        date: tuesday,
        time: '10:00:00',
        silenceS: 5,
        count: 0,
        stretchesM: [900, 900],
        pauseS: 15,
      }),
  },
  {
    name: 'df-meter-before-ride-interval-16s-near-miss',
    ruleId: 'DF_METER_BEFORE_RIDE',
    pack,
    article: 'Art. 37 g',
    expect: 'quiet',
    summary: 'The same with 16 s without samples: a boarding may hide there, two stretches of 900 m, each under 1 km',
    build: (ctx) =>
      hiddenBoardingTrip(ctx, {
        pack,
        site: 96,
        date: tuesday,
        time: '10:00:00',
        silenceS: 5,
        count: 0,
        stretchesM: [900, 900],
        pauseS: 16,
      }),
  },
];
