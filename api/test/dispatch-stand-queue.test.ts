import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DbStandQueues } from '../src/dispatch/stand-queues.js';
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
