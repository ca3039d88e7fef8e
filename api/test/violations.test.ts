import type { LiveViolation } from '@vigia/core';
import { upsertViolations, type ViolationUpsert } from '@vigia/ingest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from './support.js';

interface ErrorBody {
  error: { code: string };
}
interface Violation {
  id: string;
  ruleId: string;
  status: string;
  endedAt: string | null;
  measured: Record<string, unknown>;
}

describe('violations API', () => {
  let sys: TestSystem;
  let dev: Awaited<ReturnType<typeof registerVehicle>>;
  const t0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

  const event = (key: string, startOffsetS: number, extra: Partial<ViolationUpsert> = {}): ViolationUpsert => ({
    eventKey: key,
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack: 'df-taxi',
    legalBasis: ['Art. 45 III', 'Art. 48 III'],
    description: 'Bandeira II fora do horário permitido',
    descriptionEn: 'Tariff 2 outside its hours',
    vehicleId: dev.vehicleId,
    plate: 'JKL1A23',
    operatorId: dev.operatorId,
    permitNumber: 'DF-0001',
    driverId: 'D-7',
    variant: null,
    phase: 'ongoing',
    startedAt: new Date(t0 + startOffsetS * 1000),
    endedAt: null,
    lat: -15.79,
    lon: -47.88,
    place: null,
    confidence: 'confirmed',
    measured: { stretchM: 250 },
    penalty: { group: 'C' },
    recidivism: { count: 0, windowDays: 730 },
    evidenceFrom: new Date(t0 + (startOffsetS - 120) * 1000),
    evidenceTo: new Date(t0 + (startOffsetS + 120) * 1000),
    ...extra,
  });

  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    dev = await registerVehicle(sys, { operatorId: 'coop-vio' });
    // The trace the evidence is cut from.
    const samples = Array.from({ length: 30 }, (_, i) => ({
      deviceId: dev.identifier,
      ts: new Date(t0 + (i - 5) * 10_000).toISOString(),
      lat: -15.79 + i * 0.0003,
      lon: -47.88,
      // Tariff 1: tariff 2 an hour ago on a weekday between 06:00 and 20:00 in Brasília would be a
      // live DF_BANDEIRA2_MISUSE of its own, and the lists below would depend on the hour.
      meter: { state: 'hired', tariff: 1 },
    }));
    expect((await api(sys, 'POST', '/v1/telemetry', samples, dev.token)).status).toBe(200);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('raises an event once and updates it as it grows', async () => {
    const [raised] = await sys.db.transaction((tx) => upsertViolations(tx, [event('k-grow', 0)]));
    expect(raised?.change).toBe('raised');
    const [grown] = await sys.db.transaction((tx) =>
      upsertViolations(tx, [event('k-grow', 0, { endedAt: new Date(t0 + 90_000), measured: { stretchM: 900 } })]),
    );
    expect(grown).toMatchObject({ id: raised?.id, change: 'updated' });
    const list = await api<{ items: Violation[] }>(sys, 'GET', `/v1/violations?vehicleId=${dev.vehicleId}`);
    const mine = list.body.items.filter((v) => v.id === raised?.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.measured).toEqual({ stretchM: 900 });
  });

  it('lists newest first with filters and paging, and opens one with its evidence trace', async () => {
    await sys.db.transaction((tx) =>
      upsertViolations(tx, [
        event('k-a', 60),
        event('k-b', 120, { ruleId: 'DF_OVER_CAPACITY', legalBasis: ['Art. 24'] }),
        event('k-c', 180),
      ]),
    );
    const page1 = await api<{ items: Violation[]; next: string }>(
      sys,
      'GET',
      '/v1/violations?ruleId=DF_BANDEIRA2_MISUSE&limit=2',
    );
    expect(page1.body.items).toHaveLength(2);
    const page2 = await api<{ items: Violation[]; next: string | null }>(
      sys,
      'GET',
      `/v1/violations?ruleId=DF_BANDEIRA2_MISUSE&limit=2&cursor=${page1.body.next}`,
    );
    const all = [...page1.body.items, ...page2.body.items];
    expect(all.map((v) => v.ruleId).every((r) => r === 'DF_BANDEIRA2_MISUSE')).toBe(true);
    expect(all).toHaveLength(3);
    const starts = all.map((v) => Date.parse((v as unknown as { startedAt: string }).startedAt));
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);

    const inBox = await api<{ items: Violation[] }>(sys, 'GET', '/v1/violations?bbox=-47.9,-15.8,-47.8,-15.7');
    expect(inBox.body.items.length).toBe(4);
    const outBox = await api<{ items: Violation[] }>(sys, 'GET', '/v1/violations?bbox=-48.5,-1.5,-48.4,-1.4');
    expect(outBox.body.items).toEqual([]);
    const badBox = await api<ErrorBody>(sys, 'GET', '/v1/violations?bbox=1,2,3');
    expect(badBox.body.error.code).toBe('VALIDATION_FAILED');

    const detail = await api<{ evidence: { trace: { type: string; coordinates: number[][] }; samples: unknown[] } }>(
      sys,
      'GET',
      `/v1/violations/${all[0]?.id}`,
    );
    expect(detail.body.evidence.trace.type).toBe('LineString');
    // The newest event starts at +180 s: its window is +60 s … +300 s, and the trace (every 10 s
    // from −50 s to +240 s) has the samples at +60 s … +240 s in it.
    expect(detail.body.evidence.samples.length).toBe(19);
    expect(detail.body.evidence.trace.coordinates.length).toBe(detail.body.evidence.samples.length);
  });

  it('reviews with a reason, keeps the trail, and refuses impossible transitions', async () => {
    const [v] = await sys.db.transaction((tx) => upsertViolations(tx, [event('k-review', 300)]));
    const pushed: LiveViolation[] = [];
    sys.bus.subscribe((m) => {
      if (m.type === 'violation') pushed.push(...m.violations);
    });
    const noReason = await api<ErrorBody>(sys, 'POST', `/v1/violations/${v?.id}/review`, { decision: 'confirm' });
    expect(noReason.body.error.code).toBe('VALIDATION_FAILED');
    const notify = await api<ErrorBody>(sys, 'POST', `/v1/violations/${v?.id}/review`, {
      decision: 'notify',
      reason: 'too early',
    });
    expect([notify.status, notify.body.error.code]).toEqual([409, 'INVALID_TRANSITION']);
    const confirmed = await api<Violation>(sys, 'POST', `/v1/violations/${v?.id}/review`, {
      decision: 'confirm',
      reason: 'Trace and meter agree',
    });
    expect(confirmed.body.status).toBe('confirmed');
    await new Promise((r) => setTimeout(r, 20));
    expect(pushed).toContainEqual(expect.objectContaining({ id: v?.id, status: 'confirmed', change: 'updated' }));
    const operatorUser = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Op',
      role: 'operator',
      operatorIds: ['coop-vio'],
    });
    const byOperator = await api<ErrorBody>(
      sys,
      'POST',
      `/v1/violations/${v?.id}/review`,
      { decision: 'dismiss', reason: 'not me' },
      operatorUser.body.token,
    );
    expect(byOperator.status).toBe(403);
    // The operator sees its own violations, and the review trail.
    const seen = await api<{ reviews: { decision: string; reason: string; toStatus: string }[] }>(
      sys,
      'GET',
      `/v1/violations/${v?.id}`,
      undefined,
      operatorUser.body.token,
    );
    expect(seen.body.reviews).toEqual([
      expect.objectContaining({ decision: 'confirm', reason: 'Trace and meter agree', toStatus: 'confirmed' }),
    ]);
    // A grown event keeps its review status.
    await sys.db.transaction((tx) => upsertViolations(tx, [event('k-review', 300, { endedAt: new Date() })]));
    expect((await api<Violation>(sys, 'GET', `/v1/violations/${v?.id}`)).body.status).toBe('confirmed');
  });

  it('exports the filtered list as CSV', async () => {
    const res = await fetch(`${sys.url}/v1/violations/export.csv?ruleId=DF_OVER_CAPACITY`, {
      headers: { authorization: `Bearer ${sys.adminToken}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toMatch(/^id,ruleId,pack,legalBasis/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('DF_OVER_CAPACITY');
    expect(lines[1]).toContain('Art. 24');
  });
});
