import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

/**
 * Issue 8 finding 4: `POST /v1/dispatches` accepted any vehicleId (another cooperative's, another
 * pack's, one that does not exist) and a confirmed BEL_UNAUTHORIZED_RADIO followed, charged to
 * that vehicle. Now: a registered belem-taxi vehicle only; a dispatcher only for vehicles its
 * radio operators declared or its operators own (403 otherwise, existing or not). And finding 8:
 * `{"ts": 9e15}` was a 500; the time is bounded like telemetry's.
 */

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}
interface Page {
  items: { ruleId: string; vehicleId: string; measured: Record<string, unknown> }[];
}

const run = Math.random().toString(36).slice(2, 7);
const R1 = `radio1-${run}`;
const R2 = `radio2-${run}`;
const C1 = `coop1-${run}`;
const C2 = `coop2-${run}`;
const GHOST = `veh-ghost-${run}`;

describe('POST /v1/dispatches: existence, pack and scope of the vehicle; bounded time', () => {
  let sys: TestSystem;
  let dispatcher: string;
  const v: Record<'declared' | 'own' | 'foreign' | 'df', string> = { declared: '', own: '', foreign: '', df: '' };

  const dispatch = (vehicleId: string, extra: Record<string, unknown> = {}, token?: string) =>
    api<ErrorBody & { accepted: number; duplicates: number }>(
      sys,
      'POST',
      '/v1/dispatches',
      { ts: new Date().toISOString(), radioOperatorId: R1, vehicleId, ...extra },
      token ?? dispatcher,
    );
  const violationsOf = async (vehicleId: string) =>
    (await api<Page>(sys, 'GET', `/v1/violations?vehicleId=${vehicleId}&ruleId=BEL_UNAUTHORIZED_RADIO`)).body.items;
  const dispatchesOf = async (vehicleId: string) => {
    // The table is not in the API: count through the rule's own input, the accepted dispatches.
    const res = await dispatch(vehicleId, { id: `probe-${vehicleId}-${Math.random()}` }, sys.adminToken);
    return res.status;
  };

  beforeAll(async () => {
    sys = await startTestSystem('postgres');
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const vehicle = (pack: string, operatorId: string) => ({
      plate: nextPlate(),
      pack,
      serviceType: 'taxi',
      capacity: 4,
      operatorId,
      validFrom: since,
    });
    const ops = await api(sys, 'POST', '/v1/operators', [
      { id: C1, name: 'Cooperativa 1', pack: 'belem-taxi', kind: 'cooperative', validFrom: since },
      { id: C2, name: 'Cooperativa 2', pack: 'belem-taxi', kind: 'cooperative', validFrom: since },
    ]);
    expect(ops.status).toBe(201);
    const vs = await api<{ id: string }[]>(sys, 'POST', '/v1/vehicles', [
      vehicle('belem-taxi', C2), // declared by R1 though of another cooperative
      vehicle('belem-taxi', C1), // own: registered to an operator of the token, not declared
      vehicle('belem-taxi', C2), // foreign: another cooperative's, not declared
      vehicle('df-taxi', C1), // another pack
    ]);
    expect(vs.status, JSON.stringify(vs.body)).toBe(201);
    [v.declared, v.own, v.foreign, v.df] = vs.body.map((x) => x.id) as [string, string, string, string];
    const radios = await api(sys, 'POST', '/v1/operators', [
      {
        id: R1,
        name: 'Rádio Táxi 1',
        pack: 'belem-taxi',
        kind: 'radio-operator',
        credentialValidUntil: '2099-12-31',
        declaredVehicleIds: [v.declared, GHOST, v.df],
        validFrom: since,
      },
      { id: R2, name: 'Rádio Táxi 2', pack: 'belem-taxi', kind: 'radio-operator', validFrom: since },
    ]);
    expect(radios.status, JSON.stringify(radios.body)).toBe(201);
    const user = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Dispatcher of radio 1',
      role: 'dispatcher',
      operatorIds: [R1, C1],
    });
    expect(user.status).toBe(201);
    dispatcher = user.body.token;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("a dispatcher's dispatch of another cooperative's taxi is 403, and no violation is raised on it", async () => {
    const res = await dispatch(v.foreign);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await violationsOf(v.foreign)).toEqual([]);
  });

  it('an unknown vehicle is 403 for a dispatcher too (no oracle of other ids), 400 for the admin', async () => {
    const asDispatcher = await dispatch(`veh-nowhere-${run}`);
    expect(asDispatcher.status).toBe(403);
    const asAdmin = await dispatch(`veh-nowhere-${run}`, {}, sys.adminToken);
    expect([asAdmin.status, asAdmin.body.error.code]).toEqual([400, 'UNKNOWN_VEHICLE']);
  });

  it('a vehicle its radio operator declared but nobody registered is 400 UNKNOWN_VEHICLE', async () => {
    const res = await dispatch(GHOST);
    expect([res.status, res.body.error.code]).toEqual([400, 'UNKNOWN_VEHICLE']);
  });

  it('a vehicle of another pack is 400 VEHICLE_NOT_IN_PACK, for the admin as well', async () => {
    for (const token of [dispatcher, sys.adminToken]) {
      const res = await dispatch(v.df, {}, token);
      expect([res.status, res.body.error.code]).toEqual([400, 'VEHICLE_NOT_IN_PACK']);
    }
    expect(await violationsOf(v.df)).toEqual([]);
  });

  it('a batch with one foreign vehicle stores nothing', async () => {
    const ts = new Date().toISOString();
    const batch = [
      { id: `b1-${run}`, ts, radioOperatorId: R1, vehicleId: v.declared },
      { id: `b2-${run}`, ts, radioOperatorId: R1, vehicleId: v.foreign },
    ];
    const res = await api<ErrorBody>(sys, 'POST', '/v1/dispatches', batch, dispatcher);
    expect(res.status).toBe(403);
    // The first was not stored: sent again alone, it is new, not a duplicate.
    const again = await api<{ accepted: number; duplicates: number }>(
      sys,
      'POST',
      '/v1/dispatches',
      batch[0],
      dispatcher,
    );
    expect(again.body).toEqual({ accepted: 1, duplicates: 0 });
  });

  it('within scope: a declared vehicle is accepted; an own undeclared one is accepted and judged', async () => {
    const declared = await dispatch(v.declared);
    expect([declared.status, declared.body.accepted]).toEqual([200, 1]);
    const own = await dispatch(v.own);
    expect([own.status, own.body.accepted]).toEqual([200, 1]);
    // The rule still does its job within the dispatcher's scope.
    let found: Page['items'] = [];
    for (let i = 0; i < 50 && found.length === 0; i++) {
      found = await violationsOf(v.own);
      if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found[0]?.measured).toMatchObject({ radioOperatorId: R1, vehicleDeclared: false });
  });

  it('a dispatcher may not report for a radio operator that is not its own', async () => {
    const res = await dispatch(v.declared, { radioOperatorId: R2 });
    expect(res.status).toBe(403);
  });

  it('an id already used by a different dispatch is 409, not a silent duplicate; the same dispatch re-sent is a duplicate', async () => {
    const ts = new Date().toISOString();
    const first = await dispatch(v.declared, { id: `shared-id-${run}`, ts }, sys.adminToken);
    expect([first.status, first.body.accepted]).toEqual([200, 1]);
    const again = await dispatch(v.declared, { id: `shared-id-${run}`, ts }, sys.adminToken);
    expect(again.body).toEqual({ accepted: 0, duplicates: 1 });
    const other = await dispatch(v.own, { id: `shared-id-${run}` });
    expect([other.status, other.body.error.code]).toEqual([409, 'DISPATCH_ID_CONFLICT']);
  });

  it('the admin may report any registered belem-taxi vehicle', async () => {
    expect(await dispatchesOf(v.foreign)).toBe(200);
  });

  it('a time a Date cannot hold, in the far future or in the far past is 400, never 500', async () => {
    const day = 86_400_000;
    const refused = [
      9e15,
      1e16,
      0,
      '1970-01-01T00:00:00Z',
      '2100-01-01T00:00:00Z',
      Date.now() + 3_600_000,
      Date.now() - 401 * day,
    ];
    for (const ts of refused) {
      const res = await dispatch(v.declared, { ts });
      expect(res.status, `ts ${ts}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(['VALIDATION_FAILED', 'FUTURE_TIMESTAMP', 'PAST_TIMESTAMP']).toContain(res.body.error.code);
    }
    // Late uploads are fine: an hour, or weeks (a dispatch system catching up).
    for (const ts of [Date.now() - 3_600_000, new Date(Date.now() - 40 * day).toISOString()]) {
      const late = await dispatch(v.declared, { ts });
      expect(late.status, `ts ${ts}: ${JSON.stringify(late.body)}`).toBe(200);
    }
  });
});
