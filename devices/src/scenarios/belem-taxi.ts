import { horaParadaTrip } from './hora-parada.js';
import { RegistryBuilder } from './registry.js';
import { site } from './sites.js';
import { faultyStandScene } from './stand-faults.js';
import { driving, speedLimitZone, standScene, taxiTrip } from './taxi.js';
import { addDays, describeLocal, localDateOf, localInstantMs, pastOrdinaryDate } from './time.js';
import { Trace } from './trace.js';
import { hiddenStartTrip } from './trip-start.js';
import type { BuildContext, Scenario, ScenarioPlan } from './types.js';

/** Belém municipal taxi law. Local time: America/Belem. */

const tuesday = (ctx: BuildContext) => pastOrdinaryDate(ctx.nowMs, 2, 7);
const year = (ctx: BuildContext) => Number(localDateOf(ctx.nowMs).slice(0, 4));
/** The latest 15 December already past (a Monday in 2025). */
const fifteenthOfDecember = (ctx: BuildContext) => {
  const y = year(ctx);
  const thisYear = `${y}-12-15`;
  return localInstantMs(thisYear, '16:00') < ctx.nowMs ? thisYear : `${y - 1}-12-15`;
};
const pack = 'belem-taxi' as const;

/** The latest 31 December at least 3 days past. */
const newYearsEve = (ctx: BuildContext) => {
  const y = year(ctx) - 1;
  return localInstantMs(`${y + 1}-01-03`, '00:00') < ctx.nowMs ? `${y}-12-31` : `${y - 1}-12-31`;
};
/**
 * Art. 28 II: a taxi that passed 10 years on the 31 December a year before `newYearsEve` (model
 * year − 11), so its 6 + 6 months end on `newYearsEve`; the registry holds an extension 180 days
 * beyond. Drives for a minute on `date`.
 */
const extendedTaxi = (ctx: BuildContext, siteIndex: number, date: string): ScenarioPlan => {
  const y = Number(newYearsEve(ctx).slice(0, 4));
  return driving(ctx, {
    pack,
    site: siteIndex,
    date: () => date,
    time: '09:00:00',
    vehicle: {
      manufactureYear: y - 12,
      modelYear: y - 11,
      ageExtensionValidUntil: addDays(newYearsEve(ctx), 180),
    },
    segments: [[60, 30]],
  });
};

/** A radio dispatch of the scenario's taxi through a radio operator, then the taxi's trip. */
function radioDispatch(
  ctx: BuildContext,
  siteIndex: number,
  credentialDaysLeft: number,
  declared: boolean,
): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const date = tuesday(ctx);
  const radioId = reg.operator('radio', pack, {
    kind: 'radio-operator',
    credentialValidUntil: addDays(date, credentialDaysLeft),
    declaredVehicleIds: declared ? [reg.id('taxi')] : [],
  });
  const { vehicleId, deviceId } = reg.vehicle('taxi', pack);
  const start = localInstantMs(date, '10:00:00');
  const pos = site(pack, siteIndex);
  const t = new Trace(deviceId, start, pos, { passengers: 0, meter: { state: 'free', tariff: 1 } });
  t.emit().drive(60, 30, 90);
  return {
    registry: reg.steps,
    samples: t.samples,
    dispatches: [
      {
        id: `dsp-${ctx.runId}`,
        ts: new Date(start + 30_000).toISOString(),
        radioOperatorId: radioId,
        vehicleId,
        lat: pos.lat,
        lon: pos.lon,
        tripId: `radio-${ctx.runId}`,
      },
    ],
    vehicleId,
    when: describeLocal(start),
  };
}

