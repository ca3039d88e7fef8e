import { offsetM } from '../geo.js';
import { RegistryBuilder } from './registry.js';
import { site } from './sites.js';
import { driving, speedLimitZone } from './taxi.js';
import { addDays, describeLocal, localDateOf, localInstantMs, pastOrdinaryDate } from './time.js';
import { Trace } from './trace.js';
import type { BuildContext, Scenario, ScenarioPlan } from './types.js';

/** São Paulo State charter-bus decree. Local time: America/Sao_Paulo. */

const tuesday = (ctx: BuildContext) => pastOrdinaryDate(ctx.nowMs, 2, 7);
const year = (ctx: BuildContext) => Number(localDateOf(ctx.nowMs).slice(0, 4));
const pack = 'sp-fretamento' as const;

/**
 * A loaded bus drives east past regular-service stops, 400 m apart; at the first `boardAt` of
 * them it pulls up at the stop, dwells `dwellS` seconds with the door open and passengers
 * boarding (then 5 s more with the door closed), and drives on; it passes the others at speed.
 */
function stopsRun(
  ctx: BuildContext,
  o: { site: number; stops: number; boardAt: number; dwellS: number },
): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const start = site(pack, o.site);
  for (let i = 0; i < o.stops; i++) {
    const at = offsetM(start, 0, 400 * (i + 1));
    reg.add('stops', {
      id: reg.id(`stop-${i}`),
      name: `Scenario regular stop ${i + 1}`,
      lat: Number(at.lat.toFixed(7)),
      lon: Number(at.lon.toFixed(7)),
      source: 'scenario',
    });
  }
  const { vehicleId, deviceId } = reg.vehicle('bus', pack);
  const t0 = localInstantMs(tuesday(ctx), '07:30:00');
  let passengers = 20;
  const t = new Trace(deviceId, t0, start, {
    passengers,
    doorOpen: false,
    boardings: 0,
    tacho: { speedKmh: 0, driverId: `MOT-${ctx.runId}` },
  });
  t.emit();
  for (let i = 0; i < o.stops; i++) {
    t.driveMetres(400, 36, 90, { tacho: { speedKmh: 36, driverId: `MOT-${ctx.runId}` } });
    if (i < o.boardAt) {
      t.set({ doorOpen: true });
      for (let s = 5; s <= o.dwellS; s += 5) {
        passengers += 2;
        t.set({ passengers, boardings: 2 }).stay(5);
      }
      t.set({ doorOpen: false, boardings: 0 });
      t.stay(5);
    }
  }
  t.drive(60, 36, 90, { tacho: { speedKmh: 36, driverId: `MOT-${ctx.runId}` } });
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(t0) };
}

type Fields = NonNullable<ConstructorParameters<typeof Trace>[3]>;

/**
 * A bus drives east past `stops` regular-service stops, 400 m apart, and at each pulls up at the
 * stop and dwells through `phases` ([seconds, sensor readings] each, a sample every 5 s), then
 * moves off with the readings `after` (the passenger counter's noise and the door's story).
 */
function stopPhasesRun(
  ctx: BuildContext,
  o: { site: number; stops: number; base: Fields; phases: [number, Fields][]; after: (stop: number) => Fields },
): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const start = site(pack, o.site);
  for (let i = 0; i < o.stops; i++) {
    const at = offsetM(start, 0, 400 * (i + 1));
    reg.add('stops', {
      id: reg.id(`stop-${i}`),
      name: `Scenario regular stop ${i + 1}`,
      lat: Number(at.lat.toFixed(7)),
      lon: Number(at.lon.toFixed(7)),
      source: 'scenario',
    });
  }
  const { vehicleId, deviceId } = reg.vehicle('bus', pack);
  const t0 = localInstantMs(tuesday(ctx), '07:30:00');
  const tacho = (speedKmh: number) => ({ tacho: { speedKmh, driverId: `MOT-${ctx.runId}` } });
  const t = new Trace(deviceId, t0, start, { ...o.base, ...tacho(0) });
  t.emit();
  for (let i = 0; i < o.stops; i++) {
    t.driveMetres(400, 36, 90, tacho(36));
    for (const [seconds, readings] of o.phases) t.set(readings).stay(seconds, tacho(0));
    t.set(o.after(i));
  }
  t.drive(60, 36, 90, tacho(36));
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(t0) };
}

