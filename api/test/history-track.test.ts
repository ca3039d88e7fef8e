import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../src/history/history-store.js';
import {
  api,
  overCapacityRide,
  registerVehicle,
  startTestSystem,
  type Target,
  type TestSystem,
  waitFor,
} from './support.js';

interface TrackFeature {
  geometry: { type: 'LineString' | 'Point'; coordinates: unknown };
  properties: {
    times: string[];
    speedsKmh: (number | null)[];
    meterStates: (string | null)[];
    tariffs: (number | null)[];
    passengers: (number | null)[];
  };
}
interface Track {
  type: string;
  samples: number;
  features: TrackFeature[];
  violations: { id: string; ruleId: string; startedAt: string; endedAt: string | null }[];
  hours: unknown;
}
interface Replay {
  vehicles: { id: string; plate: string; t: number[]; lat: number[]; lon: number[]; meterState: (string | null)[] }[];
}
interface ErrorBody {
  error: { code: string };
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `GET /v1/vehicles/:id/track` and `GET /v1/replay` over telemetry sent the way devices send it
 * (`POST /v1/telemetry`): late and repeated samples, a silence and a jump that split the line,
 * the violation raised on the way, the 24 h and 15 min bounds, and the scope.
 */
describe.each<Target>(['postgres', 'pglite'])('vehicle history on %s', (target) => {
  let sys: TestSystem;
  let taxi: Awaited<ReturnType<typeof registerVehicle>>;
  let other: Awaited<ReturnType<typeof registerVehicle>>;
  // Two hours back, on a whole minute: the track's window is [t0 - 1 min, t0 + 1 h).
  const t0 = Math.floor((Date.now() - 2 * 3_600_000) / 60_000) * 60_000;
  const from = iso(t0 - 60_000);
  const to = iso(t0 + 3_600_000);

  /** Sample `i` of the first stretch: every 10 s, 33 m north (12 km/h); free for 5, then hired on tariff 1 with a passenger. */
  const first = (i: number) => ({
    deviceId: taxi.identifier,
    ts: iso(t0 + i * 10_000),
    lat: -15.8 + i * 0.0003,
    lon: -47.9,
    speedKmh: 10 + i,
    passengers: i < 5 ? 0 : 1,
    meter: i < 5 ? { state: 'free' } : { state: 'hired', tariff: 1, fareCents: 500 + i, tripId: 'trip-h' },
  });

  beforeAll(async () => {
    sys = await startTestSystem(target);
    taxi = await registerVehicle(sys, { pack: 'df-taxi' });
    other = await registerVehicle(sys, { pack: 'df-taxi' });
    const send = async (body: unknown, token = taxi.token) => {
      const res = await api(sys, 'POST', '/v1/telemetry', body, token);
      expect(res.status).toBe(200);
    };
    // Out of order (7–9 before 5–6) and samples 3 and 8 twice.
    await send([0, 1, 2, 3, 4].map(first));
    await send([7, 8, 9].map(first));
    await send([5, 6, 3].map(first));
    await send(first(8));
    // Ten minutes of silence, then a second stretch of 3 samples, then a jump 50 km east 10 s later.
    const second = (i: number, lon = -47.9) => ({
      deviceId: taxi.identifier,
      ts: iso(t0 + 700_000 + i * 10_000),
      lat: -15.79,
      lon,
      speedKmh: 20,
      meter: { state: 'stopped' },
    });
    await send([0, 1, 2].map((i) => second(i)));
    await send(second(3, -47.43));
    // Half an hour in: a minute with 6 passengers in a 4-seat taxi, which raises DF_OVER_CAPACITY.
    await send(overCapacityRide(taxi.identifier, t0 + 1_800_000, 'trip-cap'));
    // The other operator's taxi, in the same area at the same time.
    await send(
      [0, 1, 2].map((i) => ({ deviceId: other.identifier, ts: iso(t0 + i * 10_000), lat: -15.801, lon: -47.901 })),
      other.token,
    );
    await waitFor(
      'the over-capacity violation',
      async () => {
        const res = await api<{ items: unknown[] }>(
          sys,
          'GET',
          `/v1/violations?vehicleId=${taxi.vehicleId}&ruleId=DF_OVER_CAPACITY`,
        );
        return res.body.items.length > 0;
      },
      20_000,
    );
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('splits the track at the silence and the jump, in time order, each sample once', async () => {
    const res = await api<Track>(sys, 'GET', `/v1/vehicles/${taxi.vehicleId}/track?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('FeatureCollection');
    const [a, b, c, d] = res.body.features;
    expect(res.body.features).toHaveLength(4);
    // Stretch 1: ten samples, none repeated, in time order despite the late ones.
    expect(a?.geometry.type).toBe('LineString');
    expect(a?.properties.times).toEqual(Array.from({ length: 10 }, (_, i) => iso(t0 + i * 10_000)));
    expect(a?.properties.speedsKmh).toEqual(Array.from({ length: 10 }, (_, i) => 10 + i));
    expect(a?.properties.meterStates).toEqual([...Array(5).fill('free'), ...Array(5).fill('hired')]);
    expect(a?.properties.tariffs).toEqual([...Array(5).fill(null), ...Array(5).fill(1)]);
    expect(a?.properties.passengers).toEqual([...Array(5).fill(0), ...Array(5).fill(1)]);
    expect((a?.geometry.coordinates as number[][] | undefined)?.[9]).toEqual([-47.9, -15.8 + 9 * 0.0003]);
    // Stretch 2 after the 10-minute silence; the fix 50 km away 10 s later stands alone (a Point).
    expect(b?.properties.times).toEqual([0, 1, 2].map((i) => iso(t0 + 700_000 + i * 10_000)));
    expect(b?.properties.meterStates).toEqual(['stopped', 'stopped', 'stopped']);
    expect(c?.geometry).toEqual({ type: 'Point', coordinates: [-47.43, -15.79] });
    expect(c?.properties.times).toEqual([iso(t0 + 730_000)]);
    // Stretch 3: the over-capacity ride, and its violation on the timeline.
    expect(d?.properties.passengers).toEqual(Array(12).fill(6));
    expect(res.body.samples).toBe(10 + 3 + 1 + 12);
    expect(res.body.violations).toContainEqual(
      expect.objectContaining({ ruleId: 'DF_OVER_CAPACITY', startedAt: expect.any(String) }),
    );
    const v = res.body.violations.find((x) => x.ruleId === 'DF_OVER_CAPACITY');
    expect(Date.parse(v?.startedAt ?? '')).toBeGreaterThanOrEqual(t0 + 1_800_000);
    // The hourly aggregate (db/migrations/010) counts each stored sample once, the repeated ones not.
    const { rows } = await sys.db.query<{ present: boolean }>(
      `SELECT to_regclass('vehicle_hourly') IS NOT NULL AS present`,
    );
    if (rows[0]?.present) {
      const hours = res.body.hours as { samples: number; observedS: number | null }[];
      expect(hours.reduce((n, h) => n + h.samples, 0)).toBe(26);
      expect(hours.every((h) => typeof h.observedS === 'number')).toBe(true);
    } else {
      expect(res.body.hours).toBeNull();
    }
  });

  it('thins a track with stepS, keeping the meter changes and each line’s ends', async () => {
    const res = await api<Track>(sys, 'GET', `/v1/vehicles/${taxi.vehicleId}/track?from=${from}&to=${to}&stepS=30`);
    const a = res.body.features[0];
    // 0, 3 (30 s on), 4 and 5 (free → hired), 8 (30 s after 5), 9 (the end).
    expect(a?.properties.times).toEqual([0, 3, 4, 5, 8, 9].map((i) => iso(t0 + i * 10_000)));
    expect(a?.properties.meterStates).toEqual(['free', 'free', 'free', 'hired', 'hired', 'hired']);
  });

  it('covers at most 24 h, from before to, and refuses unknown parameters', async () => {
    const long = await api<ErrorBody>(
      sys,
      'GET',
      `/v1/vehicles/${taxi.vehicleId}/track?from=${iso(t0 - 86_400_000)}&to=${iso(t0 + 1000)}`,
    );
    expect([long.status, long.body.error.code]).toEqual([400, 'RANGE_TOO_LARGE']);
    const reversed = await api<ErrorBody>(sys, 'GET', `/v1/vehicles/${taxi.vehicleId}/track?from=${to}&to=${from}`);
    expect([reversed.status, reversed.body.error.code]).toEqual([400, 'INVALID_RANGE']);
    const unknown = await api<ErrorBody>(sys, 'GET', `/v1/vehicles/${taxi.vehicleId}/track?since=${from}`);
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'UNKNOWN_FILTER']);
    // Exactly 24 h is allowed.
    const day = await api<Track>(
      sys,
      'GET',
      `/v1/vehicles/${taxi.vehicleId}/track?from=${iso(t0 - 86_400_000 + 1000)}&to=${iso(t0 + 1000)}`,
    );
    expect(day.status).toBe(200);
  });

  it('shows a vehicle only to those who see it: another operator’s is a 404', async () => {
    const user = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Operador',
      role: 'operator',
      operatorIds: [taxi.operatorId],
    });
    const own = await api<Track>(
      sys,
      'GET',
      `/v1/vehicles/${taxi.vehicleId}/track?from=${from}&to=${to}`,
      undefined,
      user.body.token,
    );
    expect(own.status).toBe(200);
    expect(own.body.features).toHaveLength(4);
    const theirs = await api<ErrorBody>(
      sys,
      'GET',
      `/v1/vehicles/${other.vehicleId}/track?from=${from}&to=${to}`,
      undefined,
      user.body.token,
    );
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const missing = await api<ErrorBody>(sys, 'GET', `/v1/vehicles/veh-nope/track`);
    expect(missing.status).toBe(404);
    // The replay narrows the same way: the operator sees its own taxi, not the other one.
    const replay = await api<Replay>(
      sys,
      'GET',
      `/v1/replay?bbox=-47.95,-15.85,-47.85,-15.75&from=${iso(t0 - 60_000)}&to=${iso(t0 + 840_000)}`,
      undefined,
      user.body.token,
    );
    expect(replay.body.vehicles.map((v) => v.id)).toEqual([taxi.vehicleId]);
  });

  it('shows a radio operator’s dispatcher the vehicles it declared, not the others', async () => {
    const radioId = `radio-${target}`;
    const radio = await api(sys, 'POST', '/v1/operators', {
      id: radioId,
      name: 'Rádio Táxi',
      pack: 'df-taxi',
      kind: 'radio-operator',
      declaredVehicleIds: [other.vehicleId],
      validFrom: from,
    });
    expect(radio.status, JSON.stringify(radio.body)).toBe(201);
    const desk = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Central do rádio',
      role: 'dispatcher',
      operatorIds: [radioId],
    });
    const declared = await api<Track>(
      sys,
      'GET',
      `/v1/vehicles/${other.vehicleId}/track?from=${from}&to=${to}`,
      undefined,
      desk.body.token,
    );
    expect(declared.status).toBe(200);
    expect(declared.body.samples).toBe(3);
    const undeclared = await api<ErrorBody>(
      sys,
      'GET',
      `/v1/vehicles/${taxi.vehicleId}/track?from=${from}&to=${to}`,
      undefined,
      desk.body.token,
    );
    expect(undeclared.status).toBe(404);
    const replay = await api<Replay>(
      sys,
      'GET',
      `/v1/replay?bbox=-47.95,-15.85,-47.85,-15.75&from=${iso(t0 - 60_000)}&to=${iso(t0 + 840_000)}`,
      undefined,
      desk.body.token,
    );
    expect(replay.body.vehicles.map((v) => v.id)).toEqual([other.vehicleId]);
  });

  it('replays every vehicle inside the bbox during the window, at most one position per step', async () => {
    const path = (bbox: string, f: number, t: number, extra = '') =>
      `/v1/replay?pack=df-taxi&bbox=${bbox}&from=${iso(f)}&to=${iso(t)}${extra}`;
    const res = await api<Replay>(
      sys,
      'GET',
      path('-47.95,-15.85,-47.85,-15.75', t0 - 60_000, t0 + 840_000, '&stepS=1'),
    );
    expect(res.status).toBe(200);
    const byId = new Map(res.body.vehicles.map((v) => [v.id, v]));
    expect([...byId.keys()].sort()).toEqual([taxi.vehicleId, other.vehicleId].sort());
    const mine = byId.get(taxi.vehicleId);
    // 10 + 3 samples inside; the jump to -47.43 is outside the bbox.
    expect(mine?.t).toEqual([
      ...Array.from({ length: 10 }, (_, i) => t0 + i * 10_000),
      ...[0, 1, 2].map((i) => t0 + 700_000 + i * 10_000),
    ]);
    expect(mine?.meterState.slice(4, 6)).toEqual(['free', 'hired']);
    expect(byId.get(other.vehicleId)?.lat).toEqual([-15.801, -15.801, -15.801]);
    // A 30 s step keeps the first sample of each 30 s.
    const coarse = await api<Replay>(sys, 'GET', path('-47.95,-15.85,-47.85,-15.75', t0, t0 + 100_000, '&stepS=30'));
    expect(coarse.body.vehicles.find((v) => v.id === taxi.vehicleId)?.t).toEqual(
      [0, 3, 6, 9].map((i) => t0 + i * 10_000),
    );
    // Elsewhere, or before: nobody.
    const elsewhere = await api<Replay>(sys, 'GET', path('-47.5,-15.85,-47.45,-15.75', t0, t0 + 600_000));
    expect(elsewhere.body.vehicles).toEqual([]);
    const before = await api<Replay>(sys, 'GET', path('-47.95,-15.85,-47.85,-15.75', t0 - 900_000, t0));
    expect(before.body.vehicles).toEqual([]);
    // Bounds: 15 minutes, half a degree, bbox required.
    const long = await api<ErrorBody>(sys, 'GET', path('-47.95,-15.85,-47.85,-15.75', t0, t0 + 900_001));
    expect([long.status, long.body.error.code]).toEqual([400, 'RANGE_TOO_LARGE']);
    const wide = await api<ErrorBody>(sys, 'GET', path('-48.5,-15.85,-47.85,-15.75', t0, t0 + 60_000));
    expect([wide.status, wide.body.error.code]).toEqual([400, 'AREA_TOO_LARGE']);
    const noBbox = await api<ErrorBody>(sys, 'GET', `/v1/replay?from=${iso(t0)}&to=${iso(t0 + 60_000)}`);
    expect([noBbox.status, noBbox.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it.runIf(target === 'postgres')(
    'prints the query time of 24 h of 1 Hz samples (86 400 rows)',
    async () => {
      const dayStart = t0 - 30 * 86_400_000;
      // Generated in the database (ingesting 86 400 samples over HTTP would measure the ingest).
      await sys.db.query(
        `INSERT INTO telemetry (ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, meter_state, meter_tariff, passengers)
       SELECT to_timestamp($1 / 1000.0) + s * interval '1 second', $2, $3, now(),
              -15.8 + 0.00005 * sin(s / 600.0), -47.9 + 0.00005 * cos(s / 600.0), 30,
              CASE WHEN (s / 900) % 2 = 0 THEN 'hired' ELSE 'free' END, 1, (s / 900) % 2
         FROM generate_series(0, 86399) AS s`,
        [dayStart, taxi.deviceId, taxi.vehicleId],
      );
      const path = `/v1/vehicles/${taxi.vehicleId}/track?from=${iso(dayStart)}&to=${iso(dayStart + 86_400_000)}`;
      await api(sys, 'GET', path); // warm: plan cache, buffers
      const times: number[] = [];
      let track: Track | undefined;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        track = (await api<Track>(sys, 'GET', path)).body;
        times.push(performance.now() - started);
      }
      const sqlStarted = performance.now();
      const { rows } = await sys.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT DISTINCT ON (ts) ts, lat, lon FROM telemetry
        WHERE vehicle_id = $1 AND ts >= $2 AND ts < $3 ORDER BY ts, device_id) s`,
        [taxi.vehicleId, new Date(dayStart), new Date(dayStart + 86_400_000)],
      );
      const sqlMs = performance.now() - sqlStarted;
      // The rows read into Node (what the route does before building the lines and the JSON).
      const readStarted = performance.now();
      const read = await new HistoryStore(sys.db).samples(
        taxi.vehicleId,
        new Date(dayStart),
        new Date(dayStart + 86_400_000),
      );
      const readMs = performance.now() - readStarted;
      expect(read).toHaveLength(86_400);
      expect(rows[0]?.n).toBe(86_400);
      expect(track?.samples).toBe(86_400);
      const thinned = performance.now();
      const small = (await api<Track>(sys, 'GET', `${path}&stepS=60`)).body;
      const thinnedMs = performance.now() - thinned;
      console.log(
        `track of 24 h at 1 Hz (86 400 rows) on PostgreSQL: HTTP ${times.map((t) => t.toFixed(0)).join(' / ')} ms ` +
          `(SQL alone ${sqlMs.toFixed(0)} ms, rows read into Node ${readMs.toFixed(0)} ms); with stepS=60 ${thinnedMs.toFixed(0)} ms, ` +
          `${small.features.reduce((n, f) => n + f.properties.times.length, 0)} points`,
      );
    },
    120_000,
  );
});
