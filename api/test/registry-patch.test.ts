import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type CollectionSpec, patchSchemaOf } from '../src/registry/collection.js';
import * as collections from '../src/registry/collections.js';
import { api, startTestSystem, type TestSystem } from './support.js';

/**
 * Issue 8 finding 3: `PATCH /v1/vehicles/:id {colour}` turned a suspended vehicle active, emptied
 * its drivers and reset tachographLinked (zod fills a `.default()` inside `.partial()`). For EVERY
 * registry collection: a record is created with every field set to a value that is not the
 * schema's default, then each field in turn is patched alone; after each PATCH that field holds
 * its new value and every other field is unchanged. The fields and collections come from the
 * specs, so a new field or collection fails here until its fixture says what to set it to.
 */

const run = Math.random().toString(36).slice(2, 7);
const pick = (chars: string) => chars[Math.floor(Math.random() * chars.length)] as string;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** A Mercosul plate, random enough not to meet another run's (plates are unique among current vehicles). */
const plate = (n: number) =>
  `P${pick(LETTERS)}${pick(LETTERS)}${n}${pick(LETTERS)}${Math.floor(Math.random() * 90) + 10}`;
/** A date no real unit value has, random per run ((unit, validFrom) is unique). */
const oldDate = (decade: number) =>
  `19${decade}${Math.floor(Math.random() * 10)}-0${Math.floor(Math.random() * 9) + 1}-1${Math.floor(Math.random() * 9)}`;
const square = (lon: number, lat: number, d = 0.001) => ({
  type: 'Polygon',
  coordinates: [
    [
      [lon, lat],
      [lon + d, lat],
      [lon + d, lat + d],
      [lon, lat + d],
      [lon, lat],
    ],
  ],
});
const place = (id: string, lat: number) => ({ id, name: `Place ${id}`, lat, lon: -46.63, radiusM: 80 });

/** Records the fixtures refer to (created first). */
const prerequisites = {
  operators: [
    { id: `pp-op1-${run}`, name: 'Patch prerequisite 1', pack: 'sp-fretamento' },
    { id: `pp-op2-${run}`, name: 'Patch prerequisite 2', pack: 'sp-fretamento' },
  ],
  vehicles: [
    { id: `pp-veh1-${run}`, plate: plate(1), pack: 'sp-fretamento', serviceType: 'fretamento-continuo', capacity: 40 },
    { id: `pp-veh2-${run}`, plate: plate(2), pack: 'sp-fretamento', serviceType: 'fretamento-continuo', capacity: 40 },
  ],
};
const op1 = prerequisites.operators[0]!.id;
const op2 = prerequisites.operators[1]!.id;
const veh1 = prerequisites.vehicles[0]!.id;
const veh2 = prerequisites.vehicles[1]!.id;

/**
 * Per collection: `create`, every field set and none to its default; `patch`, for every field a
 * different value in the form the API returns it (so the patched record can be compared);
 * `together`, fields that are only valid changed together (a device's profile belongs to its
 * protocol), patched in one body.
 */
const fixtures: Record<
  string,
  { create: Record<string, unknown>; patch: Record<string, unknown>; together?: string[][] }
