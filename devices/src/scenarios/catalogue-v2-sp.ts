import { offsetM } from '../geo.js';
import { RegistryBuilder } from './registry.js';
import { site } from './sites.js';
import { addDays, describeLocal, localInstantMs, pastOrdinaryDate } from './time.js';
import { Trace } from './trace.js';
import type { BuildContext, Scenario, ScenarioPlan } from './types.js';

/**
 * São Paulo charter-bus rules of RULES.md "Catalogue v2" (Art. 10–12, 20, 23 II, 24 II, 26 V).
 * Sites from 100 on, clear of the first catalogue's scenarios. Local time: America/Sao_Paulo.
 */

const pack = 'sp-fretamento' as const;
const tuesday = (ctx: BuildContext) => pastOrdinaryDate(ctx.nowMs, 2, 7);

interface BusRunOptions {
  site: number;
  /** Local start time on the Tuesday. */
  time: string;
  vehicle?: Record<string, unknown>;
  /** Registry additions made before the bus (operators, drivers, contracts), given the builder. */
  before?: (reg: RegistryBuilder, busId: string) => Record<string, unknown> | undefined;
  passengers?: number;
  driverId?: (reg: RegistryBuilder) => string;
  /** [seconds, km/h, extra fields] segments driven east. */
  segments: [number, number, Record<string, unknown>?][];
}

/** A bus driving east in segments on an ordinary Tuesday; tachograph on. */
function busRun(ctx: BuildContext, o: BusRunOptions): ScenarioPlan {
  const reg = new RegistryBuilder(ctx);
  const busId = reg.id('bus');
  const extra = o.before?.(reg, busId) ?? {};
  const { vehicleId, deviceId } = reg.vehicle('bus', pack, { ...extra, ...o.vehicle });
  const start = localInstantMs(tuesday(ctx), o.time);
  const driverId = o.driverId?.(reg) ?? `MOT-${ctx.runId}`;
  const t = new Trace(deviceId, start, site(pack, o.site), {
    ...(o.passengers === undefined ? {} : { passengers: o.passengers }),
    doorOpen: false,
    tacho: { speedKmh: 0, driverId },
  });
  t.emit();
  for (const [seconds, speed, fields] of o.segments) {
    t.drive(seconds, speed, 90, { tacho: { speedKmh: speed, driverId }, ...fields });
  }
  t.stay(30, { tacho: { speedKmh: 0, driverId } });
  return { registry: reg.steps, samples: t.samples, dispatches: [], vehicleId, when: describeLocal(start) };
}

/** A contract of `operatorId` listing the bus, Monday to Friday 07:00–08:00, in force for a month before the Tuesday. */
function contractOf(
  ctx: BuildContext,
  reg: RegistryBuilder,
  busId: string,
  operatorId: string,
  siteIndex: number,
  extra: Record<string, unknown> = {},
) {
  const start = site(pack, siteIndex);
  const end = offsetM(start, 0, 20_000);
  reg.add('contracts', {
    id: reg.id('contract'),
    operatorId,
    kind: 'fretamento-continuo',
    vehicleIds: [busId],
    client: 'Scenario client',
    route: {
      type: 'LineString',
      coordinates: [start, end].map((p) => [Number(p.lon.toFixed(7)), Number(p.lat.toFixed(7))]),
    },
    boardingPlaces: [{ name: 'Scenario bolsão', lat: start.lat, lon: start.lon, radiusM: 80 }],
    schedule: [{ daysOfWeek: [1, 2, 3, 4, 5], start: '07:00', end: '08:00' }],
    validFrom: addDays(tuesday(ctx), -30),
    ...extra,
  });
}

