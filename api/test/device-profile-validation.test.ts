import { ProfileRegistry } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from './support.js';

/**
 * Issue 8, finding 10: a device registered with a profile that does not exist for its protocol
 * (`"profile": "default"` on a Teltonika device) was accepted, and then every message it sent was
 * refused. The registry now refuses it (400, naming the profiles that exist for the protocol), at
 * registration and on PATCH, and refuses a protocol no gateway speaks.
 */

interface ErrorBody {
  error: { code: string; message: string; details?: { index?: number; path: string; message: string }[] };
}
interface Device {
  id: string;
  protocol: string;
  profile: string | null;
}

const shipped = ProfileRegistry.load();

describe('device protocol and profile are checked against the profiles the gateways load', () => {
  let sys: TestSystem;
  let vehicleId: string;
  let seq = 0;
  const identifier = () => `35000000000${String(++seq).padStart(4, '0')}`;

  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    ({ vehicleId } = await registerVehicle(sys));
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const create = (body: Record<string, unknown>) =>
    api<Device & ErrorBody>(sys, 'POST', '/v1/devices', { vehicleId, identifier: identifier(), ...body });
  const patch = (id: string, body: Record<string, unknown>) =>
    api<Device & ErrorBody>(sys, 'PATCH', `/v1/devices/${id}`, body);

  it('refuses "profile": "default" on a Teltonika device with 400 UNKNOWN_PROFILE naming the Teltonika profiles', async () => {
    const res = await create({ protocol: 'teltonika', profile: 'default' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('UNKNOWN_PROFILE');
    const names = shipped.namesFor('teltonika');
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) expect(res.body.error.message).toContain(`'${name}'`);
    // Only the protocol's own profiles: an OsmAnd profile would be refused too.
    expect(res.body.error.message).not.toContain('osmand-traccar-client');
    expect(res.body.error.details).toEqual([expect.objectContaining({ index: 0, path: 'profile' })]);
    const listed = await api<{ items: Device[] }>(sys, 'GET', `/v1/devices?vehicleId=${vehicleId}`);
    expect(listed.body.items.filter((d) => d.protocol === 'teltonika')).toEqual([]);
  });

  it("refuses another protocol's profile (an OsmAnd profile on a Teltonika device)", async () => {
    const res = await create({ protocol: 'teltonika', profile: 'osmand-traccar-client' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('UNKNOWN_PROFILE');
  });

  it('refuses a protocol no gateway speaks, and a profile on a native device', async () => {
    const protocol = await create({ protocol: 'teltonka' });
    expect(protocol.status).toBe(400);
    expect(protocol.body.error.code).toBe('UNKNOWN_PROTOCOL');
    expect(protocol.body.error.message).toContain("'native'");
    const native = await create({ profile: 'teltonika-default' });
    expect(native.status).toBe(400);
    expect(native.body.error.code).toBe('UNKNOWN_PROFILE');
  });

  it('refuses a bad item of a batch and creates none of it', async () => {
    const res = await api<ErrorBody>(sys, 'POST', '/v1/devices', [
      { vehicleId, identifier: identifier(), protocol: 'osmand' },
      { vehicleId, identifier: identifier(), protocol: 'osmand', profile: 'nope' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ index: 1, path: 'profile' })]);
  });

  it('accepts every shipped profile on its protocol, and no profile (the default)', async () => {
    for (const protocol of shipped.protocols) {
      for (const profile of [...shipped.namesFor(protocol), null]) {
        const res = await create({ protocol, profile });
        expect(res.status, `${protocol}/${profile}`).toBe(201);
        expect(res.body).toMatchObject({ protocol, profile });
      }
    }
    expect((await create({})).status).toBe(201);
  });

  it('checks a PATCH against the stored device: a profile alone, a protocol alone, or both together', async () => {
    const made = await create({ protocol: 'osmand', profile: 'osmand-traccar-client' });
    expect(made.status).toBe(201);
    const id = made.body.id;

    const badProfile = await patch(id, { profile: 'default' });
    expect(badProfile.status).toBe(400);
    expect(badProfile.body.error.code).toBe('UNKNOWN_PROFILE');
    expect(badProfile.body.error.message).toContain("'osmand-traccar-client'");
    // The stored device's profile no longer fits the new protocol.
    const badProtocol = await patch(id, { protocol: 'teltonika' });
    expect(badProtocol.status).toBe(400);
    expect(badProtocol.body.error.code).toBe('UNKNOWN_PROFILE');
    expect((await api<Device>(sys, 'GET', `/v1/devices/${id}`)).body).toMatchObject({
      protocol: 'osmand',
      profile: 'osmand-traccar-client',
    });

    const both = await patch(id, { protocol: 'teltonika', profile: 'teltonika-fmc130-taxi' });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ protocol: 'teltonika', profile: 'teltonika-fmc130-taxi' });
    const cleared = await patch(id, { profile: null });
    expect(cleared.status).toBe(200);
    // A PATCH that names neither field is not checked again (a device registered before this check stays editable).
    expect((await patch(id, { identifier: identifier() })).status).toBe(200);
  });
});
