import { horaParadaTrip } from './hora-parada.js';
import type { RegistryBuilder } from './registry.js';
import { faultyStandScene } from './stand-faults.js';
import { driving, standScene, taxiTrip } from './taxi.js';
import { addDays, localDateOf, pastOrdinaryDate } from './time.js';
import { hiddenStartTrip } from './trip-start.js';
import type { BuildContext, Scenario } from './types.js';

/** Distrito Federal taxi regulation (STx-DF). Local time: America/Sao_Paulo. */

const tuesday = (ctx: BuildContext) => pastOrdinaryDate(ctx.nowMs, 2, 7);
const friday = (ctx: BuildContext) => pastOrdinaryDate(ctx.nowMs, 5, 7);
const year = (ctx: BuildContext) => Number(localDateOf(ctx.nowMs).slice(0, 4));
const pack = 'df-taxi' as const;

export const dfScenarios: Scenario[] = [
  {
    name: 'df-bandeira2-tuesday-afternoon',
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 45 III',
    expect: 'fires',
    summary: 'Hired on tariff 2 for 2 min on a Tuesday at 15:00 with 2 passengers, far from the airport',
    confidence: 'confirmed',
    measured: { tariff2Seconds: 140 },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 0,
        date: tuesday,
        time: '15:00:00',
        tariff: 2,
        passengers: 2,
        legs: [[1200, 90]],
      }),
  },
  {
    name: 'df-bandeira2-friday-1958',
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 45 III',
    expect: 'fires',
    summary: 'Tariff 2 from 19:58 to 19:59:50 on a Friday: Bandeira II starts at 20:00',
    confidence: 'confirmed',
    measured: { tariff2Seconds: 115, tripEndedAtAirport: false },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 1,
        date: friday,
        time: '19:58:00',
        tariff: 2,
        passengers: 1,
        legs: [[1100, 90]],
      }),
  },
  {
    name: 'df-bandeira2-friday-2000-near-miss',
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 45 III',
    expect: 'quiet',
    summary: 'Tariff 2 from 20:00:30 on a Friday: allowed (Art. 45 III a)',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 2,
        date: friday,
        time: '20:00:30',
        tariff: 2,
        passengers: 1,
        legs: [[1200, 90]],
      }),
  },
  {
    name: 'df-bandeira2-four-passengers-near-miss',
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 45 III',
    expect: 'quiet',
    summary: 'Tariff 2 on a Tuesday at 15:00 with 4 passengers (more than 3): allowed',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 3,
        date: tuesday,
        time: '15:00:00',
        tariff: 2,
        passengers: 4,
        legs: [[1200, 90]],
      }),
  },
  {
    name: 'df-bandeira2-counter-flicker-near-miss',
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 45 III',
    expect: 'quiet',
    summary:
      'Tariff 2 on a Tuesday at 15:00 with 4 passengers, the counter dipping to 2 for 90 s with the doors closed: still more than 3 on board',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 62,
        date: tuesday,
        time: '15:00:00',
        fields: {
          passengers: 4,
          doorOpen: false,
          meter: { state: 'hired', tariff: 2, fareCents: 500, tripId: `b2-${ctx.runId}` },
        },
        segments: [
          [30, 36],
          [90, 36],
          [30, 36],
          [10, 0],
        ],
        segmentFields: [
          undefined,
          { passengers: 2 },
          { passengers: 4 },
          { passengers: 0, doorOpen: true, meter: { state: 'free', tariff: 1 } },
        ],
      }),
  },
  {
    name: 'df-bandeira2-passengers-got-out',
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack,
    article: 'Art. 45 III',
    expect: 'fires',
    summary:
      'Tariff 2 on a Tuesday at 15:00: 4 passengers, 2 get out at a stop (door open), the other 2 ride on 90 s on tariff 2',
    confidence: 'confirmed',
    measured: { minStretchSeconds: 60 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 63,
        date: tuesday,
        time: '15:00:00',
        fields: {
          passengers: 4,
          doorOpen: false,
          meter: { state: 'hired', tariff: 2, fareCents: 500, tripId: `b2-${ctx.runId}` },
        },
        segments: [
          [30, 36],
          [10, 0],
          [90, 36],
          [10, 0],
        ],
        segmentFields: [
          undefined,
          { passengers: 2, doorOpen: true },
          { doorOpen: false },
          { passengers: 0, doorOpen: true, meter: { state: 'free', tariff: 1 } },
        ],
      }),
  },
  {
    name: 'df-over-capacity',
    ruleId: 'DF_OVER_CAPACITY',
    pack,
    article: 'Art. 24',
    expect: 'fires',
    summary: '6 passengers in a 4-seat taxi for 40 s of driving',
    confidence: 'confirmed',
    measured: { passengersMax: 6, permittedPassengers: 4 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 4,
        date: tuesday,
        time: '10:00:00',
        fields: { passengers: 6, meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: `cap-${ctx.runId}` } },
        segments: [
          [40, 30],
          [20, 30],
        ],
        segmentFields: [undefined, { passengers: 3 }],
      }),
  },
  {
    name: 'df-over-capacity-near-miss',
    ruleId: 'DF_OVER_CAPACITY',
    pack,
    article: 'Art. 24',
    expect: 'quiet',
    summary: '6 passengers in a 4-seat taxi for 25 s only (the rule needs 30 s)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 5,
        date: tuesday,
        time: '10:00:00',
        fields: { passengers: 6, meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: `cap-${ctx.runId}` } },
        segments: [
          [25, 30],
          [40, 30],
        ],
        segmentFields: [undefined, { passengers: 3 }],
      }),
  },
  {
    name: 'df-over-capacity-counter-flicker-near-miss',
    ruleId: 'DF_OVER_CAPACITY',
    pack,
    article: 'Art. 24',
    expect: 'quiet',
    summary:
      '4 passengers in a 4-seat taxi, the counter reading 6 for 60 s of driving with the doors closed (sensor noise)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 60,
        date: tuesday,
        time: '10:00:00',
        fields: {
          passengers: 4,
          doorOpen: false,
          meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: `cap-${ctx.runId}` },
        },
        segments: [
          [20, 30],
          [60, 30],
          [20, 30],
        ],
        segmentFields: [undefined, { passengers: 6 }, { passengers: 4 }],
      }),
  },
  {
    name: 'df-stand-queue-jump',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'fires',
    summary: 'A and B wait at a stand; C pulls in 1 min after A and is hired 30 s later',
    confidence: 'confirmed',
    measured: { hiredVia: 'meter', queueToleranceS: 30, longestWaitS: 90 },
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 6,
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
    name: 'df-stand-queue-jump-near-miss',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary: 'C pulls in 25 s after A (less than the 30 s tolerance) and is hired',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 7,
        stand: { kind: 'livre', places: 4 },
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'c', arrive: 25, hired: 60 },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'df-stand-queue-jump-hired-at-edge',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'fires',
    summary:
      'A waits; C pulls in 1 min later, pulls out free and starts the meter 20 m from the stand 5 s after leaving it: still a hire at the stand (Art. 37 m)',
    confidence: 'confirmed',
    measured: { hiredVia: 'meter', queueToleranceS: 30 },
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 85,
        stand: { kind: 'livre', places: 4 },
        until: 300,
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'c', arrive: 60, leave: 120, hail: { afterS: 5, distanceM: 20 } },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'df-stand-hail-away-near-miss',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary:
      'Same, but C is hailed 35 m from the stand (beyond hireEdgeM, 30 m): Art. 37 e obliges it to stop, no jump',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 86,
        stand: { kind: 'livre', places: 4 },
        until: 300,
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'c', arrive: 60, leave: 120, hail: { afterS: 5, distanceM: 35 } },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'df-stand-hail-after-leaving-near-miss',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary:
      'Same, but C is hailed 20 m from the stand 20 s after leaving it (beyond hireAfterLeavingS, 15 s): Art. 37 e, no jump',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 87,
        stand: { kind: 'livre', places: 4 },
        until: 300,
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'c', arrive: 60, leave: 120, hail: { afterS: 20, distanceM: 20 } },
        ],
        subject: 'c',
      }),
  },
  {
    name: 'df-stand-queue-jump-reserved-holders-near-miss',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary:
      'At a reserved stand a taxi not entitled to it waits; a holder pulls in 1 min later and is hired: only entitled taxis form the queue',
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
    name: 'df-stand-multipath-near-miss',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary:
      'A, first in the queue, reports two fixes 200 m off at a standstill (multipath, accuracy 5 m) a minute before it is hired; B waits behind it: one or two jumped fixes are not leaving (Art. 37 m), no jump',
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
        faults: [{ taxi: 'a', kind: 'multipath', atS: 120, fixes: 2, metres: 200, accuracyM: 5 }],
        subject: 'a',
      }),
  },
  {
    name: 'df-stand-left-and-back',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'fires',
    summary:
      'Same, but A is 200 m off for three fixes over 10 s (stands.exitConfirmFixes, exitConfirmS): sustained absence, A left; back behind B and hired first, it jumped B (Art. 37 m)',
    confidence: 'confirmed',
    measured: { hiredVia: 'meter', queueToleranceS: 30 },
    build: (ctx) =>
      faultyStandScene(ctx, {
        pack,
        site: 121,
        stand: { kind: 'livre', places: 4 },
        until: 320,
        taxis: [
          { key: 'a', arrive: 0, hired: 180 },
          { key: 'b', arrive: 60 },
        ],
        faults: [{ taxi: 'a', kind: 'multipath', atS: 120, fixes: 3, metres: 200, accuracyM: 5 }],
        subject: 'a',
      }),
  },
  {
    name: 'df-stand-dropout-near-miss',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary:
      'A, first in the queue, is silent for 3 minutes (a dropout, longer than general.maxGapS) and found where it was; B pulled in behind it meanwhile; A is hired: a taxi does not lose its place to its tracker, no jump',
    build: (ctx) =>
      faultyStandScene(ctx, {
        pack,
        site: 122,
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
    name: 'df-stand-queue-jump-over-silent-taxi',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'fires',
    summary:
      'A waits but its tracker is silent for 3 minutes; C pulls in meanwhile and is hired after A reports again, still waiting: a jump, only suspected (A’s presence across the silence is inferred)',
    confidence: 'suspected',
    measured: { hiredVia: 'meter', queueToleranceS: 30 },
    build: (ctx) =>
      faultyStandScene(ctx, {
        pack,
        site: 123,
        stand: { kind: 'livre', places: 4 },
        until: 440,
        taxis: [
          { key: 'a', arrive: 0 },
          { key: 'c', arrive: 90, hired: 300 },
        ],
        faults: [{ taxi: 'a', kind: 'dropout', fromS: 60, toS: 240 }],
        subject: 'c',
      }),
  },
  {
    name: 'df-stand-simultaneous-hires-near-miss',
    ruleId: 'DF_STAND_QUEUE_JUMP',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary:
      'Two passengers at once: C, behind A, starts its meter 10 s before A does (within stands.hireOrderToleranceS, 20 s): both were boarding, no jump',
    build: (ctx) =>
      standScene(ctx, {
        pack,
        site: 124,
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
    name: 'df-ride-without-meter',
    ruleId: 'DF_RIDE_WITHOUT_METER',
    pack,
    article: 'Art. 37',
    expect: 'fires',
    summary: '2 passengers carried 1.5 km with the meter free',
    confidence: 'confirmed',
    measured: { metresWithoutMeter: 1500, passengersMax: 2 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 8,
        date: tuesday,
        time: '11:00:00',
        fields: { passengers: 2, meter: { state: 'free', tariff: 1 } },
        segments: [
          [150, 36],
          [10, 0],
        ],
        segmentFields: [undefined, { passengers: 0 }],
      }),
  },
  {
    name: 'df-ride-without-meter-near-miss',
    ruleId: 'DF_RIDE_WITHOUT_METER',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary: '2 passengers carried 800 m with the meter free (the rule needs 1 km)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 9,
        date: tuesday,
        time: '11:00:00',
        fields: { passengers: 2, meter: { state: 'free', tariff: 1 } },
        segments: [
          [80, 36],
          [10, 0],
          [60, 36],
        ],
        segmentFields: [undefined, { passengers: 0 }],
      }),
  },
  {
    name: 'df-ride-without-meter-counter-flicker-near-miss',
    ruleId: 'DF_RIDE_WITHOUT_METER',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary: 'An empty taxi, meter free, the counter reading 1 for 1.5 km with the doors closed (sensor noise)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 61,
        date: tuesday,
        time: '11:00:00',
        fields: { passengers: 0, doorOpen: false, meter: { state: 'free', tariff: 1 } },
        segments: [
          [20, 36],
          [150, 36],
          [10, 0],
        ],
        segmentFields: [undefined, { passengers: 1 }, { passengers: 0 }],
      }),
  },
  {
    name: 'df-detour',
    ruleId: 'DF_DETOUR',
    pack,
    article: 'Art. 37',
    expect: 'fires',
    summary: 'A 6 km trip (2.4 km east, 1.2 km north, 2.4 km west) between points 1.2 km apart',
    confidence: 'suspected',
    measured: { tripMetres: 6000, straightLineMetres: 1200, ratio: 5 },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 10,
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
    name: 'df-detour-near-miss',
    ruleId: 'DF_DETOUR',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary: 'A 4.2 km trip (3 km east, 1.2 km north) between points 3.2 km apart',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 11,
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
    name: 'df-detour-hora-parada-jitter-near-miss',
    ruleId: 'DF_DETOUR',
    pack,
    article: 'Art. 37',
    expect: 'quiet',
    summary:
      'A 1.5 km trip with 40 min of hora parada, GPS fixes wandering 5 m (accuracy 5 m): jitter adds no distance (unfiltered it would add about 4 km)',
    build: (ctx) =>
      horaParadaTrip(ctx, {
        pack,
        site: 74,
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
    name: 'df-vehicle-too-old',
    ruleId: 'DF_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 25',
    expect: 'fires',
    summary: 'A taxi made 13 years ago in operation (limit 12)',
    confidence: 'confirmed',
    measured: { ageYears: 13, maxAgeYears: 12 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 12,
        date: tuesday,
        time: '09:00:00',
        vehicle: { manufactureYear: year(ctx) - 13 },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'df-vehicle-too-old-near-miss',
    ruleId: 'DF_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 25',
    expect: 'quiet',
    summary: 'A taxi made 10 years ago with a current safety certificate (Art. 25 §1)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 13,
        date: tuesday,
        time: '09:00:00',
        vehicle: {
          manufactureYear: year(ctx) - 10,
          safetyCertificateValidUntil: addDays(localDateOf(ctx.nowMs), 180),
        },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'df-permit-expired',
    ruleId: 'DF_PERMIT_EXPIRED',
    pack,
    article: 'Art. 14',
    expect: 'fires',
    summary: 'In operation the day after the permit expired: inside the 30-day grace (Art. 14 §3), a suspected notice',
    confidence: 'suspected',
    measured: { daysOverdue: 1 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 14,
        date: tuesday,
        time: '09:00:00',
        vehicle: { permitValidUntil: addDays(tuesday(ctx), -1) },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'df-permit-expired-near-miss',
    ruleId: 'DF_PERMIT_EXPIRED',
    pack,
    article: 'Art. 14',
    expect: 'quiet',
    summary: 'In operation on the last day of the permit (valid until that date, inclusive)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 15,
        date: tuesday,
        time: '09:00:00',
        vehicle: { permitValidUntil: tuesday(ctx) },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'df-permit-expired-grace-day-30',
    ruleId: 'DF_PERMIT_EXPIRED',
    pack,
    article: 'Art. 14 §3',
    expect: 'fires',
    summary: 'In operation on day 30 after the permit expired: still inside the grace, a suspected notice (no group C)',
    confidence: 'suspected',
    measured: { daysOverdue: 30, graceDays: 30 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 70,
        date: tuesday,
        time: '09:00:00',
        vehicle: { permitValidUntil: addDays(tuesday(ctx), -30) },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'df-permit-expired-past-grace-day-31',
    ruleId: 'DF_PERMIT_EXPIRED',
    pack,
    article: 'Art. 17 II',
    expect: 'fires',
    summary: 'In operation on day 31 after the permit expired: past the grace, group C and cancellation (Art. 17 II)',
    confidence: 'confirmed',
    measured: { daysOverdue: 31, graceDays: 30 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 71,
        date: tuesday,
        time: '09:00:00',
        vehicle: { permitValidUntil: addDays(tuesday(ctx), -31) },
        segments: [[60, 30]],
      }),
  },
  {
    name: 'df-unregistered-driver',
    ruleId: 'DF_UNREGISTERED_DRIVER',
    pack,
    article: 'Art. 36',
    expect: 'fires',
    summary: 'A hired trip driven by a driver id not on the permit',
    confidence: 'confirmed',
    measured: { driverKnownToRegistry: false },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 16,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        driverId: `DRV-STRANGER-${ctx.runId}`,
        extra: (reg) => ({ driverIds: [driver(reg, 'holder')] }),
      }),
  },
  {
    name: 'df-unregistered-driver-near-miss',
    ruleId: 'DF_UNREGISTERED_DRIVER',
    pack,
    article: 'Art. 36',
    expect: 'quiet',
    summary: 'The same trip driven by the registered auxiliary driver',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 17,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        driverId: `scn-${ctx.runId}-aux`,
        extra: (reg) => ({ driverIds: [driver(reg, 'holder'), driver(reg, 'aux')] }),
      }),
  },
  {
    name: 'df-unregistered-driver-permit-holder-near-miss',
    ruleId: 'DF_UNREGISTERED_DRIVER',
    pack,
    article: 'Art. 36',
    expect: 'quiet',
    summary:
      'The permit holder drives their own taxi without being listed among its drivers (same CPF as the operator)',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 72,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        driverId: `scn-${ctx.runId}-holder`,
        extra: (reg) => {
          // The holder's driver record carries the CPF of the operator record the permit is held as.
          reg.add('drivers', { id: reg.id('holder'), name: 'Scenario permit holder', pack, document: '52998224725' });
          return {
            operatorId: reg.operator('holder-op', pack, { document: '529.982.247-25' }),
            driverIds: [driver(reg, 'aux')],
          };
        },
      }),
  },
  {
    name: 'df-unregistered-driver-no-drivers-listed',
    ruleId: 'DF_UNREGISTERED_DRIVER',
    pack,
    article: 'Art. 36',
    expect: 'fires',
    summary: 'A driver card on a permit whose registry lists no drivers at all: a registry gap, suspected at most',
    confidence: 'suspected',
    measured: { driverKnownToRegistry: true },
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 73,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        driverId: `scn-${ctx.runId}-someone`,
        extra: (reg) => {
          driver(reg, 'someone');
          return { driverIds: [] };
        },
      }),
  },
  {
    name: 'df-overcharge',
    ruleId: 'DF_OVERCHARGE',
    pack,
    article: 'Art. 45',
    expect: 'fires',
    summary: 'R$ 99,99 on the meter for a 1.2 km daytime trip',
    requiresConfiguration:
      'df-taxi tariff.kmB1Ut and tariff.waitingHourUt ship null (and a UT unit value is needed): DF_OVERCHARGE is off by default',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 18,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        fareCents: 9999,
      }),
  },
  {
    name: 'df-overcharge-near-miss',
    ruleId: 'DF_OVERCHARGE',
    pack,
    article: 'Art. 45',
    expect: 'quiet',
    summary: 'R$ 15,00 on the meter for the same 1.2 km trip',
    build: (ctx) =>
      taxiTrip(ctx, {
        pack,
        site: 19,
        date: tuesday,
        time: '10:00:00',
        tariff: 1,
        passengers: 1,
        legs: [[1200, 90]],
        fareCents: 1500,
      }),
  },
  {
    name: 'df-overcharge-start-seen-15s',
    ruleId: 'DF_OVERCHARGE',
    pack,
    article: 'Art. 45',
    expect: 'fires',
    summary:
      'R$ 99,99 for a 1.2 km trip whose start was seen: the meter free 15 s (the sample-interval limit) before the first hired sample, which shows R$ 12,45',
    confidence: 'confirmed',
    requiresConfiguration:
      'df-taxi tariff.kmB1Ut and tariff.waitingHourUt ship null (and a UT unit value is needed): DF_OVERCHARGE is off by default',
    build: (ctx) =>
      hiddenStartTrip(ctx, {
        pack,
        site: 90,
        date: tuesday,
        time: '10:00:00',
        silenceS: 15,
        hiddenM: 150,
        firstFareCents: 1245,
        seenM: 1200,
        fareCents: 9999,
      }),
  },
  {
    name: 'df-overcharge-start-unseen-16s-near-miss',
    ruleId: 'DF_OVERCHARGE',
    pack,
    article: 'Art. 45',
    expect: 'quiet',
    summary:
      'The same trip with 16 s of silence before the first hired sample: the meter may have run unseen, the trip is not priced',
    build: (ctx) =>
      hiddenStartTrip(ctx, {
        pack,
        site: 91,
        date: tuesday,
        time: '10:00:00',
        silenceS: 16,
        hiddenM: 160,
        firstFareCents: 1245,
        seenM: 1200,
        fareCents: 9999,
      }),
  },
  {
    name: 'df-overcharge-dropout-near-miss',
    ruleId: 'DF_OVERCHARGE',
    pack,
    article: 'Art. 45',
    expect: 'quiet',
    summary:
      'A 6 min dropout hid the boarding and 5 km: R$ 31,00 is honest for 6.2 km, though 2× the fare of the 1.2 km the tracker saw',
    build: (ctx) =>
      hiddenStartTrip(ctx, {
        pack,
        site: 92,
        date: tuesday,
        time: '10:00:00',
        silenceS: 360,
        hiddenM: 5000,
        firstFareCents: 2700,
        seenM: 1200,
        fareCents: 3100,
      }),
  },
];

function driver(reg: RegistryBuilder, key: string): string {
  return reg.add('drivers', { id: reg.id(key), name: `Scenario driver ${key}`, pack: 'df-taxi' });
}