> = {
  operators: {
    create: {
      name: 'Rádio Patch A',
      pack: 'belem-taxi',
      kind: 'radio-operator',
      document: '12.345.678/0001-90',
      status: 'suspended',
      registrationValidUntil: '2027-01-31',
      credentialValidUntil: '2027-02-28',
      declaredVehicleIds: ['veh-x', 'veh-y'],
    },
    patch: {
      name: 'Rádio Patch B',
      pack: 'df-taxi',
      kind: 'cooperative',
      document: '98.765.432/0001-10',
      status: 'withdrawn',
      registrationValidUntil: '2028-01-31',
      credentialValidUntil: '2028-02-29',
      declaredVehicleIds: ['veh-z'],
    },
  },
  vehicles: {
    create: {
      plate: plate(3),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      manufactureYear: 2020,
      make: 'Toyota Corolla',
      colour: 'white',
      operatorId: op1,
      permitNumber: 'P-1',
      permitValidUntil: '2027-03-31',
      lastInspectionDate: '2026-06-01',
      divValidUntil: '2027-04-30',
      driverIds: ['drv-a', 'drv-b'],
      status: 'suspended',
      modelYear: 2021,
      permitKind: 'autonomous',
      inspectionValidUntil: '2027-06-01',
      safetyCertificateValidUntil: '2027-07-01',
      ageExtensionValidUntil: '2027-08-01',
      tachographLinked: true,
      permitStatus: 'suspended',
      specialTariffService: true,
    },
    patch: {
      plate: plate(4),
      pack: 'belem-taxi',
      serviceType: 'particular',
      capacity: 6,
      manufactureYear: 2018,
      make: 'Fiat Cronos',
      colour: 'silver',
      operatorId: op2,
      permitNumber: 'P-2',
      permitValidUntil: '2028-03-31',
      lastInspectionDate: '2026-09-01',
      divValidUntil: '2028-04-30',
      driverIds: ['drv-c'],
      status: 'withdrawn',
      modelYear: 2019,
      permitKind: 'company',
      inspectionValidUntil: '2028-06-01',
      safetyCertificateValidUntil: '2028-07-01',
      ageExtensionValidUntil: '2028-08-01',
      tachographLinked: false,
      permitStatus: 'cancelled',
      specialTariffService: false,
    },
  },
  drivers: {
    create: {
      name: 'Driver A',
      document: '123.456.789-00',
      licenceNumber: 'CNH-1',
      operatorId: op1,
      status: 'suspended',
      pack: 'df-taxi',
      matriculaValidUntil: '2027-01-01',
      badgeValidUntil: '2027-02-01',
    },
    patch: {
      name: 'Driver B',
      document: '987.654.321-00',
      licenceNumber: 'CNH-2',
      operatorId: op2,
      status: 'withdrawn',
      pack: 'belem-taxi',
      matriculaValidUntil: '2028-01-01',
      badgeValidUntil: '2028-02-01',
    },
  },
  devices: {
    create: { vehicleId: veh1, protocol: 'teltonika', identifier: `35${run}0001`, profile: 'teltonika-default' },
    patch: { vehicleId: veh2, protocol: 'osmand', identifier: `35${run}0002`, profile: 'osmand-traccar-client' },
    together: [['protocol', 'profile']],
  },
  users: {
    create: { name: 'User A', role: 'dispatcher', operatorIds: [op1] },
    patch: { name: 'User B', role: 'operator', operatorIds: [op2, op1] },
  },
  stops: {
    create: { name: 'Stop A', lat: -23.55, lon: -46.63, source: `feed-a-${run}` },
    patch: { name: 'Stop B', lat: -23.56, lon: -46.64, source: `feed-b-${run}` },
  },
  stands: {
    create: {
      pack: 'df-taxi',
      name: 'Stand A',
      geometry: { type: 'Point', coordinates: [-47.88, -15.79] },
      radiusM: 40,
      places: 5,
      kind: 'fixo',
      holderVehicleIds: ['veh-h1'],
      holderOperatorIds: ['op-h1'],
    },
    patch: {
      pack: 'belem-taxi',
      name: 'Stand B',
      geometry: square(-48.49, -1.45),
      radiusM: 25,
      places: 3,
      kind: 'livre',
      holderVehicleIds: ['veh-h2', 'veh-h3'],
      holderOperatorIds: ['op-h2'],
    },
  },
  zones: {
    create: { pack: 'df-taxi', kind: 'speed-limit', name: 'Zone A', geometry: square(-47.9, -15.8), speedLimitKmh: 40 },
    patch: { pack: 'belem-taxi', kind: 'airport', name: 'Zone B', geometry: square(-48.48, -1.38), speedLimitKmh: 60 },
  },
  contracts: {
    create: {
      operatorId: op1,
      kind: 'fretamento-continuo',
      vehicleIds: [veh1],
      client: 'Client A',
      route: {
        type: 'LineString',
        coordinates: [
          [-46.63, -23.55],
          [-46.64, -23.56],
        ],
      },
      boardingPlaces: [place('b1', -23.55)],
      alightingPlaces: [place('a1', -23.56)],
      schedule: [{ daysOfWeek: [1, 2, 3], dates: ['2026-12-24'], start: '07:00', end: '09:00' }],
      validFrom: '2026-01-01',
      validUntil: '2027-12-31',
      otherCompanyAuthorizations: [{ vehicleId: veh2, reference: 'AUT-1', validUntil: '2027-06-30' }],
    },
    patch: {
      operatorId: op2,
      kind: 'fretamento-eventual',
      vehicleIds: [veh2, veh1],
      client: 'Client B',
      route: {
        type: 'LineString',
        coordinates: [
          [-46.6, -23.5],
          [-46.7, -23.6],
          [-46.8, -23.7],
        ],
      },
      boardingPlaces: [place('b2', -23.57)],
      alightingPlaces: [place('a2', -23.58), place('a3', -23.59)],
      schedule: [{ daysOfWeek: [6], dates: [], start: '22:00', end: '02:00' }],
      validFrom: '2026-02-01',
      validUntil: '2028-12-31',
      otherCompanyAuthorizations: [{ vehicleId: veh1, reference: 'AUT-2', validUntil: null }],
    },
  },
  holidays: {
    create: { pack: 'df-taxi', date: '2026-12-08', name: 'Holiday A', kind: 'remove' },
    patch: { pack: 'belem-taxi', date: '2026-12-09', name: 'Holiday B', kind: 'add' },
  },
  'unit-values': {
    // Dates far from any real value, unique per run (unit and validFrom are a unique key).
    create: { unit: 'UPDF', valueBrl: 12.34, validFrom: oldDate(3) },
    patch: { unit: 'ORTN', valueBrl: 56.78, validFrom: oldDate(5) },
  },
};

