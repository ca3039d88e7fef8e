import { type RunningSystem, startSystem } from '@vigia/api';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_PROTOCOLS, mixedProtocol, type SimProtocol } from '../src/emulators/protocol-devices.js';
import { buildRoster } from '../src/fleet/roster.js';
import { startSimulator } from '../src/simulator.js';
import { capturingLogger, deviceListSchema, freePort } from './support.js';

/**
 * `npm run simulate -- --protocol gt06` and `--protocol mixed` against a real system: the fleet
 * registered through the API and aligned to its protocols (IMEIs and the shipped GT06 profiles for
 * the GT06 trackers), then streaming through the system's own gateways until every device has
 * reported. (That the samples arrive as sent, once, is `gt06-gateway.test.ts`.)
 */

describe('the simulator over GT06', () => {
  let scratch: ScratchDatabase;
  let sys: RunningSystem;
  const ports = { gt06: 0, teltonika: 0, osmand: 0 };

  beforeAll(async () => {
    ports.gt06 = await freePort();
    ports.teltonika = await freePort();
    ports.osmand = await freePort();
    scratch = await createScratchDatabase('vigia_gt06sim');
    sys = await startSystem({
      PORT: '0',
      OSMAND_PORT: String(ports.osmand),
      TELTONIKA_PORT: String(ports.teltonika),
      GT06_PORT: String(ports.gt06),
      HOST: '127.0.0.1',
      DATABASE_URL: scratch.url,
      ADMIN_TOKEN: 'gt06-simulation-admin-token',
      DEMO: 'off',
      LOG_LEVEL: 'silent',
    });
  });

  afterAll(async () => {
    await sys?.close();
    await scratch?.drop();
  });

  /** Runs the simulator until every device of the fleet has a stored record; returns the fleet's registered devices. */
  async function simulate(protocol: SimProtocol, vehicles: number) {
    const capture = capturingLogger();
    const since = new Date();
    const sim = await startSimulator({
      apiUrl: sys.url,
      adminToken: sys.adminToken,
      vehicles,
      intervalMs: 250,
      seed: 5,
      logger: capture.log,
      protocol,
      gt06: { host: '127.0.0.1', port: ports.gt06 },
      teltonika: { host: '127.0.0.1', port: ports.teltonika },
      osmand: { host: '127.0.0.1', port: ports.osmand },
    });
    const roster = buildRoster(vehicles, Date.now());
    const ids = new Set(roster.entries.map((e) => e.device.id));
    const res = await fetch(`${sys.url}/v1/devices?limit=1000`, {
      headers: { authorization: `Bearer ${sys.adminToken}` },
    });
    const registered = deviceListSchema.parse(await res.json()).items.filter((d) => ids.has(d.id));
    // The first report of each vehicle is due at once.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await sys.db.query<{ device_id: string }>(
        'SELECT DISTINCT device_id FROM telemetry WHERE received_at >= $1',
        [since],
      );
      const live = new Set(rows.map((r) => r.device_id));
      if (registered.every((d) => live.has(d.id))) break;
      if (Date.now() > deadline) throw new Error(`only ${live.size} of ${registered.length} devices reported`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await sim.stop();
    const problems = capture.lines.filter((l) => l.level >= 40);
    expect(problems, JSON.stringify(problems)).toEqual([]);
    expect(registered).toHaveLength(vehicles);
    return { registered, roster };
  }

  it('streams the fleet as GT06 trackers, with IMEIs and the shipped GT06 profiles', async () => {
    const { registered } = await simulate('gt06', 6);
    for (const d of registered) {
      expect(d.protocol).toBe('gt06');
      expect(d.identifier).toMatch(/^35999\d{10}$/);
      expect(d.profile).toBe(d.id.includes('-sp-') ? 'gt06-default' : 'gt06-taxi');
    }
    // Ignition travels on the ACC line of every GT06 location.
    const { rows } = await sys.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM telemetry WHERE device_id LIKE 'sim-dev-%' AND ignition IS NOT NULL`,
    );
    expect(rows[0]?.n).toBeGreaterThan(0);
  }, 60_000);

  it('runs the fleet with --protocol mixed: native, OsmAnd, Teltonika and GT06 devices side by side', async () => {
    const { registered, roster } = await simulate('mixed', 12);
    expect(new Set(registered.map((d) => d.protocol))).toEqual(new Set(DEVICE_PROTOCOLS));
    for (const d of registered) {
      const entry = roster.entries.find((e) => e.device.id === d.id);
      expect(d.protocol, d.id).toBe(mixedProtocol(entry?.device.identifier ?? ''));
      if (d.protocol === 'gt06') expect(d.profile).toBe(d.id.includes('-sp-') ? 'gt06-default' : 'gt06-taxi');
    }
  }, 60_000);
});
