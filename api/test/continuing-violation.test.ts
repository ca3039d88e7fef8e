import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

/**
 * A continuing registry non-compliance is one violation that grows until it ends, not one per
 * day of operation (RULES.md, issue 7 item 9): a DF taxi driving three days on a permit that
 * lapsed 40 days before must not pile up three group-C infractions — three would open
 * cancellation under Art. 53 §3 for what is one unrenewed permit. Through the HTTP ingest and the
 * store: the rule pipeline upserts each day's growth under the same event key.
 */
describe('DF Art. 14 / Art. 17 II — a lapsed permit is one violation that grows, through the HTTP ingest', () => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 8);
  const dayMs = 86_400_000;
  const localDate = (offsetDays: number) =>
    new Date(Date.now() - 3 * 3_600_000 + offsetDays * dayMs).toISOString().slice(0, 10);
  /** 10:00 in Brasília (UTC−03:00) on the local date `offsetDays` from today. */
  const tenAm = (offsetDays: number) => Date.parse(`${localDate(offsetDays)}T13:00:00Z`);

  async function taxi(
    key: string,
    permitValidUntil: string,
  ): Promise<{ vehicleId: string; identifier: string; token: string }> {
    const since = new Date(Date.now() - 10 * dayMs).toISOString();
    const operatorId = `op-${key}-${run}`;
    const op = await api(sys, 'POST', '/v1/operators', {
      id: operatorId,
      name: `Permissionário ${key}`,
      pack: 'df-taxi',
      validFrom: since,
    });
    expect(op.status).toBe(201);
    const vehicle = await api<{ id: string }>(sys, 'POST', '/v1/vehicles', {
      plate: nextPlate(),
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      manufactureYear: new Date().getFullYear() - 2,
      operatorId,
      permitNumber: `DF-${key}-${run}`,
      permitValidUntil,
      validFrom: since,
    });
    expect(vehicle.status).toBe(201);
    const identifier = `IMEI-${Math.random().toString().slice(2, 17)}`;
    const device = await api<{ token: string }>(sys, 'POST', '/v1/devices', { vehicleId: vehicle.body.id, identifier });
    expect(device.status).toBe(201);
    return { vehicleId: vehicle.body.id, identifier, token: device.body.token };
  }

  /** Two minutes of driving, free, at 10:00 on each of the given days. */
  async function drive(t: { identifier: string; token: string }, days: readonly number[]): Promise<void> {
    for (const d of days) {
      const samples = Array.from({ length: 25 }, (_, i) => ({
        deviceId: t.identifier,
        ts: new Date(tenAm(d) + i * 5000).toISOString(),
        lat: -15.7942 + i * 0.0004,
        lon: -47.8822,
        speedKmh: 30,
        meter: { state: 'free' },
      }));
      const res = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', samples, t.token);
      expect(res.body.accepted).toBe(samples.length);
    }
  }

  interface Stored {
    id: string;
    startedAt: string;
    endedAt: string | null;
    confidence: string;
    variant: string | null;
    penalty: { group?: string | null; opensCancellation?: boolean };
  }

  async function permitViolations(vehicleId: string, until: (items: Stored[]) => boolean): Promise<Stored[]> {
    let items: Stored[] = [];
    for (let i = 0; i < 80; i++) {
      const res = await api<{ items: Stored[] }>(
        sys,
        'GET',
        `/v1/violations?vehicleId=${vehicleId}&ruleId=DF_PERMIT_EXPIRED`,
      );
      items = res.body.items;
      if (until(items)) return items;
      await new Promise((r) => setTimeout(r, 100));
    }
    return items;
  }

  beforeAll(async () => {
    sys = await startTestSystem('pglite', { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('Art. 17 II: three days of driving past the 30-day grace are one group-C violation, from the first day to the last', async () => {
    const t = await taxi('lapsed', localDate(-40));
    await drive(t, [-3, -2, -1]);
    const lastDayEnd = tenAm(-1) + 24 * 5000;
    const items = await permitViolations(t.vehicleId, (xs) =>
      xs.some((x) => x.endedAt !== null && Date.parse(x.endedAt) >= lastDayEnd),
    );
    expect(items).toHaveLength(1);
    const [v] = items as [Stored];
    expect(Date.parse(v.startedAt)).toBe(tenAm(-3));
    expect(Date.parse(v.endedAt ?? '')).toBe(lastDayEnd);
    expect(v).toMatchObject({ confidence: 'confirmed', penalty: { group: 'C', opensCancellation: true } });
  });

  it('Art. 14 §3: inside the 30-day grace it is one suspected notice with no group, however many days', async () => {
    const t = await taxi('grace', localDate(-5));
    await drive(t, [-3, -2]);
    const lastDayEnd = tenAm(-2) + 24 * 5000;
    const items = await permitViolations(t.vehicleId, (xs) =>
      xs.some((x) => x.endedAt !== null && Date.parse(x.endedAt) >= lastDayEnd),
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ confidence: 'suspected', penalty: { group: null } });
    expect(items[0]?.penalty.opensCancellation).not.toBe(true);
  });
});
