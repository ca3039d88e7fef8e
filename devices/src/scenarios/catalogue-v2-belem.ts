import { RegistryBuilder } from './registry.js';
import { site, square } from './sites.js';
import { driving, taxiTrip } from './taxi.js';
import { addDays, describeLocal, localDateOf, localInstantMs, pastOrdinaryDate } from './time.js';
import { Trace } from './trace.js';
import type { BuildContext, Scenario, ScenarioPlan } from './types.js';

/**
 * Belém taxi rules of RULES.md "Catalogue v2" (Art. 3 IX, 8, 15, 59; Art. 23 §1 and item 4.3;
 * item 1.1; Art. 36–37). Sites from 100 on, clear of the first catalogue's scenarios. Local
 * time: America/Belem.
 */

const pack = 'belem-taxi' as const;
const tuesday = (ctx: BuildContext) => pastOrdinaryDate(ctx.nowMs, 2, 7);
const year = (ctx: BuildContext) => Number(localDateOf(ctx.nowMs).slice(0, 4));

/** A registered driver of the scenario with the union badge valid until `badgeValidUntil`. */
function driver(reg: RegistryBuilder, key: string, badgeValidUntil: string): string {
  return reg.add('drivers', { id: reg.id(key), name: `Scenario taxista ${key}`, pack, badgeValidUntil });
}

/**
 * A taxi parks at a ponto livre at 20:00, ignition and meter off and no driver card, its tracker
 * reporting every 5 minutes, for `parkedS` seconds; then the driver comes back and drives off.
 */
function parkedAtStand(ctx: BuildContext, siteIndex: number, parkedS: number): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const center = site(pack, siteIndex);
  reg.add('stands', {
    id: reg.id('stand'),
    pack,
    name: `Scenario ponto livre ${ctx.runId}`,
    geometry: square(center, 25),
    places: 4,
    kind: 'livre',
  });
  const { vehicleId, deviceId } = reg.vehicle('taxi', pack);
  const start = localInstantMs(tuesday(ctx), '20:00:00');
  const t = new Trace(deviceId, start, center, { ignition: false, passengers: 0, meter: { state: 'off' } }, 300);
  t.emit().stay(parkedS);
  const back = new Trace(deviceId, t.atMs + 60_000, center, { passengers: 0, meter: { state: 'free', tariff: 1 } });
  back.emit().drive(60, 30, 90);
  return {
    registry: reg.steps,
    samples: [...t.samples, ...back.samples],
    dispatches: [],
    vehicleId,
    when: describeLocal(start),
  };
}

export const catalogueV2BelemScenarios: Scenario[] = [
  {
    name: 'bel-operating-while-suspended',
    ruleId: 'BEL_OPERATING_WHILE_SUSPENDED',
    pack,
    article: 'Art. 59',
    expect: 'fires',
    summary: 'A hired trip while the vehicle stands apprehended in the registry (permitStatus withdrawn, Art. 59)',
    confidence: 'confirmed',
    measured: { permitStatus: 'withdrawn', basis: 'Art. 59' },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 100,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        vehicle: { permitStatus: 'withdrawn' },
      }),
  },
  {
    name: 'bel-operating-while-suspended-near-miss',
    ruleId: 'BEL_OPERATING_WHILE_SUSPENDED',
    pack,
    article: 'Art. 15',
    expect: 'quiet',
    summary: 'A taxi whose authorization is recolhida (Art. 15) driven empty with the meter off: not in service',
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
    name: 'bel-unregistered-driver',
    ruleId: 'BEL_UNREGISTERED_DRIVER',
    pack,
    article: 'item 4.3',
    expect: 'fires',
    summary: 'A hired trip driven by a driver id not registered on the authorization',
    confidence: 'confirmed',
    measured: { driverKnownToRegistry: false },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 102,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        driverId: `TAXISTA-ESTRANHO-${ctx.runId}`,
        extra: (reg) => ({ driverIds: [driver(reg, 'holder', addDays(localDateOf(ctx.nowMs), 365))] }),
      }),
  },
  {
    name: 'bel-unregistered-driver-badge-expired',
    ruleId: 'BEL_UNREGISTERED_DRIVER',
    pack,
    article: 'item 4.3',
    expect: 'fires',
    summary: 'A registered driver whose crachá expired the day before the trip',
    confidence: 'confirmed',
    measured: { driverKnownToRegistry: true },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 103,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        driverId: `scn-${ctx.runId}-aux`,
        extra: (reg) => ({ driverIds: [driver(reg, 'aux', addDays(tuesday(ctx), -1))] }),
      }),
  },
  {
    name: 'bel-unregistered-driver-near-miss',
    ruleId: 'BEL_UNREGISTERED_DRIVER',
    pack,
    article: 'item 4.3',
    expect: 'quiet',
    summary: 'The registered auxiliary driver on the last day of the crachá (valid until that date, inclusive)',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 104,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        driverId: `scn-${ctx.runId}-aux`,
        extra: (reg) => ({ driverIds: [driver(reg, 'aux', tuesday(ctx))] }),
      }),
  },
  {
    name: 'bel-stand-abandoned',
    ruleId: 'BEL_STAND_ABANDONED',
    pack,
    article: 'item 1.1',
    expect: 'fires',
    summary: 'A taxi left at a ponto livre 2 h 10 min with the ignition and meter off and no driver card',
    confidence: 'confirmed',
    measured: { standKind: 'livre', minSeconds: 7200 },
    build: (ctx) => parkedAtStand(ctx, 105, 7800),
  },
  {
    name: 'bel-stand-abandoned-near-miss',
    ruleId: 'BEL_STAND_ABANDONED',
    pack,
    article: 'item 1.1',
    expect: 'quiet',
    summary: 'The same taxi back after 1 h 50 min (under the 2 h threshold)',
    build: (ctx) => parkedAtStand(ctx, 106, 6600),
  },
  {
    name: 'bel-special-tariff-vehicle-too-old',
    ruleId: 'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 37',
    expect: 'fires',
    summary: 'A special-tariff cooperative car of model year 8 years back in operation (limit 7)',
    confidence: 'confirmed',
    measured: { ageYears: 8, maxAgeYears: 7 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 107,
        date: tuesday,
        time: '10:00:00',
        vehicle: { specialTariffService: true, manufactureYear: year(ctx) - 8, modelYear: year(ctx) - 8 },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'bel-special-tariff-vehicle-too-old-near-miss',
    ruleId: 'BEL_SPECIAL_TARIFF_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary: 'A special-tariff cooperative car of model year 7 years back (at the limit)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 108,
        date: tuesday,
        time: '10:00:00',
        vehicle: { specialTariffService: true, manufactureYear: year(ctx) - 7, modelYear: year(ctx) - 7 },
        segments: [[60, 30]],
      }),
  },
];
