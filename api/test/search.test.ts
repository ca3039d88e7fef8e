import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type Target, type TestSystem } from './support.js';

/**
 * `GET /v1/search` (api/src/search/README.md) on a real database: each kind is found by what a
 * regulator types (a plate with or without its dash, a permit, a company's name or CNPJ, a
 * driver's name or CNH, a stop or stand name without its accents), exact matches come first, an
 * operator's user never finds another operator's vehicles, drivers or company, and the bounds
 * (limit, length of q, unknown parameters) are 400s in the API.md error shape.
 */

interface Item {
  kind: 'vehicle' | 'operator' | 'driver' | 'stop' | 'stand';
  id: string;
  label: string;
  detail: string;
  lat?: number;
  lon?: number;
  operatorId?: string;
}
interface ErrorBody {
  error: { code: string; message: string };
}

describe.each<Target>(['postgres', 'pglite'])('search on %s', (target) => {
  let sys: TestSystem;
  let operatorToken: string;
  let dispatcherToken: string;
  let enforcementToken: string;
  let deviceToken: string;
  const since = new Date(Date.now() - 86_400_000).toISOString();

  const search = async (q: string, token: string | null = sys.adminToken, extra = '') => {
    const res = await api<{ items: Item[] }>(
      sys,
      'GET',
      `/v1/search?q=${encodeURIComponent(q)}${extra}`,
      undefined,
      token,
    );
    expect(res.status, q).toBe(200);
    return res.body.items;
  };
  const must = async (path: string, body: unknown) => {
    const res = await api(sys, 'POST', path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  };

  beforeAll(async () => {
    sys = await startTestSystem(target);
    await must('/v1/operators', [
      {
        id: 'op-alvorada',
        name: 'Cooperativa Alvorada de Táxis',
        pack: 'df-taxi',
        kind: 'cooperative',
        document: '12.345.678/0001-90',
        validFrom: since,
      },
      { id: 'op-rival', name: 'Rádio Táxi Rival', pack: 'df-taxi', document: '98.765.432/0001-10', validFrom: since },
    ]);
    const vehicle = (id: string, plate: string, operatorId: string, permitNumber: string) => ({
      id,
      plate,
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      operatorId,
      permitNumber,
      validFrom: since,
    });
    await must('/v1/vehicles', [
      vehicle('veh-own', 'JKL-1234', 'op-alvorada', 'DF-T-0042'),
      // A plate that contains the first one's digits: the exact plate must still come first.
      vehicle('veh-near', 'JKL1B23', 'op-alvorada', 'DF-T-1234'),
      vehicle('veh-rival', 'RIV2C34', 'op-rival', 'DF-T-0777'),
    ]);
    await must('/v1/drivers', [
      { id: 'drv-joao', name: 'João Conceição', licenceNumber: '04512345678', operatorId: 'op-alvorada' },
      { id: 'drv-rival', name: 'João Rival', licenceNumber: '09999999999', operatorId: 'op-rival' },
    ]);
    await must('/v1/stops', [{ id: 'stop-rodo', name: 'Rodoviária do Plano Piloto', lat: -15.7937, lon: -47.8829 }]);
    await must('/v1/stands', [
      {
        id: 'stand-setor',
        pack: 'df-taxi',
        name: 'Ponto do Setor Comercial Sul',
        geometry: { type: 'Point', coordinates: [-47.889, -15.799] },
        radiusM: 40,
        places: 6,
        kind: 'livre',
      },
    ]);
    // The live position a vehicle result flies to: a sample from its tracker.
    const device = await api<{ token: string }>(sys, 'POST', '/v1/devices', {
      vehicleId: 'veh-own',
      identifier: `IMEI-SEARCH-${target}`,
    });
    const sample = { deviceId: `IMEI-SEARCH-${target}`, ts: new Date().toISOString(), lat: -15.79, lon: -47.88 };
    expect((await api(sys, 'POST', '/v1/telemetry', sample, device.body.token)).status).toBe(200);
    deviceToken = device.body.token;
    const user = async (role: string, operatorIds: string[]) =>
      (await api<{ token: string }>(sys, 'POST', '/v1/users', { name: `Search ${role}`, role, operatorIds })).body
        .token;
    operatorToken = await user('operator', ['op-alvorada']);
    dispatcherToken = await user('dispatcher', ['op-rival']);
    enforcementToken = await user('enforcement', []);
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('finds a plate with or without its dash, in any case, the exact plate first, with its live position', async () => {
    for (const q of ['JKL1234', 'jkl-1234', 'Jkl 1234']) {
      const items = await search(q);
      expect(items[0], q).toMatchObject({ kind: 'vehicle', id: 'veh-own', label: 'JKL1234', lat: -15.79, lon: -47.88 });
      expect(items[0]?.detail).toContain('DF-T-0042');
      expect(items[0]?.detail).toContain('Cooperativa Alvorada');
    }
    // A part of a plate finds every vehicle holding it; "1234" is veh-own's plate and veh-near's permit.
    const part = await search('1234');
    expect(
      part
        .filter((i) => i.kind === 'vehicle')
        .map((i) => i.id)
        .sort(),
    ).toEqual(['veh-near', 'veh-own']);
  });

  it('finds a permit number, with or without its punctuation', async () => {
    expect((await search('DF-T-0042'))[0]).toMatchObject({ kind: 'vehicle', id: 'veh-own' });
    expect((await search('dft0777'))[0]).toMatchObject({ kind: 'vehicle', id: 'veh-rival' });
  });

  it('finds an operator by name (accents ignored), by CNPJ with or without punctuation, and by id', async () => {
    expect((await search('alvorada de taxis')).map((i) => [i.kind, i.id])).toContainEqual(['operator', 'op-alvorada']);
    expect((await search('12345678000190'))[0]).toMatchObject({ kind: 'operator', id: 'op-alvorada' });
    expect((await search('12.345.678/0001-90'))[0]).toMatchObject({ kind: 'operator', id: 'op-alvorada' });
    expect((await search('op-rival'))[0]).toMatchObject({
      kind: 'operator',
      id: 'op-rival',
      label: 'Rádio Táxi Rival',
    });
  });

  it('finds a driver by name without accents, by CNH and by id', async () => {
    const byName = await search('joao conceicao');
    expect(byName.map((i) => [i.kind, i.id])).toEqual([['driver', 'drv-joao']]);
    expect(byName[0]?.label).toBe('João Conceição');
    // Its operator, whose fleet the dashboard shows when the driver is chosen.
    expect(byName[0]?.operatorId).toBe('op-alvorada');
    expect((await search('04512345678'))[0]).toMatchObject({ kind: 'driver', id: 'drv-joao' });
    expect((await search('drv-rival'))[0]).toMatchObject({ kind: 'driver', id: 'drv-rival' });
  });

  it('finds a stop and a stand by name, accents and case ignored, with where they are', async () => {
    expect((await search('RODOVIARIA'))[0]).toMatchObject({
      kind: 'stop',
      id: 'stop-rodo',
      label: 'Rodoviária do Plano Piloto',
      lat: -15.7937,
      lon: -47.8829,
    });
    expect((await search('setor comercial'))[0]).toMatchObject({
      kind: 'stand',
      id: 'stand-setor',
      lat: -15.799,
      lon: -47.889,
    });
  });

  it("scopes like the registry lists: an operator's user never finds another operator's vehicles, drivers or company", async () => {
    expect(await search('RIV2C34', operatorToken)).toEqual([]);
    expect(await search('DF-T-0777', operatorToken)).toEqual([]);
    expect(await search('Rival', operatorToken)).toEqual([]);
    expect(await search('98765432000110', operatorToken)).toEqual([]);
    // Its own, and the shared reference data, it finds.
    expect((await search('JKL1234', operatorToken))[0]).toMatchObject({ id: 'veh-own' });
    expect((await search('joao', operatorToken)).map((i) => i.id)).toEqual(['drv-joao']);
    expect((await search('rodoviaria', operatorToken))[0]).toMatchObject({ id: 'stop-rodo' });
    // A dispatcher of the other operator sees the mirror image; enforcement sees everyone.
    expect((await search('joao', dispatcherToken)).map((i) => i.id)).toEqual(['drv-rival']);
    expect(await search('JKL1234', dispatcherToken)).toEqual([]);
    expect((await search('joao', enforcementToken)).map((i) => i.id).sort()).toEqual(['drv-joao', 'drv-rival']);
  });

  it('is bounded: limit 1–50, q 1–100 characters, no other parameter; devices may not search', async () => {
    expect(await search('a', sys.adminToken, '&limit=2')).toHaveLength(2);
    const refused = async (query: string, code: string) => {
      const res = await api<ErrorBody>(sys, 'GET', `/v1/search${query}`);
      expect([res.status, res.body.error.code], query).toEqual([400, code]);
      expect(typeof res.body.error.message).toBe('string');
    };
    await refused('?q=a&limit=51', 'VALIDATION_FAILED');
    await refused('?q=a&limit=0', 'VALIDATION_FAILED');
    await refused(`?q=${'a'.repeat(101)}`, 'VALIDATION_FAILED');
    await refused('?q=', 'VALIDATION_FAILED');
    await refused('?q=%20%20', 'VALIDATION_FAILED');
    await refused('', 'VALIDATION_FAILED');
    await refused('?q=a&kind=vehicle', 'UNKNOWN_FILTER');
    const byDevice = await api<ErrorBody>(sys, 'GET', '/v1/search?q=JKL', undefined, deviceToken);
    expect([byDevice.status, byDevice.body.error.code]).toEqual([403, 'FORBIDDEN']);
    // Wildcards are text: "%" finds only what holds a "%".
    expect(await search('%')).toEqual([]);
    expect(await search('_')).toEqual([]);
  });
});