export const catalogueV2SpScenarios: Scenario[] = [
  {
    name: 'fret-no-contract-in-force',
    ruleId: 'FRET_NO_CONTRACT_IN_FORCE',
    pack,
    article: 'Art. 10',
    expect: 'fires',
    summary: 'A fretamento-contínuo bus with no contract carries 25 passengers for 90 s of driving',
    confidence: 'confirmed',
    measured: { passengersMax: 25, contractsCovering: 0 },
    build: (ctx) => busRun(ctx, { site: 100, time: '07:30:00', passengers: 25, segments: [[90, 40]] }),
  },
  {
    name: 'fret-no-contract-in-force-near-miss',
    ruleId: 'FRET_NO_CONTRACT_IN_FORCE',
    pack,
    article: 'Art. 10',
    expect: 'quiet',
    summary: 'The same run at 08:20, 20 min after its contract window (07:00–08:00) closed: inside the 30 min margin',
    build: (ctx) =>
      busRun(ctx, {
        site: 101,
        time: '08:20:00',
        passengers: 25,
        segments: [[90, 40]],
        before: (reg, busId) => {
          const op = reg.operator('op', pack);
          contractOf(ctx, reg, busId, op, 101);
          return { operatorId: op };
        },
      }),
  },
  {
    name: 'fret-no-contract-particular-near-miss',
    ruleId: 'FRET_NO_CONTRACT_IN_FORCE',
    pack,
    article: 'Art. 10',
    expect: 'quiet',
    summary: 'A serviço particular bus (Art. 12), driven by an employee, carries its own staff without any contract',
    build: (ctx) =>
      busRun(ctx, {
        site: 102,
        time: '07:30:00',
        passengers: 25,
        vehicle: { serviceType: 'particular' },
        segments: [[90, 40]],
        // Driven by an employee of the company (Art. 12 sole paragraph), so nothing else is at stake.
        driverId: (reg) => reg.id('employee'),
        before: (reg) => {
          const op = reg.operator('op', pack, { kind: 'private-fleet' });
          reg.add('drivers', { id: reg.id('employee'), name: 'Scenario employee', pack, operatorId: op });
          return { operatorId: op };
        },
      }),
  },
  {
    name: 'fret-door-open-moving',
    ruleId: 'FRET_DOOR_OPEN_MOVING',
    pack,
    article: 'Art. 26 V',
    expect: 'fires',
    summary: 'A door open for 10 s while the bus drives at 30 km/h',
    confidence: 'confirmed',
    measured: { doorOpenSeconds: 10, minSeconds: 5, minSpeedKmh: 10 },
    build: (ctx) =>
      busRun(ctx, {
        site: 103,
        time: '07:30:00',
        segments: [
          [20, 30],
          [15, 30, { doorOpen: true }],
          [20, 30],
        ],
      }),
  },
  {
    name: 'fret-door-open-moving-near-miss',
    ruleId: 'FRET_DOOR_OPEN_MOVING',
    pack,
    article: 'Art. 26 V',
    expect: 'quiet',
    summary: 'One sample of a bouncing door sensor at 30 km/h (0 s open), and 30 s open at exactly 10 km/h',
    build: (ctx) =>
      busRun(ctx, {
        site: 104,
        time: '07:30:00',
        segments: [
          [20, 30],
          [5, 30, { doorOpen: true }],
          [20, 30],
          [30, 10, { doorOpen: true }],
          [20, 30],
        ],
      }),
  },
  {
    name: 'fret-driver-not-authorized',
    ruleId: 'FRET_DRIVER_NOT_AUTHORIZED',
    pack,
    article: 'Art. 23 II',
    expect: 'fires',
    summary: 'The tachograph identifies a driver whose removal the regulator required (status withdrawn)',
    confidence: 'confirmed',
    measured: { driverStatus: 'withdrawn', basis: 'Art. 23 II' },
    build: (ctx) =>
      busRun(ctx, {
        site: 105,
        time: '07:30:00',
        segments: [[60, 40]],
        driverId: (reg) => reg.id('removed'),
        before: (reg) => {
          const op = reg.operator('op', pack);
          reg.add('drivers', {
            id: reg.id('removed'),
            name: 'Scenario removed driver',
            pack,
            operatorId: op,
            status: 'withdrawn',
          });
          return { operatorId: op };
        },
      }),
  },
  {
    name: 'fret-driver-not-authorized-near-miss',
    ruleId: 'FRET_DRIVER_NOT_AUTHORIZED',
    pack,
    article: 'Art. 12',
    expect: 'quiet',
    summary: 'A serviço particular bus driven by an employee of its own company (Art. 12 sole paragraph)',
    build: (ctx) =>
      busRun(ctx, {
        site: 106,
        time: '07:30:00',
        vehicle: { serviceType: 'particular' },
        segments: [[60, 40]],
        driverId: (reg) => reg.id('employee'),
        before: (reg) => {
          const op = reg.operator('op', pack, { kind: 'private-fleet' });
          reg.add('drivers', { id: reg.id('employee'), name: 'Scenario employee', pack, operatorId: op });
          return { operatorId: op };
        },
      }),
  },
  {
    name: 'fret-vehicle-of-another-company',
    ruleId: 'FRET_VEHICLE_OF_ANOTHER_COMPANY',
    pack,
    article: 'Art. 24 II',
    expect: 'fires',
    summary: "Company B's contract run by company A's bus, with no authorization on record",
    confidence: 'suspected',
    measured: { authorizationOnRecord: false, passengersMax: 25 },
    build: (ctx) =>
      busRun(ctx, {
        site: 107,
        time: '07:30:00',
        passengers: 25,
        segments: [[90, 40]],
        before: (reg, busId) => {
          const a = reg.operator('op-a', pack);
          const b = reg.operator('op-b', pack);
          contractOf(ctx, reg, busId, b, 107);
          return { operatorId: a };
        },
      }),
  },
  {
    name: 'fret-vehicle-of-another-company-near-miss',
    ruleId: 'FRET_VEHICLE_OF_ANOTHER_COMPANY',
    pack,
    article: 'Art. 24 II',
    expect: 'quiet',
    summary: "The same, with the regulator's authorization for the bus valid until that very day",
    build: (ctx) =>
      busRun(ctx, {
        site: 108,
        time: '07:30:00',
        passengers: 25,
        segments: [[90, 40]],
        before: (reg, busId) => {
          const a = reg.operator('op-a', pack);
          const b = reg.operator('op-b', pack);
          contractOf(ctx, reg, busId, b, 108, {
            otherCompanyAuthorizations: [{ vehicleId: busId, reference: 'SNM scenario', validUntil: tuesday(ctx) }],
          });
          return { operatorId: a };
        },
      }),
  },
];
