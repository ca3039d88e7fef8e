import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type Target, type TestSystem } from './support.js';

interface IngestBody {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}
interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

const targets: Target[] = ['pglite', 'postgres'];

describe.each(targets)('POST /v1/telemetry on %s', (target) => {
  let sys: TestSystem;
  let dev: Awaited<ReturnType<typeof registerVehicle>>;
  const t0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

  beforeAll(async () => {
    sys = await startTestSystem(target);
    dev = await registerVehicle(sys);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const post = (body: unknown, token: string | null = dev.token) =>
    api<IngestBody & ErrorBody>(sys, 'POST', '/v1/telemetry', body, token);
  const sample = (i: number, extra: Record<string, unknown> = {}) => ({
    deviceId: dev.identifier,
    ts: new Date(t0 + i * 10_000).toISOString(),
    lat: -15.7942 + i * 0.001,
    lon: -47.8822,
    speedKmh: 36,
    meter: { state: 'hired', tariff: 1, fareCents: 500 + i * 100, tripId: 't-1' },
    tacho: { speedKmh: 35, driverId: 'D-1' },
    ...extra,
  });

  it('stores a record, a batch, and counts re-sent records as duplicates', async () => {
    const one = await post(sample(0));
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });

    const batch = await post([sample(0), sample(1), sample(2), sample(2)]);
    expect(batch.body).toEqual({ accepted: 2, duplicates: 2, rejected: [] });

    const { rows } = await sys.db.query<{ n: number; dist: number; dt: number }>(
      'SELECT count(*)::int AS n, sum(dist_m)::float8 AS dist, sum(dt_s)::float8 AS dt FROM telemetry WHERE vehicle_id = $1',
      [dev.vehicleId],
    );
    expect(rows[0]?.n).toBe(3);
    // Two steps of 0.001° of latitude (≈ 111 m each), 10 s apart.
    expect(rows[0]?.dist).toBeGreaterThan(215);
    expect(rows[0]?.dist).toBeLessThan(230);
    expect(rows[0]?.dt).toBe(20);
  });

  it('accepts NDJSON, epoch milliseconds, and rejects a bad line without losing the others', async () => {
    const lines = [
      JSON.stringify({ ...sample(10), ts: t0 + 100_000 }),
      '{"deviceId": oops',
      JSON.stringify(sample(11)),
    ].join('\n');
    const res = await fetch(`${sys.url}/v1/telemetry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/x-ndjson' },
      body: lines,
    });
    const body = (await res.json()) as IngestBody;
    expect(res.status).toBe(200);
    expect(body.accepted).toBe(2);
    expect(body.rejected).toEqual([expect.objectContaining({ index: 1, code: 'MALFORMED_JSON' })]);
  });

  it('keeps the live state at the newest sample when an older one arrives late', async () => {
    await post(sample(20));
    await post(sample(15));
    const v = await api<{ live: { ts: string; lat: number; online: boolean } }>(
      sys,
      'GET',
      `/v1/vehicles/${dev.vehicleId}`,
    );
    expect(v.body.live.ts).toBe(new Date(t0 + 200_000).toISOString());
    const late = await sys.db.query<{ dist_m: number }>(
      'SELECT dist_m FROM telemetry WHERE device_id = $1 AND ts = $2',
      [dev.deviceId, new Date(t0 + 150_000).toISOString()],
    );
    expect(late.rows[0]?.dist_m).toBe(0);
  });

  it('rejects malformed JSON with MALFORMED_JSON', async () => {
    const res = await fetch(`${sys.url}/v1/telemetry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' },
      body: '{"deviceId": "x", "ts": ',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe('MALFORMED_JSON');
  });

  it('rejects wrong types per record, and the whole request when nothing is valid', async () => {
    const mixed = await post([
      sample(30),
      { ...sample(31), lat: 'north' },
      { ...sample(32), meter: { state: 'flying' } },
    ]);
    expect(mixed.status).toBe(200);
    expect(mixed.body.accepted).toBe(1);
    expect(mixed.body.rejected.map((r) => [r.index, r.code])).toEqual([
      [1, 'VALIDATION_FAILED'],
      [2, 'VALIDATION_FAILED'],
    ]);
    const none = await post({ ...sample(33), lat: 200 });
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('VALIDATION_FAILED');
    const future = await post({ ...sample(0), ts: new Date(Date.now() + 3600_000).toISOString() });
    expect(future.status).toBe(400);
    expect(future.body.error.code).toBe('FUTURE_TIMESTAMP');
  });

  it('answers 403 UNKNOWN_DEVICE for an unregistered device and 403 DEVICE_MISMATCH for another device', async () => {
    const unknown = await post({ ...sample(40), deviceId: 'NOT-REGISTERED' }, sys.adminToken);
    expect(unknown.status).toBe(403);
    expect(unknown.body.error.code).toBe('UNKNOWN_DEVICE');
    const other = await registerVehicle(sys);
    const mismatch = await post({ ...sample(41), deviceId: other.identifier });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.error.code).toBe('DEVICE_MISMATCH');
    // The gateway/admin token may send for any registered device.
    const gateway = await post({ ...sample(41), deviceId: other.identifier }, sys.adminToken);
    expect(gateway.body.accepted).toBe(1);
  });

  it('answers 401 for a missing or wrong token, and stops a rotated token at once', async () => {
    expect((await post(sample(50), null)).body.error.code).toBe('MISSING_TOKEN');
    const wrong = await post(sample(50), 'vgdev_not-a-real-token');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_TOKEN');
    const d = await registerVehicle(sys);
    const before = await api<IngestBody>(
      sys,
      'POST',
      '/v1/telemetry',
      { ...sample(51), deviceId: d.identifier },
      d.token,
    );
    expect(before.body.accepted).toBe(1);
    const rotated = await api<{ token: string }>(sys, 'POST', `/v1/devices/${d.deviceId}/token`);
    expect(rotated.status).toBe(200);
    const old = await api<ErrorBody>(sys, 'POST', '/v1/telemetry', { ...sample(52), deviceId: d.identifier }, d.token);
    expect(old.status).toBe(401);
    const fresh = await api<IngestBody>(
      sys,
      'POST',
      '/v1/telemetry',
      { ...sample(52), deviceId: d.identifier },
      rotated.body.token,
    );
    expect(fresh.body.accepted).toBe(1);
  });

  it('answers 413 BODY_TOO_LARGE for an oversized body', async () => {
    const big = Array.from({ length: 60_000 }, (_, i) => sample(1000 + i));
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('BODY_TOO_LARGE');
  });

  it('stores device tokens hashed, never in clear', async () => {
    const { rows } = await sys.db.query<{ token_hash: string }>('SELECT token_hash FROM devices WHERE id = $1', [
      dev.deviceId,
    ]);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]?.token_hash).not.toContain(dev.token);
  });
});
