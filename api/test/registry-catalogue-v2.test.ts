import { createInMemoryRegistry } from '@vigia/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordsFromHistory } from '../../ingest/src/rules/registry-loader.js';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

/**
 * The registry fields the rules of catalogue v2 read (RULES.md "Catalogue v2"): they round-trip
 * through POST/GET/PATCH and the vehicle CSV import, default when left out (older clients keep
 * working), and reach the rule engine's registry as the rules read them.
 */

interface Vehicle {
  id: string;
  status: string;
  permitStatus: string;
  specialTariffService: boolean;
  tachographLinked: boolean;
  modelYear: number | null;
}
interface ErrorBody {
  error: { code: string; details?: { index?: number; line?: number; path: string }[] };
}

describe('registry fields of catalogue v2', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    const ops = await api(sys, 'POST', '/v1/operators', [
      { id: 'bel-coop', name: 'Cooperativa Especial Belém', pack: 'belem-taxi', kind: 'cooperative' },
      { id: 'df-holder', name: 'Permissionário DF', pack: 'df-taxi', kind: 'permit-holder' },
      { id: 'sp-a', name: 'Fretados A', pack: 'sp-fretamento' },
      { id: 'sp-b', name: 'Fretados B', pack: 'sp-fretamento' },
    ]);
    expect(ops.status).toBe(201);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('vehicle permitStatus (DF Art. 15/54/18, Belém Art. 15/59/8) and specialTariffService (Belém Art. 36) round-trip, default and validate', async () => {
    const created = await api<Vehicle>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'belem-taxi',
      serviceType: 'taxi',
      capacity: 4,
      manufactureYear: 2018,
      operatorId: 'bel-coop',
      permitStatus: 'withdrawn',
      specialTariffService: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ permitStatus: 'withdrawn', specialTariffService: true });
    const read = await api<Vehicle>(sys, 'GET', `/v1/vehicles/${created.body.id}`);
    expect(read.body).toMatchObject({ permitStatus: 'withdrawn', specialTariffService: true });

    const plain = await api<Vehicle>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
    });
    expect(plain.body).toMatchObject({ permitStatus: 'active', specialTariffService: false });

    const bad = await api<ErrorBody>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      permitStatus: 'paused',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: 'permitStatus' })]);

    const list = await api<{ items: Vehicle[] }>(sys, 'GET', '/v1/vehicles?permitStatus=withdrawn');
    expect(list.body.items.map((v) => v.id)).toEqual([created.body.id]);
  });

  it('PATCH changes only the fields it names: defaults of the schema do not overwrite stored values', async () => {
    const v = await api<Vehicle>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      status: 'suspended',
      permitStatus: 'suspended',
      tachographLinked: true,
      specialTariffService: true,
    });
    const patched = await api<Vehicle>(sys, 'PATCH', `/v1/vehicles/${v.body.id}`, { capacity: 3 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      status: 'suspended',
      permitStatus: 'suspended',
      tachographLinked: true,
      specialTariffService: true,
    });
    const lifted = await api<Vehicle>(sys, 'PATCH', `/v1/vehicles/${v.body.id}`, { permitStatus: 'active' });
    expect(lifted.body).toMatchObject({ permitStatus: 'active', status: 'suspended' });
  });

  it('the vehicle CSV import carries permitStatus, specialTariffService, tachographLinked and modelYear', async () => {
    const csv = [
      'plate,pack,serviceType,capacity,manufactureYear,modelYear,operatorId,permitStatus,specialTariffService,tachographLinked',
      `${nextPlate()},belem-taxi,taxi,4,2017,2018,bel-coop,suspended,TRUE,false`,
      `${nextPlate()},sp-fretamento,particular,40,2020,,sp-a,,,true`,
    ].join('\n');
    const post = (body: string) =>
      fetch(`${sys.url}/v1/vehicles/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sys.adminToken}`, 'content-type': 'text/csv' },
        body,
      });
    const res = await post(csv);
    const body = (await res.json()) as { imported: number; items: Vehicle[] };
    expect(res.status).toBe(201);
    expect(body.items[0]).toMatchObject({
      permitStatus: 'suspended',
      specialTariffService: true,
      tachographLinked: false,
      modelYear: 2018,
    });
    expect(body.items[1]).toMatchObject({
      permitStatus: 'active',
      specialTariffService: false,
      tachographLinked: true,
    });
    const bad = await post(
      ['plate,pack,serviceType,capacity,specialTariffService', `${nextPlate()},belem-taxi,taxi,4,yes`].join('\n'),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.details).toEqual([
      expect.objectContaining({ line: 2, path: 'specialTariffService' }),
    ]);
  });

  it('driver badge validity (Belém item 4.3), status withdrawn (SP Art. 23 II) and employer (SP Art. 12) round-trip', async () => {
    const d = await api<Record<string, unknown>>(sys, 'POST', '/v1/drivers', [
      { id: 'bel-drv-1', name: 'Taxista', pack: 'belem-taxi', badgeValidUntil: '2026-12-31' },
      { id: 'sp-drv-1', name: 'Motorista', pack: 'sp-fretamento', operatorId: 'sp-a', status: 'withdrawn' },
    ]);
    expect(d.status).toBe(201);
    const read = await api<Record<string, unknown>>(sys, 'GET', '/v1/drivers/bel-drv-1');
    expect(read.body).toMatchObject({ badgeValidUntil: '2026-12-31', status: 'active' });
    const renewed = await api<Record<string, unknown>>(sys, 'PATCH', '/v1/drivers/bel-drv-1', {
      badgeValidUntil: '2027-12-31',
    });
    expect(renewed.body).toMatchObject({ badgeValidUntil: '2027-12-31' });
    const bad = await api<ErrorBody>(sys, 'POST', '/v1/drivers', { name: 'X', badgeValidUntil: '31/12/2026' });
    expect(bad.status).toBe(400);
  });

  it("contract authorizations for another company's vehicles (SP Art. 24 II) round-trip and default to none", async () => {
    const body = {
      operatorId: 'sp-a',
      kind: 'fretamento-continuo',
      vehicleIds: ['bus-own', 'bus-of-b'],
      schedule: [{ daysOfWeek: [1, 2, 3, 4, 5], start: '06:00', end: '09:00' }],
      route: {
        type: 'LineString',
        coordinates: [
          [-46.53, -23.69],
          [-46.65, -23.56],
        ],
      },
      validFrom: '2026-01-01',
    };
    const c = await api<{ id: string; otherCompanyAuthorizations: unknown[] }>(sys, 'POST', '/v1/contracts', {
      ...body,
      otherCompanyAuthorizations: [{ vehicleId: 'bus-of-b', reference: 'SNM 123/2026', validUntil: '2026-12-31' }],
      validUntil: '2027-06-30',
    });
    expect(c.status).toBe(201);
    const read = await api<{ otherCompanyAuthorizations: unknown[] }>(sys, 'GET', `/v1/contracts/${c.body.id}`);
    expect(read.body.otherCompanyAuthorizations).toEqual([
      { vehicleId: 'bus-of-b', reference: 'SNM 123/2026', validUntil: '2026-12-31' },
    ]);
    const none = await api<{ otherCompanyAuthorizations: unknown[] }>(sys, 'POST', '/v1/contracts', body);
    expect(none.body.otherCompanyAuthorizations).toEqual([]);
    const bad = await api<ErrorBody>(sys, 'POST', '/v1/contracts', {
      ...body,
      otherCompanyAuthorizations: [{ reference: 'no vehicle' }],
    });
    expect(bad.status).toBe(400);
  });

  it('reaches the rule engine registry as the rules read it', async () => {
    const { rows } = await sys.db.query<{
      collection: string;
      record: Record<string, unknown>;
      valid_from: Date;
      valid_to: Date | null;
    }>('SELECT collection, record, valid_from, valid_to FROM registry_history ORDER BY collection, id, valid_from');
    const registry = createInMemoryRegistry(recordsFromHistory(rows));
    const now = Date.now();
    const driver = registry.driver('bel-drv-1', now);
    expect(driver).toMatchObject({ badgeValidUntil: '2027-12-31', status: 'active' });
    expect(registry.driver('sp-drv-1', now)).toMatchObject({ status: 'withdrawn', operatorId: 'sp-a' });
    const special = rows.find((r) => r.collection === 'vehicles' && r.record.permitStatus === 'withdrawn');
    expect(registry.vehicle(String(special?.record.id), now)).toMatchObject({
      permitStatus: 'withdrawn',
      specialTariffService: true,
    });
    const contracts = registry.contractsForVehicle('bus-of-b', now);
    expect(contracts.map((c) => c.validUntil)).toEqual(expect.arrayContaining(['2027-06-30', null]));
    expect(contracts.flatMap((c) => c.otherCompanyAuthorizations)).toEqual([
      { vehicleId: 'bus-of-b', reference: 'SNM 123/2026', validUntil: '2026-12-31' },
    ]);
  });
});