/**
 * A bus under contract, played now (a contract is in force from its creation): it runs along the
 * declared route, then `offM` north of it for `offS` seconds, then back.
 */
function routeRun(
  ctx: BuildContext,
  o: { site: number; offM: number; offS: number; fields?: Fields; doorOpenAtStartS?: number },
): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const start = site(pack, o.site);
  const end = offsetM(start, 0, 8000);
  const { vehicleId, deviceId } = reg.vehicle('bus', pack);
  const operatorId = reg.id('bus-op');
  reg.add('contracts', {
    id: reg.id('contract'),
    operatorId,
    kind: 'fretamento-continuo',
    vehicleIds: [vehicleId],
    client: 'Scenario client',
    route: {
      type: 'LineString',
      coordinates: [start, end].map((p) => [Number(p.lon.toFixed(7)), Number(p.lat.toFixed(7))]),
    },
    boardingPlaces: [{ name: 'Scenario bolsão', lat: start.lat, lon: start.lon, radiusM: 80 }],
    schedule: [{ daysOfWeek: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '24:00' }],
    validFrom: addDays(localDateOf(ctx.nowMs), -1),
  });
  // Stamped from 15 s after the build: after the contract exists, within the 300 s ingest accepts ahead.
  const t0 = Math.ceil((ctx.nowMs + 15_000) / 1000) * 1000;
  const tacho = { speedKmh: 60, driverId: `MOT-${ctx.runId}` };
  const t = new Trace(deviceId, t0, start, o.fields ?? { passengers: 30, tacho });
  if (o.doorOpenAtStartS) t.emit(0, { doorOpen: true }).stay(o.doorOpenAtStartS, { doorOpen: true }).wait(5);
  t.emit(60).drive(10, 60, 90);
  t.driveMetres(o.offM, 60, 0).drive(o.offS, 60, 90).driveMetres(o.offM, 60, 180).drive(15, 60, 90);
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(t0) };
}

const tachoAt = (speedKmh: number, ctx: BuildContext) => ({ tacho: { speedKmh, driverId: `MOT-${ctx.runId}` } });

