import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from './support.js';

/**
 * `GET /v1/me` tells the dashboard who is signed in (name, role, scope), for every token kind, and
 * `GET /v1/dashboard-config` carries each pack's legal time zone from the rules configuration.
 */
describe('who is signed in, and the packs’ clocks', () => {
  let sys: TestSystem;
  const rulesFile = join(tmpdir(), `vigia-rules-${process.pid}.json`);

  beforeAll(async () => {
    // A regulator may move a pack's clock: the dashboard must follow it, not its built-in default.
    await writeFile(rulesFile, JSON.stringify({ 'belem-taxi': { timeZone: 'America/Manaus' } }));
    sys = await startTestSystem('pglite', { RULES_CONFIG_FILE: rulesFile });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('names the admin token as admin, with no user name', async () => {
    const me = await api(sys, 'GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ kind: 'admin', id: 'admin', name: null, role: 'admin', operatorIds: [] });
  });

  it("gives a user's registry name, role and operators", async () => {
    await api(sys, 'POST', '/v1/operators', {
      id: 'op-me',
      name: 'Cooperativa Eu',
      pack: 'df-taxi',
      validFrom: '2024-01-01T00:00:00Z',
    });
    const created = await api<{ id: string; token: string }>(sys, 'POST', '/v1/users', {
      name: 'Joana Despachante',
      role: 'dispatcher',
      operatorIds: ['op-me'],
    });
    expect(created.status).toBe(201);
    const me = await api(sys, 'GET', '/v1/me', undefined, created.body.token);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      kind: 'user',
      id: created.body.id,
      name: 'Joana Despachante',
      role: 'dispatcher',
      operatorIds: ['op-me'],
    });
  });

  it('names a device by its identifier and vehicle, and refuses a missing or unknown token', async () => {
    const device = await registerVehicle(sys);
    const me = await api<{ kind: string; name: string; role: string; vehicleId: string }>(
      sys,
      'GET',
      '/v1/me',
      undefined,
      device.token,
    );
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ kind: 'device', name: device.identifier, role: 'device' });
    expect(typeof me.body.vehicleId).toBe('string');
    expect((await api(sys, 'GET', '/v1/me', undefined, null)).status).toBe(401);
    expect((await api(sys, 'GET', '/v1/me', undefined, 'not-a-token')).status).toBe(401);
  });

  it('reports each pack’s legal zone, the configured one where the rules file sets it', async () => {
    const config = await api<{ packTimeZones: Record<string, string> }>(
      sys,
      'GET',
      '/v1/dashboard-config',
      undefined,
      null,
    );
    expect(config.status).toBe(200);
    expect(config.body.packTimeZones).toEqual({
      'df-taxi': 'America/Sao_Paulo',
      'belem-taxi': 'America/Manaus',
      'sp-fretamento': 'America/Sao_Paulo',
    });
  });
});
