import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

/**
 * Issue 8, finding 8 (registry parts): operators and dispatchers saw EMPTY reference data; errors
 * carried the database's own text (`is not present in table "operators"`); self-intersecting
 * zones and stands were accepted.
 */

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}
interface Page {
  items: { id: string }[];
}

const run = Math.random().toString(36).slice(2, 7);
const OP_A = `ha-op-a-${run}`;
const OP_B = `ha-op-b-${run}`;
const square = (lon: number, lat: number, d = 0.001) => [
  [lon, lat],
  [lon + d, lat],
  [lon + d, lat + d],
  [lon, lat + d],
  [lon, lat],
];
/** A bow-tie: the ring's second and fourth segments cross. */
const bowTie = (lon: number, lat: number, d = 0.001) => [
  [lon, lat],
  [lon + d, lat + d],
  [lon + d, lat],
  [lon, lat + d],
  [lon, lat],
];

/** No database wording: table or constraint names, PostgreSQL's `Key (...)=(...)`. */
function expectOwnWording(body: unknown): void {
  const text = JSON.stringify(body);
  expect(text, text).not.toMatch(
    /\btable\b|constraint|Key \(|violates|\b[a-z]+_id\b|relation|unicode escape|invalid input/i,
  );
}

// Both databases: the error translation reads what each driver reports.
describe.each(['postgres', 'pglite'] as const)('registry hardening on %s', (target) => {
  let sys: TestSystem;
  const tokens: Record<'operator' | 'dispatcher', string> = { operator: '', dispatcher: '' };
  const reference: Record<string, string> = {};
  let vehicleOfB = '';

  beforeAll(async () => {
    sys = await startTestSystem(target);
    const ops = await api(sys, 'POST', '/v1/operators', [
      { id: OP_A, name: 'Operator A', pack: 'df-taxi' },
      { id: OP_B, name: 'Operator B', pack: 'df-taxi' },
    ]);
    expect(ops.status).toBe(201);
    const vehicle = await api<{ id: string }>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      operatorId: OP_B,
    });
    expect(vehicle.status).toBe(201);
    vehicleOfB = vehicle.body.id;
    for (const role of ['operator', 'dispatcher'] as const) {
      const user = await api<{ token: string }>(sys, 'POST', '/v1/users', { name: role, role, operatorIds: [OP_A] });
      expect(user.status).toBe(201);
      tokens[role] = user.body.token;
    }
    const created = await Promise.all([
      api<{ id: string }>(sys, 'POST', '/v1/stops', { name: 'Stop', lat: -15.79, lon: -47.88 }),
      api<{ id: string }>(sys, 'POST', '/v1/stands', {
        pack: 'df-taxi',
        name: 'Stand',
        geometry: { type: 'Polygon', coordinates: [square(-47.88, -15.79)] },
        places: 3,
        kind: 'livre',
      }),
      api<{ id: string }>(sys, 'POST', '/v1/zones', {
        pack: 'df-taxi',
        kind: 'airport',
        name: 'Zone',
        geometry: { type: 'Polygon', coordinates: [square(-47.92, -15.87, 0.01)] },
      }),
      api<{ id: string }>(sys, 'POST', '/v1/holidays', { pack: 'df-taxi', date: '2026-12-08', name: 'Holiday' }),
      api<{ id: string }>(sys, 'POST', '/v1/unit-values', { unit: 'UPDF', valueBrl: 3.5, validFrom: '1999-01-01' }),
    ]);
    for (const [i, name] of ['stops', 'stands', 'zones', 'holidays', 'unit-values'].entries()) {
      const res = created[i];
      expect(res?.status, `${name}: ${JSON.stringify(res?.body)}`).toBe(201);
      reference[name] = res?.body.id ?? '';
    }
  });
  afterAll(async () => {
    await sys?.stop();
  });

  describe('reference data is read in full by every role that may read it; scoped data stays scoped', () => {
    for (const role of ['operator', 'dispatcher'] as const) {
      it(`${role}: lists and gets stops, stands, zones, holidays and unit values`, async () => {
        for (const [name, id] of Object.entries(reference)) {
          const list = await api<Page>(sys, 'GET', `/v1/${name}?limit=1000`, undefined, tokens[role]);
          expect(list.status, name).toBe(200);
          expect(
            list.body.items.map((r) => r.id),
            name,
          ).toContain(id);
          const one = await api(sys, 'GET', `/v1/${name}/${id}`, undefined, tokens[role]);
          expect(one.status, name).toBe(200);
        }
      });

      it(`${role}: still does not see another operator's vehicle or operator record`, async () => {
        const list = await api<Page>(sys, 'GET', '/v1/vehicles?limit=1000', undefined, tokens[role]);
        expect(list.body.items.map((v) => v.id)).not.toContain(vehicleOfB);
        expect((await api(sys, 'GET', `/v1/vehicles/${vehicleOfB}`, undefined, tokens[role])).status).toBe(404);
        expect((await api(sys, 'GET', `/v1/operators/${OP_B}`, undefined, tokens[role])).status).toBe(404);
        const ops = await api<Page>(sys, 'GET', '/v1/operators', undefined, tokens[role]);
        expect(ops.body.items.map((o) => o.id)).toEqual([OP_A]);
      });
    }
  });

  describe('database errors answer in our words, naming the field', () => {
    it('an unknown operatorId is 422 REFERENCE_NOT_FOUND "operatorId \'x\' does not exist", on create and on PATCH', async () => {
      const create = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', {
        plate: nextPlate(),
        pack: 'df-taxi',
        serviceType: 'taxi',
        capacity: 4,
        operatorId: 'op-nowhere',
      });
      expect([create.status, create.body.error.code]).toEqual([422, 'REFERENCE_NOT_FOUND']);
      expect(create.body.error.message).toBe("operatorId 'op-nowhere' does not exist");
      expectOwnWording(create.body);
      const patch = await api<ErrorBody>(sys, 'PATCH', `/v1/vehicles/${vehicleOfB}`, { operatorId: 'op-nowhere' });
      expect([patch.status, patch.body.error.code]).toEqual([422, 'REFERENCE_NOT_FOUND']);
      expect(patch.body.error.message).toBe("operatorId 'op-nowhere' does not exist");
      const device = await api<ErrorBody>(sys, 'POST', '/v1/devices', {
        vehicleId: 'veh-nowhere',
        identifier: `I-${run}`,
      });
      expect(device.body.error.message).toBe("vehicleId 'veh-nowhere' does not exist");
      expectOwnWording(device.body);
    });

    it('a duplicate is 409 ALREADY_EXISTS naming the field, not the index', async () => {
      const dupId = await api<ErrorBody>(sys, 'POST', '/v1/operators', { id: OP_A, name: 'Again', pack: 'df-taxi' });
      expect([dupId.status, dupId.body.error.code]).toEqual([409, 'ALREADY_EXISTS']);
      expect(dupId.body.error.message).toContain(`id '${OP_A}'`);
      expectOwnWording(dupId.body);
      const plate = nextPlate();
      const v = { plate, pack: 'df-taxi', serviceType: 'taxi', capacity: 4 };
      expect((await api(sys, 'POST', '/v1/vehicles', v)).status).toBe(201);
      const dupPlate = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', v);
      expect([dupPlate.status, dupPlate.body.error.message]).toEqual([
        409,
        `A current record with plate '${plate}' already exists`,
      ]);
      expectOwnWording(dupPlate.body);
    });

    it('a table rule (a Point stand needs a radius) names the field; a NUL is 400, not 500', async () => {
      const stand = await api<ErrorBody>(sys, 'POST', '/v1/stands', {
        pack: 'df-taxi',
        name: 'Point without radius',
        geometry: { type: 'Point', coordinates: [-47.88, -15.79] },
        places: 2,
        kind: 'livre',
      });
      expect([stand.status, stand.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(stand.body.error.message).toContain('radiusM');
      expectOwnWording(stand.body);
      const nul = await api<ErrorBody>(sys, 'POST', '/v1/stops', { name: 'a\u0000b', lat: -15.79, lon: -47.88 });
      expect(nul.status).toBe(400);
      expect(nul.body.error.details).toEqual([expect.objectContaining({ path: 'name' })]);
      expectOwnWording(nul.body);
    });
  });

  describe('areas must be valid geometries: 400 INVALID_GEOMETRY naming the problem', () => {
    const zone = (coordinates: unknown, type = 'Polygon') => ({
      pack: 'df-taxi',
      kind: 'airport',
      name: 'Zone',
      geometry: { type, coordinates },
    });
    const cases: [string, unknown, RegExp][] = [
      ['a bow-tie zone', zone([bowTie(-47.9, -15.8)]), /crosses itself/],
      ['a ring not closed', zone([square(-47.9, -15.8).slice(0, 4)]), /closed|at least|too small|>=4|4/i],
      [
        'a ring of three positions',
        zone([
          [
            [-47.9, -15.8],
            [-47.8, -15.8],
            [-47.9, -15.8],
          ],
        ]),
        /./,
      ],
      ['a longitude out of range', zone([square(200, -15.8)]), /./],
      ['a hole outside its polygon', zone([square(-47.9, -15.8), square(-47.0, -15.0)]), /hole 1 lies outside/],
      [
        'a MultiPolygon whose polygons overlap',
        zone([[square(-47.9, -15.8, 0.01)], [square(-47.895, -15.795, 0.01)]], 'MultiPolygon'),
        /polygons 0 and 1 meet/,
      ],
    ];
    for (const [what, body, message] of cases) {
      it(`refuses ${what}`, async () => {
        const res = await api<ErrorBody>(sys, 'POST', '/v1/zones', body);
        expect([res.status, res.body.error.code], JSON.stringify(res.body)).toEqual([400, 'INVALID_GEOMETRY']);
        expect(res.body.error.message).toMatch(message);
      });
    }

    it('refuses a bow-tie stand, a PATCH to a bow-tie and an import with one', async () => {
      const stand = await api<ErrorBody>(sys, 'POST', '/v1/stands', {
        pack: 'df-taxi',
        name: 'Bow-tie stand',
        geometry: { type: 'Polygon', coordinates: [bowTie(-47.88, -15.79)] },
        places: 2,
        kind: 'livre',
      });
      expect([stand.status, stand.body.error.code]).toEqual([400, 'INVALID_GEOMETRY']);
      const patch = await api<ErrorBody>(sys, 'PATCH', `/v1/zones/${reference.zones}`, {
        geometry: { type: 'Polygon', coordinates: [bowTie(-47.9, -15.8)] },
      });
      expect([patch.status, patch.body.error.code]).toEqual([400, 'INVALID_GEOMETRY']);
      const imported = await api<ErrorBody>(sys, 'POST', '/v1/zones/import?pack=df-taxi', {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            geometry: { type: 'Polygon', coordinates: [square(-47.7, -15.7)] },
            properties: { kind: 'airport', name: 'ok' },
          },
          {
            type: 'Feature',
            geometry: { type: 'Polygon', coordinates: [bowTie(-47.6, -15.6)] },
            properties: { kind: 'airport', name: 'bad' },
          },
        ],
      });
      expect([imported.status, imported.body.error.code]).toEqual([400, 'INVALID_GEOMETRY']);
      expect(imported.body.error.details).toEqual([expect.objectContaining({ index: 1 })]);
    });

    it('accepts a polygon with a hole and a MultiPolygon of two apart', async () => {
      const withHole = await api(
        sys,
        'POST',
        '/v1/zones',
        zone([square(-47.9, -15.8, 0.01), square(-47.898, -15.798, 0.002)]),
      );
      expect(withHole.status).toBe(201);
      const multi = await api(
        sys,
        'POST',
        '/v1/zones',
        zone([[square(-47.9, -15.8, 0.01)], [square(-47.8, -15.7, 0.01)]], 'MultiPolygon'),
      );
      expect(multi.status).toBe(201);
    });
  });
});
