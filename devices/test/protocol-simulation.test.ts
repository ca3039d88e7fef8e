import { type RunningSystem, startSystem } from '@vigia/api';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BatchWriter } from '../../ingest/src/batch-writer.js';
import { DeviceDirectory } from '../../ingest/src/device-directory.js';
import { type RunningProtocolGateways, startProtocolGateways } from '../../ingest/src/gateways/index.js';
import { QuarantineStore } from '../../ingest/src/quarantine/quarantine-store.js';
import { buildRoster } from '../src/fleet/roster.js';
import { type SimulatorOptions, startSimulator } from '../src/simulator.js';
import { PARKED_REPORT_INTERVAL_MS } from '../src/vehicles/sim-vehicle.js';
import { capturingLogger, deviceListSchema } from './support.js';

/**
 * `--protocol teltonika` and `--protocol osmand` end to end: the simulator registers the fleet
 * through the real API, the registry is aligned to the protocol, and the emulated devices stream
 * through the real gateways into PostgreSQL — then the same fleet switches protocol and back.
 * (The gateways are started here beside the system; the process wiring is the lead's.)
 */

const FLEET = 6;

const vehicleListSchema = z.object({
  items: z.array(z.looseObject({ id: z.string(), live: z.looseObject({ ts: z.string() }).nullable() })),
});

describe('the simulator over the device protocols', () => {
  let scratch: ScratchDatabase;
  let sys: RunningSystem;
  let gateways: RunningProtocolGateways;
  let writer: BatchWriter;
  const ids = buildRoster(FLEET, Date.now()).entries.map((e) => e.vehicle.id);

  const api = async (path: string) => {
    const res = await fetch(`${sys.url}${path}`, { headers: { authorization: `Bearer ${sys.adminToken}` } });
    expect(res.status).toBe(200);
    return res.json() as Promise<unknown>;
  };

  // A parked vehicle reports once a minute (PARKED_REPORT_INTERVAL_MS): wait past that.
  async function waitForLive(since: number, timeoutMs = PARKED_REPORT_INTERVAL_MS + 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { items } = vehicleListSchema.parse(await api('/v1/vehicles?limit=1000'));
      const fresh = ids.filter((id) => {
        const live = items.find((v) => v.id === id)?.live;
        return live && Date.parse(live.ts) >= since;
      });
      if (fresh.length === ids.length) return;
      if (Date.now() > deadline)
        throw new Error(`Only ${fresh.length}/${ids.length} vehicles live after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function run(options: Partial<SimulatorOptions>) {
    const capture = capturingLogger();
    const since = Date.now();
    const sim = await startSimulator({
      apiUrl: sys.url,
      adminToken: sys.adminToken,
      vehicles: FLEET,
      intervalMs: 250,
      seed: 5,
      logger: capture.log,
      ...options,
    });
    await waitForLive(since);
    await sim.stop();
    const problems = capture.lines.filter((l) => l.level >= 40);
    expect(problems, JSON.stringify(problems)).toEqual([]);
    const { items } = deviceListSchema.parse(await api('/v1/devices?limit=1000'));
    return items.filter((d) => d.id.startsWith('sim-dev-'));
  }

  beforeAll(async () => {
    scratch = await createScratchDatabase('vigia_devproto');
    sys = await startSystem({
      PORT: '0',
      OSMAND_PORT: '0',
      TELTONIKA_PORT: '0',
      GT06_PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: scratch.url,
      ADMIN_TOKEN: 'protocol-simulation-admin-token',
      DEMO: 'off',
      LOG_LEVEL: 'silent',
    });
    const log = pino({ level: 'silent' });
    writer = new BatchWriter({
      db: sys.db,
      log,
      maxRecords: 1000,
      maxWaitMs: 5,
      maxPending: 50_000,
      concurrency: 2,
      onCommitted: () => {},
    });
    gateways = await startProtocolGateways({
      config: { OSMAND_PORT: 0, TELTONIKA_PORT: 0, INGEST_MAX_FUTURE_SKEW_S: 300, HOST: '127.0.0.1' },
      log,
      // No cache: the simulator re-registers devices under another protocol between runs.
      devices: new DeviceDirectory(sys.db, 0),
      writer,
      quarantine: new QuarantineStore(sys.db),
    });
  });

  afterAll(async () => {
    await gateways?.close();
    await writer?.close();
    await sys?.close();
    await scratch?.drop();
  });

  it('streams the fleet as Teltonika trackers, with IMEIs and the shipped profiles', async () => {
    const devices = await run({
      protocol: 'teltonika',
      teltonika: { host: '127.0.0.1', port: gateways.teltonikaPort },
    });
    expect(devices).toHaveLength(FLEET);
    for (const d of devices) {
      expect(d.protocol).toBe('teltonika');
      expect(d.identifier).toMatch(/^35999\d{10}$/);
      expect(d.profile).toBe(d.id.includes('-sp-') ? 'teltonika-fmc650-bus' : 'teltonika-fmc130-taxi');
    }
    // The profile-mapped fields made it into the rows: taximeter for taxis, occupancy for buses.
    const { rows } = await sys.db.query<{ taxis_with_meter: number; buses_with_count: number }>(
      `SELECT count(*) FILTER (WHERE device_id NOT LIKE 'sim-dev-sp-%' AND meter_state IS NOT NULL)::int AS taxis_with_meter,
              count(*) FILTER (WHERE device_id LIKE 'sim-dev-sp-%' AND passengers IS NOT NULL)::int AS buses_with_count
       FROM telemetry`,
    );
    expect(rows[0]?.taxis_with_meter).toBeGreaterThan(0);
    expect(rows[0]?.buses_with_count).toBeGreaterThan(0);
    expect(await gateways.metrics.value('stored', { protocol: 'teltonika', transport: 'tcp' })).toBeGreaterThan(0);
  }, 120_000);

  it('switches the same fleet to OsmAnd (Traccar Client) and back to native', async () => {
    const osmand = await run({ protocol: 'osmand', osmand: `127.0.0.1:${gateways.osmandPort}` });
    for (const d of osmand) {
      expect(d).toMatchObject({ protocol: 'osmand', profile: 'osmand-traccar-client' });
      expect(d.identifier).toMatch(/^SIM-/);
    }
    expect(await gateways.metrics.value('stored', { protocol: 'osmand', transport: 'http' })).toBeGreaterThan(0);
    const native = await run({});
    for (const d of native) expect(d).toMatchObject({ protocol: 'native', profile: null });
  }, 200_000);
});
