import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from './support.js';

interface Device {
  vehicleId: string;
  protocol: string;
}
interface Vehicle {
  id: string;
  live?: { online: boolean } | null;
}

/**
 * DEMO_PROTOCOL=mixed: the embedded demo fleet talks all four protocols, through this process's
 * own gateways on the ports they bound (here ephemeral ones), and every protocol's vehicles are live.
 */
describe('embedded demo over every device protocol', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('pglite', {
      DEMO: 'on',
      DEMO_PROTOCOL: 'mixed',
      DEMO_VEHICLES: '16',
      DEMO_INTERVAL_MS: '500',
    });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('registers devices of the four protocols and shows each protocol’s vehicles live', async () => {
    const deadline = Date.now() + 30_000;
    let liveProtocols = new Set<string>();
    let protocols = new Set<string>();
    while (Date.now() < deadline) {
      const devices = (await api<{ items: Device[] }>(sys, 'GET', '/v1/devices?limit=100')).body.items;
      const vehicles = (await api<{ items: Vehicle[] }>(sys, 'GET', '/v1/vehicles?limit=100')).body.items;
      const online = new Set(vehicles.filter((v) => v.live?.online).map((v) => v.id));
      protocols = new Set(devices.map((d) => d.protocol));
      liveProtocols = new Set(devices.filter((d) => online.has(d.vehicleId)).map((d) => d.protocol));
      if (liveProtocols.size === 4) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect([...protocols].sort()).toEqual(['gt06', 'native', 'osmand', 'teltonika']);
    expect([...liveProtocols].sort()).toEqual(['gt06', 'native', 'osmand', 'teltonika']);
  }, 45_000);
});