export const belemScenarios: Scenario[] = [
  {
    name: 'bel-bandeira2-tuesday-afternoon',
    ruleId: 'BEL_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 35',
    expect: 'fires',
    summary: 'Hired on tariff 2 for 2 min on a Tuesday at 15:00 (not December, not a holiday)',
    confidence: 'confirmed',
    measured: { tariff2Seconds: 140, tariff2Metres: 1200 },
    build: (ctx) =>
      taxiTrip(ctx, { pack, site: 0, date: tuesday, time: '15:00:00', tariff: 2, passengers: 2, legs: [[1200, 90]] }),
  },
  {
    name: 'bel-bandeira2-december-near-miss',
    ruleId: 'BEL_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 35',
    expect: 'quiet',
    summary: 'The same trip on 15 December at 15:00: Bandeira 2 is allowed all December (Art. 35 I d)',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 1,
        date: fifteenthOfDecember,
        time: '15:00:00',
        tariff: 2,
        passengers: 2,
        legs: [[1200, 90]],
      }),
  },
  {
    name: 'bel-over-capacity',
    ruleId: 'BEL_OVER_CAPACITY',
    pack,
    article: 'Art. 3',
    expect: 'fires',
    summary: '6 passengers in a taxi registered for 5, for 40 s of driving (the law caps it at 5)',
    confidence: 'confirmed',
    measured: { passengersMax: 6, permittedPassengers: 5 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 2,
        date: tuesday,
        time: '10:00:00',
        vehicle: { capacity: 5 },
        fields: { passengers: 6, meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: `cap-${ctx.runId}` } },
        segments: [
          [40, 30],
          [20, 30],
        ],
        segmentFields: [undefined, { passengers: 3 }],
      }),
  },
  {
    name: 'bel-over-capacity-near-miss',
    ruleId: 'BEL_OVER_CAPACITY',
    pack,
    article: 'Art. 3',
    expect: 'quiet',
    summary: '5 passengers in a taxi registered for 5, for 60 s of driving',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 3,
        date: tuesday,
        time: '10:00:00',
        vehicle: { capacity: 5 },
        fields: { passengers: 5, meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: `cap-${ctx.runId}` } },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'bel-over-capacity-counter-flicker-near-miss',
    ruleId: 'BEL_OVER_CAPACITY',
    pack,
    article: 'Art. 3',
    expect: 'quiet',
    summary:
      '5 passengers in a taxi registered for 5, the counter reading 6 for 60 s of driving with the doors closed (sensor noise)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 60,
        date: tuesday,
        time: '10:00:00',
        vehicle: { capacity: 5 },
        fields: {
          passengers: 5,
          doorOpen: false,
          meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: `cap-${ctx.runId}` },
        },
        segments: [
          [20, 30],
          [60, 30],
          [20, 30],
        ],
        segmentFields: [undefined, { passengers: 6 }, { passengers: 5 }],
      }),
  },
  {
    name: 'bel-stand-unauthorized',
    ruleId: 'BEL_STAND_UNAUTHORIZED',
    pack,
    article: 'Art. 3',
    expect: 'fires',
    summary: 'A taxi waits free for 3 min at a ponto fixo held by another taxi',
    confidence: 'confirmed',
    measured: { standKind: 'fixo', meterState: 'free', minWaitSeconds: 120 },
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 4,
        stand: { kind: 'fixo', places: 2, holders: ['holder'] },
        taxis: [{ key: 'x', arrive: 0, leave: 180 }],
        subject: 'x',
      }),
  },
  {
    name: 'bel-stand-unauthorized-near-miss',
    ruleId: 'BEL_STAND_UNAUTHORIZED',
    pack,
    article: 'Art. 3',
    expect: 'quiet',
    summary: 'The holder of a place waits free for 3 min at its ponto fixo',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 5,
        stand: { kind: 'fixo', places: 2, holders: ['x'] },
        taxis: [{ key: 'x', arrive: 0, leave: 180 }],
        subject: 'x',
      }),
  },
  {
    name: 'bel-stand-overflow',
    ruleId: 'BEL_STAND_OVERFLOW',
    pack,
    article: 'Art. 3',
    expect: 'fires',
    summary: 'A third taxi stays over 3 min in a full 2-place ponto livre',
    confidence: 'confirmed',
    measured: { places: 2, waitingAheadAtCheck: 2 },
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 6,
        stand: { kind: 'livre', places: 2 },
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'b', arrive: 10 },
          { key: 'c', arrive: 20 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-stand-overflow-near-miss',
    ruleId: 'BEL_STAND_OVERFLOW',
    pack,
    article: 'Art. 3',
    expect: 'quiet',
    summary: 'The same three taxis in a 3-place ponto livre',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 7,
        stand: { kind: 'livre', places: 3 },
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'b', arrive: 10 },
          { key: 'c', arrive: 20 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-stand-overflow-drop-off-near-miss',
    ruleId: 'BEL_STAND_OVERFLOW',
    pack,
    article: 'Art. 3',
    expect: 'quiet',
    summary:
      'Two taxis wait at a full 2-place ponto livre; a third pulls in hired, its passenger pays and gets out, it leaves 75 s later: a drop-off is not parking (Art. 3 XIV b)',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 85,
        stand: { kind: 'livre', places: 2 },
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'b', arrive: 10 },
          { key: 'c', arrive: 20, leave: 95, dropOff: true },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-stand-overflow-beside-drop-off',
    ruleId: 'BEL_STAND_OVERFLOW',
    pack,
    article: 'Art. 3',
    expect: 'fires',
    summary:
      'Two taxis wait at a 2-place ponto livre while a third drops a passenger off; a fourth waits free 3 min: the stand was full of waiting taxis (Art. 3 XIV b)',
    confidence: 'confirmed',
    measured: { places: 2, waitingAheadAtCheck: 2 },
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 86,
        stand: { kind: 'livre', places: 2 },
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'b', arrive: 10 },
          { key: 'd', arrive: 15, leave: 80, dropOff: true },
          { key: 'c', arrive: 20 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-stand-queue-jump',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'fires',
    summary: 'A and B wait at a ponto livre; C pulls in 1 min after A and is hired 30 s later',
    confidence: 'confirmed',
    measured: { hiredVia: 'meter', queueToleranceS: 30, longestWaitS: 90 },
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 8,
        stand: { kind: 'livre', places: 4 },
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'b', arrive: 20 },
          { key: 'c', arrive: 60, hired: 90 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-stand-queue-jump-near-miss',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'quiet',
    summary: 'The head of the queue (A) is hired while B and C wait',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 9,
        stand: { kind: 'livre', places: 4 },
        taxis: [
          { key: 'a', arrive: 0, hired: 90 },
          { key: 'b', arrive: 20 },
          { key: 'c', arrive: 60 },
        ],
        subject: 'a',
      }),
  },
  {
    name: 'bel-stand-queue-jump-ponto-fixo',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'fires',
    summary:
      'At a ponto fixo holder A waits; holder C pulls in 1 min later and is hired 30 s after: it took its colleague’s passenger',
    confidence: 'confirmed',
    measured: { hiredVia: 'meter', standKind: 'fixo', longestWaitS: 90 },
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 87,
        stand: { kind: 'fixo', places: 4, holders: ['a', 'c'] },
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'c', arrive: 60, hired: 90 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-stand-queue-jump-ponto-fixo-intruder-near-miss',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'quiet',
    summary:
      'At a ponto fixo a taxi without a place waits; the holder pulls in 1 min later and is hired: only holders queue (Art. 3 XIV a), the intruder is BEL_STAND_UNAUTHORIZED',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 88,
        stand: { kind: 'fixo', places: 4, holders: ['c'] },
        taxis: [
          { key: 'x', arrive: 0 },
          { key: 'c', arrive: 60, hired: 90 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-stand-multipath-near-miss',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'quiet',
    summary:
      'A, first at a ponto livre, reports two fixes 80 m off at a standstill (multipath, accuracy honest: 100 m) a minute before it is hired; B waits behind it: no jump',
    build: (ctx) =>
      faultyStandScene(ctx, {
        pack,
        site: 120,
        stand: { kind: 'livre', places: 4 },
        until: 320,
        taxis: [
          { key: 'a', arrive: 0, hired: 180 },
          { key: 'b', arrive: 60 },
        ],
        faults: [{ taxi: 'a', kind: 'multipath', atS: 120, fixes: 2, metres: 80, accuracyM: 100 }],
        subject: 'a',
      }),
  },
  {
    name: 'bel-stand-dropout-near-miss',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'quiet',
    summary:
      'A, first at a ponto livre, is silent for 3 minutes and found where it was; B pulled in behind it meanwhile; A is hired: it kept its place, no jump',
    build: (ctx) =>
      faultyStandScene(ctx, {
        pack,
        site: 121,
        stand: { kind: 'livre', places: 4 },
        until: 440,
        taxis: [
          { key: 'a', arrive: 0, hired: 300 },
          { key: 'b', arrive: 90 },
        ],
        faults: [{ taxi: 'a', kind: 'dropout', fromS: 60, toS: 240 }],
        subject: 'a',
      }),
  },
  {
    name: 'bel-stand-canyon-near-miss',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'quiet',
    summary:
      'A, first at a ponto livre, is in an urban canyon for 2 minutes (accuracy 45 m, every fix 45 m off in a turning direction); B waits behind it; A is hired: fixes whose accuracy reaches the stand do not move A out, no jump',
    build: (ctx) =>
      faultyStandScene(ctx, {
        pack,
        site: 122,
        stand: { kind: 'livre', places: 4 },
        until: 380,
        taxis: [
          { key: 'a', arrive: 0, hired: 240 },
          { key: 'b', arrive: 60 },
        ],
        faults: [{ taxi: 'a', kind: 'canyon', fromS: 90, toS: 210, metres: 45, accuracyM: 45 }],
        subject: 'a',
      }),
  },
  {
    name: 'bel-stand-simultaneous-hires-near-miss',
    ruleId: 'BEL_STAND_QUEUE_JUMP',
    pack,
    article: 'item 3.1',
    expect: 'quiet',
    summary:
      'Two passengers at once: C, behind A, starts its meter 10 s before A does (within stands.hireOrderToleranceS, 20 s): no jump',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 123,
        stand: { kind: 'livre', places: 4 },
        until: 300,
        taxis: [
          { key: 'a', arrive: 0, hired: 160 },
          { key: 'c', arrive: 60, hired: 150 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'bel-div-expired',
    ruleId: 'BEL_DIV_EXPIRED',
    pack,
    article: 'Art. 30',
    expect: 'fires',
    summary: 'In operation the day after the D.I.V. expired',
    confidence: 'confirmed',
    measured: { daysOverdue: 1 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 10,
        date: tuesday,
        time: '09:00:00',
        vehicle: { divValidUntil: addDays(tuesday(ctx), -1) },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'bel-div-expired-near-miss',
    ruleId: 'BEL_DIV_EXPIRED',
    pack,
    article: 'Art. 30',
    expect: 'quiet',
    summary: 'In operation on the last day of the D.I.V.',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 11,
        date: tuesday,
        time: '09:00:00',
        vehicle: { divValidUntil: tuesday(ctx) },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'bel-vehicle-too-old',
    ruleId: 'BEL_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 27',
    expect: 'fires',
    summary: 'A taxi of model year now − 11 in operation without an age extension',
    confidence: 'confirmed',
    measured: { ageYears: 11, maxAgeYears: 10 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 12,
        date: tuesday,
        time: '09:00:00',
        vehicle: { manufactureYear: year(ctx) - 12, modelYear: year(ctx) - 11 },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'bel-vehicle-too-old-near-miss',
    ruleId: 'BEL_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 27',
    expect: 'quiet',
    summary: 'The same taxi with a current 6-month extension after inspection (Art. 28 II)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 13,
        date: tuesday,
        time: '09:00:00',
        vehicle: {
          manufactureYear: year(ctx) - 12,
          modelYear: year(ctx) - 11,
          ageExtensionValidUntil: addDays(localDateOf(ctx.nowMs), 90),
        },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'bel-vehicle-too-old-extension-at-12-months-near-miss',
    ruleId: 'BEL_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 28 II',
    expect: 'quiet',
    summary:
      'Past 10 years since the previous 31 December, operating on the last day of the 6 + 6 months with the registry holding a later extension',
    build: (ctx) => extendedTaxi(ctx, 70, newYearsEve(ctx)),
  },
  {
    name: 'bel-vehicle-too-old-extension-past-12-months',
    ruleId: 'BEL_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 28 II',
    expect: 'fires',
    summary:
      'The same taxi one day later (12 months + 1 day): no extension runs past 6 + 6 months, whatever date the registry holds; replacement is due',
    confidence: 'confirmed',
    measured: { ageYears: 12, maxAgeYears: 10 },
    build: (ctx) => extendedTaxi(ctx, 71, addDays(newYearsEve(ctx), 1)),
  },
  {
    name: 'bel-detour',
    ruleId: 'BEL_DETOUR',
    pack,
    article: 'item 3.5',
    expect: 'fires',
    summary: 'A 6 km trip between points 1.2 km apart',
    confidence: 'suspected',
    measured: { tripMetres: 6000, straightLineMetres: 1200, ratio: 5 },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 14,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        speedKmh: 43.2,
        legs: [
          [2400, 90],
          [1200, 0],
          [2400, 270],
        ],
      }),
  },
  {
    name: 'bel-detour-near-miss',
    ruleId: 'BEL_DETOUR',
    pack,
    article: 'item 3.5',
    expect: 'quiet',
    summary: 'A 4.2 km trip between points 3.2 km apart',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 15,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        speedKmh: 43.2,
        legs: [
          [3000, 90],
          [1200, 0],
        ],
      }),
  },
  {
    name: 'bel-detour-hora-parada-jitter-near-miss',
    ruleId: 'BEL_DETOUR',
    pack,
    article: 'item 3.5',
    expect: 'quiet',
    summary:
      'A 1.5 km trip with 40 min of hora parada, GPS fixes wandering 5 m (accuracy 5 m): jitter adds no distance (unfiltered it would add about 4 km)',
    build: (ctx) =>
      horaParadaTrip(ctx, {
        pack,
        site: 72,
        date: tuesday,
        time: '10:00:00',
        beforeM: 1200,
        afterM: 300,
        waitS: 2400,
        wanderM: 5,
        accuracyM: 5,
      }),
  },
  {
    name: 'bel-overcharge',
    ruleId: 'BEL_OVERCHARGE',
    pack,
    article: 'item 3.3',
    expect: 'fires',
    summary: 'R$ 99,99 on the meter for a 1.2 km daytime trip',
    requiresConfiguration:
      'belem-taxi tariff.bandeiradaCents, kmB1Cents, kmB2Cents ship null: BEL_OVERCHARGE is off by default',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 16,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        fareCents: 9999,
      }),
  },
  {
    name: 'bel-overcharge-near-miss',
    ruleId: 'BEL_OVERCHARGE',
    pack,
    article: 'item 3.3',
    expect: 'quiet',
    summary: 'R$ 12,00 on the meter for the same trip',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 17,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        fareCents: 1200,
      }),
  },
  {
    name: 'bel-overcharge-start-seen-15s',
    ruleId: 'BEL_OVERCHARGE',
    pack,
    article: 'item 3.3',
    expect: 'fires',
    summary:
      'R$ 99,99 for a 1.2 km trip whose start was seen: the meter free 15 s (the sample-interval limit) before the first hired sample, which shows R$ 6,60',
    confidence: 'confirmed',
    requiresConfiguration:
      'belem-taxi tariff.bandeiradaCents, kmB1Cents, kmB2Cents ship null: BEL_OVERCHARGE is off by default',
    build: (ctx) =>
      hiddenStartTrip(ctx, {
        pack,
        site: 90,
        date: tuesday,
        time: '10:00:00',
        silenceS: 15,
        hiddenM: 150,
        firstFareCents: 660,
        seenM: 1200,
        fareCents: 9999,
      }),
  },
  {
    name: 'bel-overcharge-engine-start-near-miss',
    ruleId: 'BEL_OVERCHARGE',
    pack,
    article: 'item 3.3',
    expect: 'quiet',
    summary:
      'The tracker starts with the meter already hired at R$ 22,00 (4 km unseen): R$ 27,00 is honest for 5.2 km, though 2× the fare of the 1.2 km seen',
    build: (ctx) =>
      hiddenStartTrip(ctx, {
        pack,
        site: 91,
        date: tuesday,
        time: '10:00:00',
        silenceS: null,
        hiddenM: 4000,
        firstFareCents: 2200,
        seenM: 1200,
        fareCents: 2700,
      }),
  },
  {
    name: 'bel-overcharge-first-fare-near-miss',
    ruleId: 'BEL_OVERCHARGE',
    pack,
    article: 'item 3.3',
    expect: 'quiet',
    summary:
      'The meter seen free 5 s before, but the first hired sample already shows R$ 22,00 (above the R$ 6,00 bandeirada + tolerance): it ran unseen, not priced',
    build: (ctx) =>
      hiddenStartTrip(ctx, {
        pack,
        site: 92,
        date: tuesday,
        time: '10:00:00',
        silenceS: 5,
        hiddenM: 50,
        firstFareCents: 2200,
        seenM: 1200,
        fareCents: 2700,
      }),
  },
  {
    name: 'bel-unauthorized-radio',
    ruleId: 'BEL_UNAUTHORIZED_RADIO',
    pack,
    article: 'Art. 42',
    expect: 'fires',
    summary: 'A dispatch through a radio operator whose credential expired 10 days before',
    confidence: 'confirmed',
    measured: { vehicleDeclared: true, operatorKind: 'radio-operator' },
    build: (ctx) => radioDispatch(ctx, 18, -10, true),
  },
  {
    name: 'bel-unauthorized-radio-near-miss',
    ruleId: 'BEL_UNAUTHORIZED_RADIO',
    pack,
    article: 'Art. 42',
    expect: 'quiet',
    summary: 'A dispatch through a credentialed radio operator that declared the taxi',
    build: (ctx) => radioDispatch(ctx, 19, 30, true),
  },
  {
    name: 'bel-unsafe-driving',
    ruleId: 'BEL_UNSAFE_DRIVING',
    pack,
    article: 'item 2.5',
    expect: 'fires',
    summary: '75 km/h for 30 s (limit 60 km/h)',
    confidence: 'confirmed',
    measured: { limitKmh: 60, maxSpeedKmh: 75 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 20,
        date: tuesday,
        time: '10:00:00',
        segments: [
          [20, 40],
          [30, 75],
          [20, 40],
        ],
      }),
  },
  {
    name: 'bel-unsafe-driving-near-miss',
    ruleId: 'BEL_UNSAFE_DRIVING',
    pack,
    article: 'item 2.5',
    expect: 'quiet',
    summary: '75 km/h for 15 s only (the rule needs 20 s)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 21,
        date: tuesday,
        time: '10:00:00',
        segments: [
          [20, 40],
          [15, 75],
          [30, 40],
        ],
      }),
  },
  {
    name: 'bel-unsafe-driving-tolerance-near-miss',
    ruleId: 'BEL_UNSAFE_DRIVING',
    pack,
    article: 'item 2.5',
    expect: 'quiet',
    summary: '67 km/h for 40 s under the 60 km/h default: within the 7 km/h measurement tolerance',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 61,
        date: tuesday,
        time: '10:00:00',
        segments: [
          [20, 40],
          [40, 67],
          [20, 40],
        ],
      }),
  },
  {
    name: 'bel-unsafe-driving-zone-raised',
    ruleId: 'BEL_UNSAFE_DRIVING',
    pack,
    article: 'item 2.5',
    expect: 'fires',
    summary: '90 km/h for 30 s on an avenue a speed-limit zone sets at 80 km/h (limit 80 + 7 tolerance)',
    confidence: 'confirmed',
    measured: { limitKmh: 80, limitSource: 'zone', thresholdKmh: 87, maxSpeedKmh: 90 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 62,
        date: tuesday,
        time: '10:00:00',
        registry: speedLimitZone(pack, 80),
        segments: [
          [20, 60],
          [30, 90],
          [20, 60],
        ],
      }),
  },
  {
    name: 'bel-unsafe-driving-zone-raised-near-miss',
    ruleId: 'BEL_UNSAFE_DRIVING',
    pack,
    article: 'item 2.5',
    expect: 'quiet',
    summary: '85 km/h for 40 s on an avenue a speed-limit zone sets at 80 km/h (above the 60 km/h default)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 63,
        date: tuesday,
        time: '10:00:00',
        registry: speedLimitZone(pack, 80),
        segments: [
          [20, 60],
          [40, 85],
          [20, 60],
        ],
      }),
  },
  {
    name: 'bel-unsafe-driving-zone-lowered',
    ruleId: 'BEL_UNSAFE_DRIVING',
    pack,
    article: 'item 2.5',
    expect: 'fires',
    summary: '50 km/h for 30 s in a school zone limited to 40 km/h (under the 60 km/h default)',
    confidence: 'confirmed',
    measured: { limitKmh: 40, limitSource: 'zone', thresholdKmh: 47 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 64,
        date: tuesday,
        time: '10:00:00',
        registry: speedLimitZone(pack, 40),
        segments: [
          [20, 30],
          [30, 50],
          [20, 30],
        ],
      }),
  },
];
