import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbStandQueues } from '../src/dispatch/stand-queues.js';
import { fixedStand } from './dispatch-bookings-support.js';
import { api, registerVehicle, startTestSystem, type Target, type TestSystem } from './support.js';

/** A square polygon ring of `size` degrees with its south-west corner at (lon, lat). */
const square = (lon: number, lat: number, size = 0.0004): number[][] => [
  [lon, lat],
  [lon + size, lat],
  [lon + size, lat + size],
  [lon, lat + size],
  [lon, lat],
];

describe.each<Target>(['pglite', 'postgres'])('stand queues store (%s)', (target) => {
  let sys: TestSystem;
  let queues: DbStandQueues;

  beforeAll(async () => {
    sys = await startTestSystem(target);
    queues = new DbStandQueues({ db: sys.db, bus: sys.bus, log: sys.log });
  });
  afterAll(async () => {
    queues?.close();
    await sys?.stop();
  });

  it('reads the queue in line order with plates and waited time, and finds the stand at a pickup', async () => {
    const stand = await api<{ id: string }>(sys, 'POST', '/v1/stands', {
      pack: 'df-taxi',
      name: 'Ponto Setor Comercial',
      geometry: { type: 'Polygon', coordinates: [square(-47.885, -15.797)] },
      places: 4,
      kind: 'livre',
    });
    expect(stand.status).toBe(201);
    const a = await registerVehicle(sys);
    const b = await registerVehicle(sys);
    const now = new Date('2026-11-30T12:00:00Z');
    await sys.db.query(
      `INSERT INTO stand_queues (stand_id, pack, items, as_of) VALUES ($1, 'df-taxi', $2::jsonb, $3)`,
      [
        stand.body.id,
        JSON.stringify([
          { vehicleId: b.vehicleId, enteredAt: '2026-11-30T11:50:00.000Z' },
          { vehicleId: a.vehicleId, enteredAt: '2026-11-30T11:55:00.000Z' },
        ]),
        now,
      ],
    );
    const items = await queues.queue(stand.body.id, now);
    expect(items.map((i) => [i.vehicleId, i.waitedS])).toEqual([
      [b.vehicleId, 600],
      [a.vehicleId, 300],
    ]);
    expect(items.every((i) => typeof i.plate === 'string' && i.plate.length > 0)).toBe(true);
    expect(await queues.queue('stand-unknown', now)).toEqual([]);

    // Inside the area; 30 m out of it with 50 m allowed; 30 m out with 10 m; another pack.
    expect(await queues.standAt({ lat: -15.7968, lon: -47.8848 }, 'df-taxi', 0)).toEqual({
      id: stand.body.id,
      name: 'Ponto Setor Comercial',
    });
    const outside = { lat: -15.7966 + 0.00027, lon: -47.8848 };
    expect((await queues.standAt(outside, 'df-taxi', 50))?.id).toBe(stand.body.id);
    expect(await queues.standAt(outside, 'df-taxi', 10)).toBeNull();
    expect(await queues.standAt({ lat: -15.7968, lon: -47.8848 }, 'belem-taxi', 50)).toBeNull();

    // A stand registered later is found once the registry change has been published.
    const second = await api<{ id: string }>(sys, 'POST', '/v1/stands', {
      pack: 'df-taxi',
      name: 'Ponto Hospital',
      geometry: { type: 'Point', coordinates: [-47.89, -15.8] },
      radiusM: 20,
      places: 2,
      kind: 'livre',
    });
    expect(second.status).toBe(201);
    expect((await queues.standAt({ lat: -15.8, lon: -47.89 }, 'df-taxi', 0))?.id).toBe(second.body.id);
  });
});

interface QueueBody {
  items: { vehicleId: string; plate: string | null; enteredAt: string; waitedS: number }[];
}

/**
 * The queue through the real path: telemetry in through `POST /v1/telemetry`, judged by the live
 * rules, stored by the rule pipeline, read back through `GET /v1/stands/:id/queue`; and checked
 * against the rules' own judgement of the same stand (DF_STAND_QUEUE_JUMP).
 */
