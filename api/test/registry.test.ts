import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

interface Page<T> {
  items: T[];
  next: string | null;
}
interface Vehicle {
  id: string;
  plate: string;
  operatorId: string;
  status: string;
  driverIds: string[];
  permitValidUntil: string | null;
  retiredAt: string | null;
  live: unknown;
}
interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

describe('registry API', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('postgres');
    const ops = await api(sys, 'POST', '/v1/operators', [
      { id: 'coop-df', name: 'Cooperativa Rádio Táxi DF', pack: 'df-taxi', kind: 'cooperative' },
      { id: 'fret-sp', name: 'Transportes Fretados SP', pack: 'sp-fretamento' },
    ]);
    expect(ops.status).toBe(201);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('creates many vehicles at once, lists them in pages, and filters', async () => {
    const created = await api<Vehicle[]>(
      sys,
      'POST',
      '/v1/vehicles',
      Array.from({ length: 7 }, (_, i) => ({
        plate: nextPlate(),
        pack: i < 5 ? 'df-taxi' : 'sp-fretamento',
        serviceType: i < 5 ? 'taxi' : 'fretamento-continuo',
        capacity: i < 5 ? 4 : 44,
        operatorId: i < 5 ? 'coop-df' : 'fret-sp',
        permitValidUntil: '2027-03-31',
      })),
    );
    expect(created.status).toBe(201);
    expect(created.body).toHaveLength(7);
    expect(created.body[0]).toMatchObject({ permitValidUntil: '2027-03-31', status: 'active', live: null });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: Page<Vehicle> } = await api<Page<Vehicle>>(
        sys,
        'GET',
        `/v1/vehicles?operatorId=coop-df&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((v) => v.id));
      cursor = page.body.next;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort()).toEqual(seen);
  });

  it('creates nothing when one item of a bulk request is invalid, and says which', async () => {
    const before = await api<Page<Vehicle>>(sys, 'GET', '/v1/vehicles?limit=1000');
    const res = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', [
      { plate: nextPlate(), pack: 'df-taxi', serviceType: 'taxi', capacity: 4 },
      { plate: 'not a plate', pack: 'df-taxi', serviceType: 'taxi', capacity: 4 },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details).toEqual([expect.objectContaining({ index: 1, path: 'plate' })]);
    const after = await api<Page<Vehicle>>(sys, 'GET', '/v1/vehicles?limit=1000');
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  it('answers 409 for a duplicate id or plate and 422 for an unknown operator', async () => {
    const plate = nextPlate();
    const first = await api(sys, 'POST', '/v1/vehicles', {
      id: 'veh-dup',
      plate,
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
    });
    expect(first.status).toBe(201);
    const sameId = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', {
      id: 'veh-dup',
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
    });
    expect([sameId.status, sameId.body.error.code]).toEqual([409, 'ALREADY_EXISTS']);
    const samePlate = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', {
      plate,
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
    });
    expect([samePlate.status, samePlate.body.error.code]).toEqual([409, 'ALREADY_EXISTS']);
    const noOp = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      operatorId: 'nobody',
    });
    expect([noOp.status, noOp.body.error.code]).toEqual([422, 'REFERENCE_NOT_FOUND']);
  });

  it('patches, retires (keeping history) and refuses to patch a retired vehicle', async () => {
    const v = await api<Vehicle>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
    });
    const patched = await api<Vehicle>(sys, 'PATCH', `/v1/vehicles/${v.body.id}`, {
      driverIds: ['drv-1', 'drv-2'],
      status: 'suspended',
    });
    expect(patched.body).toMatchObject({ driverIds: ['drv-1', 'drv-2'], status: 'suspended' });
    const badPatch = await api<ErrorBody>(sys, 'PATCH', `/v1/vehicles/${v.body.id}`, { wheels: 3 });
    expect(badPatch.body.error.code).toBe('VALIDATION_FAILED');
    const retired = await api<Vehicle>(sys, 'DELETE', `/v1/vehicles/${v.body.id}`);
    expect(retired.body.retiredAt).not.toBeNull();
    expect(retired.body.status).toBe('withdrawn');
    const list = await api<Page<Vehicle>>(sys, 'GET', '/v1/vehicles?limit=1000');
    expect(list.body.items.map((x) => x.id)).not.toContain(v.body.id);
    const withRetired = await api<Page<Vehicle>>(sys, 'GET', '/v1/vehicles?limit=1000&includeRetired=true');
    expect(withRetired.body.items.map((x) => x.id)).toContain(v.body.id);
    expect((await api(sys, 'GET', `/v1/vehicles/${v.body.id}`)).status).toBe(200);
    const again = await api<ErrorBody>(sys, 'PATCH', `/v1/vehicles/${v.body.id}`, { capacity: 3 });
    expect(again.body.error.code).toBe('RETIRED');
    expect((await api<ErrorBody>(sys, 'GET', '/v1/vehicles/nope')).body.error.code).toBe('NOT_FOUND');
  });

  it('imports vehicles from CSV, all or nothing, pointing at the bad line', async () => {
    const good = [
      'plate,pack,serviceType,capacity,manufactureYear,operatorId,permitValidUntil,driverIds',
      `${nextPlate()},df-taxi,taxi,4,2021,coop-df,2027-01-31,drv-a;drv-b`,
      `${nextPlate()},sp-fretamento,fretamento-eventual,46,2019,fret-sp,,`,
    ].join('\n');
    const post = (csv: string) =>
      fetch(`${sys.url}/v1/vehicles/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sys.adminToken}`, 'content-type': 'text/csv' },
        body: csv,
      });
    const res = await post(good);
    const body = (await res.json()) as { imported: number; items: Vehicle[] };
    expect(res.status).toBe(201);
    expect(body.imported).toBe(2);
    expect(body.items[0]?.driverIds).toEqual(['drv-a', 'drv-b']);

    const bad = [
      'plate,pack,serviceType,capacity',
      `${nextPlate()},df-taxi,taxi,4`,
      `${nextPlate()},df-taxi,taxi,many`,
    ].join('\n');
    const badRes = await post(bad);
    const badBody = (await badRes.json()) as ErrorBody;
    expect(badRes.status).toBe(400);
    expect(badBody.error.details).toEqual([expect.objectContaining({ line: 3, path: 'capacity' })]);
  });

  it('issues a device token once, keeps only its hash, and lets only the admin manage users', async () => {
    const v = await api<Vehicle>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
    });
    const d = await api<{ id: string; token: string }>(sys, 'POST', '/v1/devices', {
      vehicleId: v.body.id,
      identifier: '356307042441013',
    });
    expect(d.body.token).toMatch(/^vgdev_/);
    const read = await api<Record<string, unknown>>(sys, 'GET', `/v1/devices/${d.body.id}`);
    expect(read.body.token).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(d.body.token);

    const regulator = await api<{ token: string }>(sys, 'POST', '/v1/users', { name: 'Fiscal', role: 'regulator' });
    expect(regulator.status).toBe(201);
    const asRegulator = (method: string, path: string, body?: unknown) =>
      api<ErrorBody>(sys, method, path, body, regulator.body.token);
    expect((await asRegulator('GET', '/v1/vehicles')).status).toBe(200);
    expect((await asRegulator('POST', '/v1/operators', { name: 'Nova', pack: 'belem-taxi' })).status).toBe(201);
    const forbidden = await asRegulator('POST', '/v1/users', { name: 'x', role: 'regulator' });
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);

    const enforcement = await api<{ token: string }>(sys, 'POST', '/v1/users', { name: 'Agente', role: 'enforcement' });
    const write = await api<ErrorBody>(
      sys,
      'POST',
      '/v1/operators',
      { name: 'X', pack: 'df-taxi' },
      enforcement.body.token,
    );
    expect(write.status).toBe(403);
  });

  it('versions every record in time, from now or from the validFrom given at creation', async () => {
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const v = await api<Vehicle>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      validFrom: weekAgo,
    });
    expect(v.status).toBe(201);
    await api(sys, 'PATCH', `/v1/vehicles/${v.body.id}`, { capacity: 3 });
    const { rows } = await sys.db.query<{ capacity: number; valid_from: Date; valid_to: Date | null }>(
      `SELECT (record->>'capacity')::int AS capacity, valid_from, valid_to FROM registry_history
       WHERE collection = 'vehicles' AND id = $1 ORDER BY valid_from`,
      [v.body.id],
    );
    expect(rows.map((r) => r.capacity)).toEqual([4, 3]);
    expect(rows[0]?.valid_from.toISOString()).toBe(weekAgo);
    expect(rows[0]?.valid_to?.getTime()).toBe(rows[1]?.valid_from.getTime());
    expect(rows[1]?.valid_to).toBeNull();
    const future = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      validFrom: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(future.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('reports readiness of the database and the bus', async () => {
    const ready = await api<{ status: string; checks: Record<string, string> }>(sys, 'GET', '/ready', undefined, null);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok', bus: 'ok' });
    expect((await api(sys, 'GET', '/health', undefined, null)).status).toBe(200);
  });
});

describe('readiness with Redis unreachable', () => {
  it('answers 503 naming the bus', async () => {
    const sys = await startTestSystem('pglite', { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const ready = await api<{ status: string; checks: Record<string, string> }>(
        sys,
        'GET',
        '/ready',
        undefined,
        null,
      );
      expect(ready.status).toBe(503);
      expect(ready.body.checks).toEqual({ database: 'ok', bus: 'unreachable' });
    } finally {
      await sys.stop();
    }
  });
});