export const spScenarios: Scenario[] = [
  {
    name: 'fret-boarding-at-regular-stop',
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack,
    article: 'Art. 10 §3',
    expect: 'fires',
    summary: 'A charter bus dwells 20 s at a regular-service stop, door open, passengers boarding',
    confidence: 'confirmed',
    measured: { dwellSeconds: 20, distanceToStopM: 0, boardingEvidence: 'occupancy' },
    build: (ctx) => stopsRun(ctx, { site: 0, stops: 1, boardAt: 1, dwellS: 20 }),
  },
  {
    name: 'fret-boarding-at-regular-stop-near-miss',
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack,
    article: 'Art. 10 §3',
    expect: 'quiet',
    summary: 'The same stop, door open for 10 s only (the rule needs a 15 s dwell)',
    build: (ctx) => stopsRun(ctx, { site: 1, stops: 1, boardAt: 1, dwellS: 10 }),
  },
  {
    name: 'fret-boarding-counter-flicker-near-miss',
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack,
    article: 'Art. 10 §3',
    expect: 'quiet',
    summary:
      'A 25 s dwell at a stop with the door closed while the counter reads 20, 23 (3 phantom boardings), then 20 again: sensor noise boards nobody',
    build: (ctx) =>
      stopPhasesRun(ctx, {
        site: 60,
        stops: 1,
        base: { passengers: 20, boardings: 0, alightings: 0, doorOpen: false },
        phases: [
          [5, { passengers: 20 }],
          [5, { passengers: 23, boardings: 3 }],
          [5, { passengers: 23, boardings: 0 }],
          [10, { passengers: 20, alightings: 3 }],
        ],
        after: () => ({ passengers: 20, alightings: 0 }),
      }),
  },
  {
    name: 'fret-boarding-count-rises-door-closed-near-miss',
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack,
    article: 'Art. 10 §3',
    expect: 'quiet',
    summary: 'A 25 s dwell at a stop, the counter rising from 20 to 23 and staying there, the door never opening',
    build: (ctx) =>
      stopPhasesRun(ctx, {
        site: 61,
        stops: 1,
        base: { passengers: 20, boardings: 0, doorOpen: false },
        phases: [
          [5, { passengers: 20 }],
          [20, { passengers: 23 }],
        ],
        after: () => ({ passengers: 23 }),
      }),
  },
  {
    name: 'fret-boarding-door-and-count',
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack,
    article: 'Art. 10 §3',
    expect: 'fires',
    summary:
      'The door opens at a stop and the bus moves off with 23 passengers where it stopped with 20 (no boarding counter): confirmed',
    confidence: 'confirmed',
    measured: { boardingEvidence: 'occupancy', passengersBefore: 20, passengersAfter: 23, doorOpened: true },
    build: (ctx) =>
      stopPhasesRun(ctx, {
        site: 62,
        stops: 1,
        base: { passengers: 20, doorOpen: false },
        phases: [
          [5, { passengers: 20 }],
          [10, { passengers: 23, doorOpen: true }],
          [10, { passengers: 23, doorOpen: false }],
        ],
        after: () => ({ passengers: 23, doorOpen: false }),
      }),
  },
  {
    name: 'fret-boarding-door-only',
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack,
    article: 'Art. 10 §3',
    expect: 'fires',
    summary:
      'A bus with a door sensor and no passenger counter opens its door 20 s at a stop: suspected (it may be alighting)',
    confidence: 'suspected',
    measured: { boardingEvidence: 'door', doorOpened: true },
    build: (ctx) =>
      stopPhasesRun(ctx, {
        site: 63,
        stops: 1,
        base: { doorOpen: false },
        phases: [[20, { doorOpen: true }]],
        after: () => ({ doorOpen: false }),
      }),
  },
  {
    name: 'fret-over-capacity',
    ruleId: 'FRET_OVER_CAPACITY',
    pack,
    article: 'Art. 22',
    expect: 'fires',
    summary: '48 passengers in a 44-seat bus for 40 s of driving',
    confidence: 'confirmed',
    measured: { passengersMax: 48, permittedPassengers: 44, excess: 4 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 2,
        date: tuesday,
        time: '07:00:00',
        fields: { passengers: 48, ...tachoAt(40, ctx) },
        segments: [
          [40, 40],
          [20, 40],
        ],
        segmentFields: [undefined, { passengers: 40 }],
      }),
  },
  {
    name: 'fret-over-capacity-near-miss',
    ruleId: 'FRET_OVER_CAPACITY',
    pack,
    article: 'Art. 22',
    expect: 'quiet',
    summary: '48 passengers for 25 s only, then 40',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 3,
        date: tuesday,
        time: '07:00:00',
        fields: { passengers: 48, ...tachoAt(40, ctx) },
        segments: [
          [25, 40],
          [40, 40],
        ],
        segmentFields: [undefined, { passengers: 40 }],
      }),
  },
  {
    name: 'fret-over-capacity-counter-flicker-near-miss',
    ruleId: 'FRET_OVER_CAPACITY',
    pack,
    article: 'Art. 22',
    expect: 'quiet',
    summary:
      '40 passengers in a 44-seat bus, the counter reading 48 for 60 s of driving with the doors closed (sensor noise)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 64,
        date: tuesday,
        time: '07:00:00',
        fields: { passengers: 40, doorOpen: false, ...tachoAt(40, ctx) },
        segments: [
          [20, 40],
          [60, 40],
          [20, 40],
        ],
        segmentFields: [undefined, { passengers: 48 }, { passengers: 40 }],
      }),
  },
  {
    name: 'fret-inspection-expired',
    ruleId: 'FRET_INSPECTION_EXPIRED',
    pack,
    article: 'Art. 17',
    expect: 'fires',
    summary: 'A 4-year-old bus last inspected 20 months ago (every 18 months up to 5 years)',
    confidence: 'confirmed',
    measured: { periodMonths: 18, dueBasis: 'art-17-period' },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 4,
        date: tuesday,
        time: '07:00:00',
        vehicle: { manufactureYear: year(ctx) - 4, lastInspectionDate: addDays(tuesday(ctx), -610) },
        fields: tachoAt(40, ctx),
        segments: [[60, 40]],
      }),
  },
  {
    name: 'fret-inspection-expired-near-miss',
    ruleId: 'FRET_INSPECTION_EXPIRED',
    pack,
    article: 'Art. 17',
    expect: 'quiet',
    summary: 'The same bus last inspected 16 months ago',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 5,
        date: tuesday,
        time: '07:00:00',
        vehicle: { manufactureYear: year(ctx) - 4, lastInspectionDate: addDays(tuesday(ctx), -490) },
        fields: tachoAt(40, ctx),
        segments: [[60, 40]],
      }),
  },
  {
    name: 'fret-unregistered-vehicle',
    ruleId: 'FRET_UNREGISTERED_VEHICLE',
    pack,
    article: 'Art. 26',
    expect: 'fires',
    summary: 'A bus whose registration was withdrawn carries passengers',
    confidence: 'confirmed',
    measured: { status: 'withdrawn' },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 6,
        date: tuesday,
        time: '07:00:00',
        vehicle: { status: 'withdrawn' },
        fields: { passengers: 20, ...tachoAt(40, ctx) },
        segments: [[60, 40]],
      }),
  },
  {
    name: 'fret-unregistered-vehicle-near-miss',
    ruleId: 'FRET_UNREGISTERED_VEHICLE',
    pack,
    article: 'Art. 26',
    expect: 'quiet',
    summary: 'An active bus of an authorized operator carries passengers',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 7,
        date: tuesday,
        time: '07:00:00',
        fields: { passengers: 20, ...tachoAt(40, ctx) },
        segments: [[60, 40]],
      }),
  },
  {
    name: 'fret-vehicle-too-old',
    ruleId: 'FRET_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 5',
    expect: 'fires',
    summary: 'A bus made 16 years ago in operation (limit 15)',
    confidence: 'confirmed',
    measured: { ageYears: 16, maxAgeYears: 15 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 8,
        date: tuesday,
        time: '07:00:00',
        vehicle: { manufactureYear: year(ctx) - 16, lastInspectionDate: addDays(tuesday(ctx), -30) },
        fields: tachoAt(40, ctx),
        segments: [[60, 40]],
      }),
  },
  {
    name: 'fret-vehicle-too-old-near-miss',
    ruleId: 'FRET_VEHICLE_TOO_OLD',
    pack,
    article: 'Art. 5',
    expect: 'quiet',
    summary: 'A bus made 15 years ago (at the limit)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 9,
        date: tuesday,
        time: '07:00:00',
        vehicle: { manufactureYear: year(ctx) - 15, lastInspectionDate: addDays(tuesday(ctx), -30) },
        fields: tachoAt(40, ctx),
        segments: [[60, 40]],
      }),
  },
  {
    name: 'fret-tachograph-missing',
    ruleId: 'FRET_TACHOGRAPH_MISSING',
    pack,
    article: 'Art. 14',
    expect: 'fires',
    summary: '11 min of driving without tachograph data (tachograph linked in the registry)',
    confidence: 'confirmed',
    measured: { minMovingSeconds: 600, trackerReadsTachograph: true },
    build: (ctx) => driving(ctx, { pack, site: 10, date: tuesday, time: '07:00:00', segments: [[660, 40]] }),
  },
  {
    name: 'fret-tachograph-missing-near-miss',
    ruleId: 'FRET_TACHOGRAPH_MISSING',
    pack,
    article: 'Art. 14',
    expect: 'quiet',
    summary: '9 min without tachograph data, then the tachograph reports',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 11,
        date: tuesday,
        time: '07:00:00',
        segments: [
          [540, 40],
          [180, 40],
        ],
        segmentFields: [undefined, tachoAt(40, ctx)],
      }),
  },
  {
    name: 'fret-tachograph-mismatch',
    ruleId: 'FRET_TACHOGRAPH_MISMATCH',
    pack,
    article: 'Art. 26',
    expect: 'fires',
    summary: 'Tachograph 48 km/h while GPS says 60 km/h (20 % apart) for 90 s',
    confidence: 'suspected',
    measured: { meanGpsSpeedKmh: 60, meanTachographSpeedKmh: 48, maxDeviationFraction: 0.2 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 12,
        date: tuesday,
        time: '07:00:00',
        fields: tachoAt(48, ctx),
        segments: [[90, 60]],
      }),
  },
  {
    name: 'fret-tachograph-mismatch-near-miss',
    ruleId: 'FRET_TACHOGRAPH_MISMATCH',
    pack,
    article: 'Art. 26',
    expect: 'quiet',
    summary: 'Tachograph 55 km/h while GPS says 60 km/h (8 % apart) for 90 s',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 13,
        date: tuesday,
        time: '07:00:00',
        fields: tachoAt(55, ctx),
        segments: [[90, 60]],
      }),
  },
  {
    name: 'fret-unsafe-driving',
    ruleId: 'FRET_UNSAFE_DRIVING',
    pack,
    article: 'Art. 26',
    expect: 'fires',
    summary: '95 km/h for 30 s (limit 80 km/h)',
    confidence: 'confirmed',
    measured: { limitKmh: 80, maxSpeedKmh: 95, speedSource: 'gps' },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 14,
        date: tuesday,
        time: '07:00:00',
        fields: tachoAt(70, ctx),
        segments: [
          [20, 70],
          [30, 95],
          [20, 70],
        ],
        segmentFields: [undefined, tachoAt(95, ctx), tachoAt(70, ctx)],
      }),
  },
  {
    name: 'fret-unsafe-driving-near-miss',
    ruleId: 'FRET_UNSAFE_DRIVING',
    pack,
    article: 'Art. 26',
    expect: 'quiet',
    summary: '95 km/h for 15 s only (the rule needs 20 s)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 15,
        date: tuesday,
        time: '07:00:00',
        fields: tachoAt(70, ctx),
        segments: [
          [20, 70],
          [15, 95],
          [30, 70],
        ],
        segmentFields: [undefined, tachoAt(95, ctx), tachoAt(70, ctx)],
      }),
  },
  {
    name: 'fret-unsafe-driving-tolerance-near-miss',
    ruleId: 'FRET_UNSAFE_DRIVING',
    pack,
    article: 'Art. 26',
    expect: 'quiet',
    summary: '87 km/h for 40 s under the 80 km/h default: within the 7 km/h measurement tolerance',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 65,
        date: tuesday,
        time: '07:00:00',
        fields: tachoAt(70, ctx),
        segments: [
          [20, 70],
          [40, 87],
          [20, 70],
        ],
        segmentFields: [undefined, tachoAt(87, ctx), tachoAt(70, ctx)],
      }),
  },
  {
    name: 'fret-unsafe-driving-zone-raised',
    ruleId: 'FRET_UNSAFE_DRIVING',
    pack,
    article: 'Art. 26',
    expect: 'fires',
    summary: '110 km/h for 30 s on a stretch a speed-limit zone sets at 100 km/h (limit 100 + 7 tolerance)',
    confidence: 'confirmed',
    measured: { limitKmh: 100, limitSource: 'zone', toleranceKmh: 7, thresholdKmh: 107, maxSpeedKmh: 110 },
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 66,
        date: tuesday,
        time: '07:00:00',
        registry: speedLimitZone(pack, 100),
        fields: tachoAt(90, ctx),
        segments: [
          [20, 90],
          [30, 110],
          [20, 90],
        ],
        segmentFields: [undefined, tachoAt(110, ctx), tachoAt(90, ctx)],
      }),
  },
  {
    name: 'fret-unsafe-driving-zone-raised-near-miss',
    ruleId: 'FRET_UNSAFE_DRIVING',
    pack,
    article: 'Art. 26',
    expect: 'quiet',
    summary: '105 km/h for 40 s where a speed-limit zone raises the limit to 100 km/h (above the 80 km/h default)',
    build: (ctx) =>
      driving(ctx, {
        pack,
        site: 67,
        date: tuesday,
        time: '07:00:00',
        registry: speedLimitZone(pack, 100),
        fields: tachoAt(90, ctx),
        segments: [
          [20, 90],
          [40, 105],
          [20, 90],
        ],
        segmentFields: [undefined, tachoAt(105, ctx), tachoAt(90, ctx)],
      }),
  },
  {
    name: 'fret-route-deviation',
    ruleId: 'FRET_ROUTE_DEVIATION',
    pack,
    article: 'Art. 20',
    expect: 'fires',
    summary: 'A bus under contract runs 800 m off its declared route for 2 min 20 s (now)',
    confidence: 'confirmed',
    measured: { maxDistanceFromRouteM: 800, thresholdM: 500 },
    build: (ctx) => routeRun(ctx, { site: 16, offM: 800, offS: 140 }),
  },
  {
    name: 'fret-route-deviation-near-miss',
    ruleId: 'FRET_ROUTE_DEVIATION',
    pack,
    article: 'Art. 20',
    expect: 'quiet',
    summary: 'The same bus 400 m off its route (the rule needs more than 500 m)',
    build: (ctx) => routeRun(ctx, { site: 17, offM: 400, offS: 140 }),
  },
  {
    name: 'fret-route-deviation-positioning-run-near-miss',
    ruleId: 'FRET_ROUTE_DEVIATION',
    pack,
    article: 'Art. 20',
    expect: 'quiet',
    summary: 'The same bus 800 m off its route for 2 min 20 s, empty (count 0, door closed): a positioning run',
    build: (ctx) =>
      routeRun(ctx, {
        site: 68,
        offM: 800,
        offS: 140,
        fields: { passengers: 0, doorOpen: false, tacho: { speedKmh: 60, driverId: `MOT-${ctx.runId}` } },
      }),
  },
  {
    name: 'fret-route-deviation-no-count',
    ruleId: 'FRET_ROUTE_DEVIATION',
    pack,
    article: 'Art. 20',
    expect: 'fires',
    summary:
      'A bus with no passenger counter opens its door at the declared boarding place, then runs 600 m off its route for 2 min 10 s: suspected',
    confidence: 'suspected',
    measured: { loadEvidence: 'door-opened-no-count', thresholdM: 500 },
    build: (ctx) =>
      routeRun(ctx, {
        site: 69,
        offM: 600,
        offS: 130,
        doorOpenAtStartS: 15,
        fields: { doorOpen: false, tacho: { speedKmh: 60, driverId: `MOT-${ctx.runId}` } },
      }),
  },
  {
    name: 'fret-regular-service-pattern',
    ruleId: 'FRET_REGULAR_SERVICE_PATTERN',
    pack,
    article: 'Art. 18',
    expect: 'fires',
    summary: 'One charter trip boards passengers at 3 distinct regular-service stops',
    confidence: 'confirmed',
    measured: { distinctStops: 3, confirmedDistinctStops: 3 },
    build: (ctx) => stopsRun(ctx, { site: 18, stops: 3, boardAt: 3, dwellS: 20 }),
  },
  {
    name: 'fret-regular-service-pattern-near-miss',
    ruleId: 'FRET_REGULAR_SERVICE_PATTERN',
    pack,
    article: 'Art. 18',
    expect: 'quiet',
    summary: 'The same trip boards at 2 stops and passes the third',
    build: (ctx) => stopsRun(ctx, { site: 19, stops: 3, boardAt: 2, dwellS: 20 }),
  },
  {
    name: 'fret-regular-service-pattern-suspected-near-miss',
    ruleId: 'FRET_REGULAR_SERVICE_PATTERN',
    pack,
    article: 'Art. 29',
    expect: 'quiet',
    summary:
      'A bus with no passenger counter opens its door 20 s at 3 regular stops of one trip: 3 suspected boardings never make a pattern',
    build: (ctx) =>
      stopPhasesRun(ctx, {
        site: 70,
        stops: 3,
        base: { doorOpen: false },
        phases: [[20, { doorOpen: true }]],
        after: () => ({ doorOpen: false }),
      }),
  },
];