describe.each<Target>(['pglite', 'postgres'])('stand queue end to end (%s)', (target) => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem(target);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const STAND = { lat: -15.7939, lon: -47.8828 };
  /** A spot `i` × 3 m north-east of the stand's centre. */
  const spot = (i: number) => ({
    lat: STAND.lat + (3 * i * Math.SQRT1_2) / 111_195,
    lon: STAND.lon + (3 * i * Math.SQRT1_2) / (111_195 * Math.cos((STAND.lat * Math.PI) / 180)),
  });

  /** Samples every 5 s from `fromS` to `toS` (after t0): waiting at the stand, or hired and driving off from `hiredS`. */
  function samples(identifier: string, i: number, t0: number, fromS: number, toS: number, hiredS?: number) {
    const out: object[] = [];
    for (let s = fromS; s <= toS; s += 5) {
      const hired = hiredS !== undefined && s >= hiredS;
      // Hired: 15 s at the stand, then away east at 36 km/h (10 m/s).
      const away = hired ? Math.max(0, s - hiredS - 15) * 10 : 0;
      const p = spot(i);
      out.push({
        deviceId: identifier,
        ts: new Date(t0 + s * 1000).toISOString(),
        lat: p.lat,
        lon: p.lon + away / (111_195 * Math.cos((STAND.lat * Math.PI) / 180)),
        speedKmh: away > 0 ? 36 : 0,
        passengers: hired ? 1 : 0,
        meter: { state: hired ? 'hired' : 'free' },
      });
    }
    return out;
  }

  async function queueUntil(standId: string, done: (ids: string[]) => boolean): Promise<QueueBody['items']> {
    const start = Date.now();
    for (;;) {
      const res = await api<QueueBody>(sys, 'GET', `/v1/stands/${standId}/queue`);
      expect(res.status).toBe(200);
      if (done(res.body.items.map((i) => i.vehicleId)) || Date.now() - start > 5000) return res.body.items;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('lists the holders waiting in the order they entered; hired taxis leave it; a jump names those the route listed ahead', async () => {
    const [a, b, c, d] = [
      await registerVehicle(sys),
      await registerVehicle(sys),
      await registerVehicle(sys),
      await registerVehicle(sys),
    ];
    if (!a || !b || !c || !d) throw new Error('vehicles');
    const stand = await fixedStand(sys, 'Ponto fixo Conjunto Nacional', STAND, [a.vehicleId, b.vehicleId, c.vehicleId]);
    const post = async (dev: { token: string }, body: object[]) =>
      expect((await api(sys, 'POST', '/v1/telemetry', body, dev.token)).status).toBe(200);

    // A at 0 s, B at 60 s, D (not a holder) at 90 s, C at 120 s, all meters free.
    const t0 = Math.floor(Date.now() / 1000) * 1000 - 15 * 60_000;
    await post(a, samples(a.identifier, 0, t0, 0, 180));
    await post(b, samples(b.identifier, 1, t0, 60, 180));
    await post(d, samples(d.identifier, 2, t0, 90, 180));
    await post(c, samples(c.identifier, 3, t0, 120, 180));
    const listed = await queueUntil(stand.id, (ids) => ids.length === 3);
    const now = Date.now();
    expect(listed.map((i) => i.vehicleId)).toEqual([a.vehicleId, b.vehicleId, c.vehicleId]);
    expect(listed.map((i) => i.enteredAt)).toEqual([0, 60, 120].map((s) => new Date(t0 + s * 1000).toISOString()));
    listed.forEach((item, k) => {
      const expected = (now - (t0 + [0, 60, 120][k]! * 1000)) / 1000;
      expect(Math.abs(item.waitedS - expected)).toBeLessThanOrEqual(6);
    });
    const plates = await Promise.all(
      [a, b, c].map(async (v) => (await api<{ plate: string }>(sys, 'GET', `/v1/vehicles/${v.vehicleId}`)).body.plate),
    );
    expect(listed.map((i) => i.plate)).toEqual(plates);

    // C, third in line, takes a passenger at 200 s: it leaves the queue.
    await post(c, samples(c.identifier, 3, t0, 185, 260, 200));
    await post(a, samples(a.identifier, 0, t0, 185, 260));
    await post(b, samples(b.identifier, 1, t0, 185, 260));
    await post(d, samples(d.identifier, 2, t0, 185, 260));
    expect((await queueUntil(stand.id, (ids) => ids.length === 2)).map((i) => i.vehicleId)).toEqual([
      a.vehicleId,
      b.vehicleId,
    ]);

    // A, the head, takes one at 300 s: B alone is left, and no jump is A's.
    await post(a, samples(a.identifier, 0, t0, 265, 480, 300));
    await post(b, samples(b.identifier, 1, t0, 265, 480));
    await post(d, samples(d.identifier, 2, t0, 265, 480));
    await post(c, samples(c.identifier, 3, t0, 265, 480, 200));
    expect((await queueUntil(stand.id, (ids) => ids.length === 1)).map((i) => i.vehicleId)).toEqual([b.vehicleId]);

    // The rules' own judgement of C's hire names the taxis the route listed ahead of it.
    type Violation = { vehicleId: string; measured: { jumpedOver?: string[] } };
    let jumps: Violation[] = [];
    const start = Date.now();
    while (jumps.length === 0 && Date.now() - start < 5000) {
      jumps = (await api<{ items: Violation[] }>(sys, 'GET', '/v1/violations?ruleId=DF_STAND_QUEUE_JUMP')).body.items;
      if (jumps.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(jumps.map((v) => v.vehicleId)).toEqual([c.vehicleId]);
    const ahead = listed
      .slice(
        0,
        listed.findIndex((i) => i.vehicleId === c.vehicleId),
      )
      .map((i) => i.vehicleId);
    expect(jumps[0]?.measured.jumpedOver).toEqual(ahead);
  });

  it('answers 404 STAND_NOT_FOUND for a stand never registered, and no queue at a retired one', async () => {
    const res = await api<{ error: { code: string } }>(sys, 'GET', '/v1/stands/stand-nowhere/queue');
    expect([res.status, res.body.error.code]).toEqual([404, 'STAND_NOT_FOUND']);
    const taxi = await registerVehicle(sys);
    const stand = await api<{ id: string }>(sys, 'POST', '/v1/stands', {
      pack: 'df-taxi',
      name: 'Ponto desativado',
      geometry: { type: 'Point', coordinates: [-47.9, -15.81] },
      radiusM: 20,
      places: 2,
      kind: 'livre',
    });
    await sys.db.query(
      `INSERT INTO stand_queues (stand_id, pack, items, as_of) VALUES ($1, 'df-taxi', $2::jsonb, now())`,
      [stand.body.id, JSON.stringify([{ vehicleId: taxi.vehicleId, enteredAt: new Date().toISOString() }])],
    );
    expect((await api<QueueBody>(sys, 'GET', `/v1/stands/${stand.body.id}/queue`)).body.items).toHaveLength(1);
    expect((await api(sys, 'DELETE', `/v1/stands/${stand.body.id}`)).status).toBe(200);
    const retired = await api<QueueBody>(sys, 'GET', `/v1/stands/${stand.body.id}/queue`);
    expect([retired.status, retired.body.items]).toEqual([200, []]);
  });
});
