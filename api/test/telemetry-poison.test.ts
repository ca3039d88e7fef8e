import { configSchema } from '@vigia/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type Target, type TestSystem } from './support.js';

/**
 * Issue 8, finding 2, over HTTP: a record carrying a NUL (`tacho.driverId: "x\u0000"`) made the
 * shared write transaction fail, and every record batched with it, from any device, got 503.
 * Now the NUL is refused at the edge (CONTROL_CHARACTER, that record alone), and a record the
 * database refuses for a reason the edge cannot see (the year 0: valid ISO 8601, no PostgreSQL
 * date; reachable when INGEST_MAX_PAST_AGE_S is 0) costs only its sender that record.
 * And finding 8: a record stamped in 1970 is refused (PAST_TIMESTAMP).
 */

interface IngestBody {
  accepted: number;
  duplicates: number;
  rejected: { index: number; code: string; message: string }[];
}
interface ErrorBody {
  error: { code: string; message: string; details?: { rejected?: IngestBody['rejected'] } };
}

/** Every device port on a free one (several systems run at once). */

const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

const sample = (deviceId: string, i: number, extra: Record<string, unknown> = {}) => ({
  deviceId,
  ts: new Date(T0 + i * 10_000).toISOString(),
  lat: -15.7942 + i * 0.001,
  lon: -47.8822,
  speedKmh: 36,
  meter: { state: 'hired', tariff: 1, fareCents: 500, tripId: 't-1' },
  tacho: { speedKmh: 35, driverId: 'D-1' },
  ...extra,
});

describe.each<Target>(['pglite', 'postgres'])('one bad record costs no one else their data, on %s', (target) => {
  let sys: TestSystem;
  let one: Awaited<ReturnType<typeof registerVehicle>>;
  let two: Awaited<ReturnType<typeof registerVehicle>>;

  beforeAll(async () => {
    // No past bound, so the year 0 reaches the database; a long batch wait so that concurrent
    // requests share one transaction, as they do under load.
    sys = await startTestSystem(target, { INGEST_MAX_PAST_AGE_S: '0', INGEST_BATCH_MAX_WAIT_MS: '150' });
    one = await registerVehicle(sys);
    two = await registerVehicle(sys);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const post = (body: unknown, token: string | null = sys.adminToken) =>
    api<IngestBody & ErrorBody>(sys, 'POST', '/v1/telemetry', body, token);
  const count = async (vehicleId: string) => {
    const { rows } = await sys.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM telemetry WHERE vehicle_id = $1',
      [vehicleId],
    );
    return rows[0]?.n ?? 0;
  };

  it('refuses tacho.driverId "x\\u0000" alone with CONTROL_CHARACTER; the batch from two devices is stored', async () => {
    const batch = [
      sample(one.identifier, 0),
      sample(two.identifier, 0),
      sample(one.identifier, 1, { tacho: { driverId: 'x\u0000' } }),
      sample(two.identifier, 1),
    ];
    const res = await post(batch);
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(3);
    expect(res.body.rejected).toEqual([
      { index: 2, code: 'CONTROL_CHARACTER', message: expect.stringContaining('tacho.driverId') },
    ]);
  });

  it.each([
    ['deviceId', { deviceId: 'dev\u0000' }],
    ['meter.tripId (DEL)', { meter: { state: 'hired', tripId: 'trip\u007f' } }],
    ['meter.tripId (a lone surrogate)', { meter: { state: 'hired', tripId: 'trip\ud800' } }],
    ['tacho.driverId (a line break)', { tacho: { driverId: 'D-1\nD-2' } }],
  ])('refuses a control character in %s with CONTROL_CHARACTER (400 when it is the only record)', async (_, extra) => {
    const res = await post(sample(one.identifier, 5, extra));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('CONTROL_CHARACTER');
  });

  it('keeps a text with characters beyond ASCII (a surrogate pair, accents)', async () => {
    const res = await post(sample(one.identifier, 6, { tacho: { driverId: 'João 🚕' } }));
    expect(res.body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
  });

  it('a record the database refuses fails only its sender, and only that record, in a shared transaction', async () => {
    const before = [await count(one.vehicleId), await count(two.vehicleId)];
    const poisoned = [sample(two.identifier, 20, { ts: '0000-06-15T00:00:00Z' }), sample(two.identifier, 21)];
    const healthy = [sample(one.identifier, 20), sample(one.identifier, 21), sample(one.identifier, 22)];
    const [bad, good] = await Promise.all([post(poisoned, two.token), post(healthy, one.token)]);
    expect(good.status).toBe(200);
    expect(good.body).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
    expect(bad.status).toBe(200);
    expect(bad.body.accepted).toBe(1);
    expect(bad.body.rejected).toEqual([
      { index: 0, code: 'UNSTORABLE_RECORD', message: expect.stringContaining('SQLSTATE 22008') },
    ]);
    // The database's own words (table, column) are not in the answer.
    expect(bad.body.rejected[0]?.message).not.toMatch(/telemetry|out of range/);
    expect([await count(one.vehicleId), await count(two.vehicleId)]).toEqual([before[0]! + 3, before[1]! + 1]);
  });

  it('answers 400 UNSTORABLE_RECORD when the only record is one the database refuses', async () => {
    const res = await post(sample(two.identifier, 30, { ts: '0000-06-15T00:00:00Z' }), two.token);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('UNSTORABLE_RECORD');
  });
});

describe('the past is bounded like the future (INGEST_MAX_PAST_AGE_S)', () => {
  let sys: TestSystem;
  let dev: Awaited<ReturnType<typeof registerVehicle>>;

  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    dev = await registerVehicle(sys);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('defaults to 400 days and can be switched off with 0', () => {
    expect(configSchema.shape.INGEST_MAX_PAST_AGE_S.parse(undefined)).toBe(400 * 86_400);
    expect(sys.config.INGEST_MAX_PAST_AGE_S).toBe(400 * 86_400);
    expect(configSchema.shape.INGEST_MAX_PAST_AGE_S.parse('0')).toBe(0);
    expect(configSchema.shape.INGEST_MAX_PAST_AGE_S.safeParse('-1').success).toBe(false);
  });

  it('refuses records from 1970 with PAST_TIMESTAMP and keeps a backlog within the bound', async () => {
    const backlog = new Date(Date.now() - 20 * 86_400_000).toISOString();
    const res = await api<IngestBody>(
      sys,
      'POST',
      '/v1/telemetry',
      [
        sample(dev.identifier, 0, { ts: 0 }),
        sample(dev.identifier, 0, { ts: '1970-01-01T00:00:00Z' }),
        sample(dev.identifier, 0, { ts: backlog }),
        sample(dev.identifier, 0, { ts: new Date(Date.now() - 401 * 86_400_000).toISOString() }),
      ],
      dev.token,
    );
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(1);
    expect(res.body.rejected.map((r) => [r.index, r.code])).toEqual([
      [0, 'PAST_TIMESTAMP'],
      [1, 'PAST_TIMESTAMP'],
      [3, 'PAST_TIMESTAMP'],
    ]);
    expect(res.body.rejected[0]?.message).toMatch(/1970-01-01T00:00:00.000Z is more than 34560000 s behind/);
  });
});
