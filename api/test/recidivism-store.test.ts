import { upsertViolations, type ViolationUpsert } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

/**
 * DF Art. 53 through the store: the live pipeline reads the earlier violations of the permit from
 * the database and counts them apart for the permit and for each registered driver's matrícula
 * (Art. 55: the holder answers jointly for an auxiliary driver's infraction, but it is not
 * counted twice). The permit holder is known by the document their driver record shares with the
 * operator record.
 */
describe('DF Art. 53 — recidivism per permit and per matrícula, from the stored violations', () => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 8);
  const operatorId = `op-holder-${run}`;
  const holder = `drv-holder-${run}`;
  const aux = `drv-aux-${run}`;
  const permit = `DF-P-${run}`;
  let vehicleId = '';
  let identifier = '';
  let token = '';

  beforeAll(async () => {
    sys = await startTestSystem('pglite', { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const day = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().slice(0, 10);
    const post = async (path: string, body: Record<string, unknown>) => {
      const r = await api<{ id: string; token?: string }>(sys, 'POST', path, { ...body, validFrom: since });
      if (r.status !== 201) throw new Error(`${path}: ${JSON.stringify(r.body)}`);
      return r.body;
    };
    await post('/v1/operators', {
      id: operatorId,
      name: 'Titular autônomo',
      pack: 'df-taxi',
      kind: 'permit-holder',
      document: '123.456.789-09',
    });
    await post('/v1/drivers', { id: holder, name: 'Titular', pack: 'df-taxi', document: '12345678909' });
    await post('/v1/drivers', { id: aux, name: 'Auxiliar', pack: 'df-taxi', document: '98765432100' });
    const vehicle = await post('/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      manufactureYear: new Date().getFullYear() - 2,
      operatorId,
      permitNumber: permit,
      permitKind: 'autonomous',
      permitValidUntil: day(300),
      driverIds: [holder, aux],
    });
    vehicleId = vehicle.id;
    identifier = `IMEI-${Math.random().toString().slice(2, 17)}`;
    const device = await api<{ token: string }>(sys, 'POST', '/v1/devices', { vehicleId, identifier });
    token = device.body.token;

    // Upheld group-B infractions of this permit within 2 years: 3 by the auxiliary driver, 1 by
    // the holder, 1 with no driver identified.
    const prior = (key: string, daysAgo: number, driverId: string | null): ViolationUpsert => {
      const at = new Date(Date.now() - daysAgo * 86_400_000);
      return {
        eventKey: `prior-${run}-${key}`,
        ruleId: 'DF_RIDE_WITHOUT_METER',
        pack: 'df-taxi',
        legalBasis: ['Art. 37 g'],
        description: 'Corrida sem taxímetro',
        descriptionEn: 'Ride without the meter',
        vehicleId,
        plate: null,
        operatorId,
        permitNumber: permit,
        driverId,
        variant: null,
        phase: 'final',
        startedAt: at,
        endedAt: at,
        lat: null,
        lon: null,
        place: null,
        confidence: 'confirmed',
        measured: {},
        penalty: { group: 'B', item: 'Anexo I group B' },
        recidivism: {},
        evidenceFrom: at,
        evidenceTo: at,
      };
    };
    await sys.db.transaction((tx) =>
      upsertViolations(tx, [
        prior('a1', 30, aux),
        prior('a2', 60, aux),
        prior('a3', 90, aux),
        prior('h1', 120, holder),
        prior('n1', 150, null),
      ]),
    );
    await sys.db.query(`UPDATE violations SET status = 'confirmed' WHERE event_key LIKE $1`, [`prior-${run}-%`]);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /** 6 passengers in the 4-place taxi for 40 s of driving, the tachograph naming `driverId`. */
  async function overCapacity(driverId: string, startMs: number): Promise<void> {
    const samples = Array.from({ length: 12 }, (_, i) => ({
      deviceId: identifier,
      ts: new Date(startMs + i * 5000).toISOString(),
      lat: -15.7942 + i * 0.0004,
      lon: -47.8822,
      speedKmh: 30,
      passengers: i < 10 ? 6 : 2,
      doorOpen: false,
      tacho: { driverId },
      meter: { state: 'hired', tariff: 1, fareCents: 600, tripId: `cap-${driverId}` },
    }));
    expect((await api(sys, 'POST', '/v1/telemetry', samples, token)).status).toBe(200);
  }

  async function assessed(driverId: string) {
    for (let i = 0; i < 50; i++) {
      const { rows } = await sys.db.query<{ recidivism: Record<string, unknown>; penalty: Record<string, unknown> }>(
        `SELECT recidivism, penalty FROM violations WHERE vehicle_id = $1 AND rule_id = 'DF_OVER_CAPACITY' AND driver_id = $2`,
        [vehicleId, driverId],
      );
      if (rows[0]) return rows[0];
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no DF_OVER_CAPACITY for ${driverId}`);
  }

  it('Art. 53 §2: the auxiliary driver’s 4th group-B infraction cancels that driver’s matrícula (the holder’s do not count)', async () => {
    await overCapacity(aux, Math.floor(Date.now() / 1000) * 1000 - 600_000);
    const v = await assessed(aux);
    expect(v.recidivism).toMatchObject({ count: 3, byGroup: { B: 4 } });
    expect(v.recidivism.escalation).toMatchObject({ kind: 'cancellation', basis: 'Art. 53 §2' });
    expect(JSON.stringify(v.recidivism.escalation)).toContain(`matrícula of driver ${aux}`);
  });

  it('Art. 53 / Art. 55: the holder’s infraction counts against the permit only: the auxiliary’s 3 are not counted twice', async () => {
    await overCapacity(holder, Math.floor(Date.now() / 1000) * 1000 - 300_000);
    const v = await assessed(holder);
    expect(v.recidivism).toMatchObject({ count: 2, byGroup: { B: 3 }, escalation: null });
  });
});
