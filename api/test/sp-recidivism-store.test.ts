import { upsertViolations, type ViolationUpsert } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

/**
 * SP Art. 27 through the store: "a mesma infração" is the same article and item of the decree,
 * not the same rule id. A charter bus in operation with its vistoria overdue
 * (FRET_INSPECTION_EXPIRED, Art. 26 VII) is a repeat of the company's earlier unregistered
 * vehicle fined under Art. 26 VII (FRET_UNREGISTERED_VEHICLE), and not of one fined under Art.
 * 26 VI (a withdrawn registration), though one rule id reports both.
 */
describe('SP Art. 27 — recidivism is the same article and item, from the stored violations', () => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 8);
  const dayMs = 86_400_000;

  beforeAll(async () => {
    sys = await startTestSystem('pglite', { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /** A company with a bus whose inspection is overdue, and one upheld earlier fine under `priorItem`. */
  async function company(key: string, priorItem: string) {
    const since = new Date(Date.now() - 10 * dayMs).toISOString();
    const operatorId = `fretadora-${key}-${run}`;
    const day = (d: number) => new Date(Date.now() + d * dayMs).toISOString().slice(0, 10);
    const op = await api(sys, 'POST', '/v1/operators', {
      id: operatorId,
      name: `Fretadora ${key}`,
      pack: 'sp-fretamento',
      kind: 'company',
      registrationValidUntil: day(300),
      validFrom: since,
    });
    expect(op.status).toBe(201);
    const vehicle = await api<{ id: string }>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'sp-fretamento',
      serviceType: 'fretamento-continuo',
      capacity: 44,
      manufactureYear: new Date().getFullYear() - 2,
      operatorId,
      tachographLinked: true,
      // Under 5 years old: inspected every 18 months (Art. 17) — this one 2 years ago.
      lastInspectionDate: day(-730),
      validFrom: since,
    });
    expect(vehicle.status).toBe(201);
    const identifier = `IMEI-${Math.random().toString().slice(2, 17)}`;
    const device = await api<{ token: string }>(sys, 'POST', '/v1/devices', { vehicleId: vehicle.body.id, identifier });
    expect(device.status).toBe(201);

    const at = new Date(Date.now() - 120 * dayMs);
    const prior: ViolationUpsert = {
      eventKey: `prior-${key}-${run}`,
      ruleId: 'FRET_UNREGISTERED_VEHICLE',
      pack: 'sp-fretamento',
      legalBasis: [priorItem],
      description: 'Veículo não cadastrado',
      descriptionEn: 'Vehicle not registered',
      vehicleId: `another-bus-${key}-${run}`,
      plate: null,
      operatorId,
      permitNumber: null,
      driverId: null,
      variant: null,
      phase: 'final',
      startedAt: at,
      endedAt: at,
      lat: null,
      lon: null,
      place: null,
      confidence: 'confirmed',
      measured: {},
      penalty: { unit: 'ORTN', units: 25, item: priorItem },
      recidivism: {},
      evidenceFrom: at,
      evidenceTo: at,
    };
    await sys.db.transaction((tx) => upsertViolations(tx, [prior]));
    await sys.db.query(`UPDATE violations SET status = 'confirmed' WHERE event_key = $1`, [prior.eventKey]);
    return { vehicleId: vehicle.body.id, identifier, token: device.body.token };
  }

  /** Two minutes of driving now, empty, then the stored FRET_INSPECTION_EXPIRED's recidivism. */
  async function inspectionRecidivism(bus: { vehicleId: string; identifier: string; token: string }) {
    const start = Math.floor(Date.now() / 1000) * 1000 - 180_000;
    const samples = Array.from({ length: 25 }, (_, i) => ({
      deviceId: bus.identifier,
      ts: new Date(start + i * 5000).toISOString(),
      lat: -23.55 + i * 0.0004,
      lon: -46.63,
      speedKmh: 30,
      passengers: 0,
      doorOpen: false,
      tacho: { speedKmh: 30, driverId: `drv-${run}` },
    }));
    expect((await api(sys, 'POST', '/v1/telemetry', samples, bus.token)).status).toBe(200);
    for (let i = 0; i < 80; i++) {
      const { rows } = await sys.db.query<{ recidivism: { count: number; multiplier: number; escalation: unknown } }>(
        `SELECT recidivism FROM violations WHERE vehicle_id = $1 AND rule_id = 'FRET_INSPECTION_EXPIRED'`,
        [bus.vehicleId],
      );
      if (rows[0]) return rows[0].recidivism;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('no FRET_INSPECTION_EXPIRED');
  }

  it('Art. 27: an overdue vistoria (Art. 26 VII) repeats an earlier Art. 26 VII fine of another rule: the fine doubles', async () => {
    const bus = await company('vii', 'Art. 26 VII');
    const r = await inspectionRecidivism(bus);
    expect(r).toMatchObject({ count: 1, multiplier: 2, escalation: { kind: 'double-fine', basis: 'Art. 27' } });
  });

  it('Art. 27: an earlier Art. 26 VI fine (withdrawn registration), of the same rule id as a VII one, is another infraction', async () => {
    const bus = await company('vi', 'Art. 26 VI');
    const r = await inspectionRecidivism(bus);
    expect(r).toMatchObject({ count: 0, multiplier: 1, escalation: null });
  });
});