type AnySpec = CollectionSpec<z.ZodObject>;
const specs: AnySpec[] = (Object.values(collections) as unknown[]).filter(
  (v): v is AnySpec => typeof v === 'object' && v !== null && 'createSchema' in v && 'columns' in v,
);
const fieldsOf = (spec: AnySpec) => Object.keys(spec.columns as Record<string, string>);

/** Fields the store adds or the presentation derives; a PATCH of a registry field leaves them alone too. */
const moving = new Set(['updatedAt']);

describe('PATCH changes only the fields in its body, on every registry collection', () => {
  it('the fixtures cover every collection and every field, none at its default', () => {
    expect(specs.length).toBeGreaterThanOrEqual(11);
    for (const spec of specs) {
      const fixture = fixtures[spec.name];
      expect(fixture, `no fixture for collection ${spec.name}`).toBeDefined();
      if (!fixture) continue;
      expect(Object.keys(fixture.create).sort(), spec.name).toEqual(fieldsOf(spec).sort());
      expect(Object.keys(fixture.patch).sort(), spec.name).toEqual(fieldsOf(spec).sort());
      const shape = spec.createSchema.shape as Record<string, z.ZodType>;
      for (const field of fieldsOf(spec)) {
        const absent = shape[field]?.safeParse(undefined);
        const fallback = absent?.success ? absent.data : undefined;
        expect(fixture.create[field], `${spec.name}.${field} is set`).not.toBeNull();
        expect(fixture.create[field], `${spec.name}.${field} is not its default`).not.toEqual(fallback);
        expect(fixture.patch[field], `${spec.name}.${field} is patched to another value`).not.toEqual(
          fixture.create[field],
        );
      }
    }
  });

  it('no patch schema fills a default: an empty body parses to nothing', () => {
    for (const spec of specs) {
      expect(patchSchemaOf(spec.createSchema).parse({}), spec.name).toEqual({});
      // A field named alone comes back alone.
      const [field] = fieldsOf(spec);
      const value = fixtures[spec.name]?.patch[field as string];
      expect(Object.keys(patchSchemaOf(spec.createSchema).parse({ [field as string]: value })), spec.name).toEqual([
        field,
      ]);
    }
  });

  // Both databases: the update is typed by the database (jsonb_populate_record).
  describe.each(['postgres', 'pglite'] as const)('over HTTP, on %s', (target) => {
    let sys: TestSystem;
    beforeAll(async () => {
      sys = await startTestSystem(target);
      for (const [name, items] of Object.entries(prerequisites)) {
        const res = await api(sys, 'POST', `/v1/${name}`, items);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
    });
    afterAll(async () => {
      await sys?.stop();
    });

    for (const name of Object.keys(fixtures)) {
      it(`${name}: each field patched alone; every other field keeps its value`, async () => {
        const spec = specs.find((s) => s.name === name);
        expect(spec).toBeDefined();
        const fixture = fixtures[name]!;
        const created = await api<Record<string, unknown>>(sys, 'POST', `/v1/${name}`, fixture.create);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const id = created.body.id as string;
        let before = (await api<Record<string, unknown>>(sys, 'GET', `/v1/${name}/${id}`)).body;
        // As created: every field as given (the fixtures are in the form the API returns).
        for (const field of fieldsOf(spec!))
          expect(before[field], `${name}.${field} as created`).toEqual(fixture.create[field]);

        const grouped = new Set((fixture.together ?? []).flat());
        const steps = [
          ...fieldsOf(spec!)
            .filter((f) => !grouped.has(f))
            .map((f) => [f]),
          ...(fixture.together ?? []),
        ];
        for (const fields of steps) {
          const body = Object.fromEntries(fields.map((f) => [f, fixture.patch[f]]));
          const label = `PATCH ${name} ${JSON.stringify(body)}`;
          const patched = await api<Record<string, unknown>>(sys, 'PATCH', `/v1/${name}/${id}`, body);
          expect(patched.status, `${label}: ${JSON.stringify(patched.body)}`).toBe(200);
          const after = (await api<Record<string, unknown>>(sys, 'GET', `/v1/${name}/${id}`)).body;
          for (const f of fields) expect(after[f], `${name}.${f} patched`).toEqual(fixture.patch[f]);
          const others = (r: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(r).filter(([k]) => !fields.includes(k) && !moving.has(k)));
          expect(others(after), `${label} changed nothing else`).toEqual(others(before));
          before = after;
        }
      });
    }
  });
});
