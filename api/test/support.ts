import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSystem, type SystemComponents, startSystem } from '@vigia/api';
import { ephemeralPorts } from '@vigia/core';
import { createScratchDatabase, type ScratchDatabase, seedPgliteDataDir } from '@vigia/db/testing';
import { upsertViolations } from '@vigia/ingest';

export type Target = 'pglite' | 'postgres';

export interface TestSystem extends RunningSystem {
  stop(): Promise<void>;
}

/** A whole system on a free port, on a fresh PGlite folder or a fresh PostgreSQL database. */
export async function startTestSystem(
  target: Target,
  env: Record<string, string> = {},
  components?: SystemComponents,
): Promise<TestSystem> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vigia-test-'));
  let scratch: ScratchDatabase | undefined;
  if (target === 'postgres') scratch = await createScratchDatabase();
  else await seedPgliteDataDir(dataDir);
  const sys = await startSystem(
    {
      ...ephemeralPorts(),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO: 'off',
      LOG_LEVEL: 'silent',
      // Tests send 401s on purpose, hundreds from 127.0.0.1 (the authorization matrix); the
      // failed-authentication limit has its own tests, which set it.
      AUTH_FAILURE_LIMIT: '0',
      // Likewise load shedding: on a starved CI machine the measured event-loop delay is the
      // machine's, not the system's; http-hygiene.test.ts sets a threshold and tests it.
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...(scratch ? { DATABASE_URL: scratch.url, ADMIN_TOKEN: 'test-admin-token-0123456789' } : {}),
      ...env,
    },
    components,
  );
  return Object.assign(sys, {
    async stop() {
      await sys.close();
      await scratch?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

/**
 * A second API process (no ingest) beside `sys`, on its database, data folder and admin token:
 * two replicas, for what must happen once however many run. PostgreSQL only.
 */
export function startSecondApi(sys: TestSystem, env: Record<string, string> = {}): Promise<RunningSystem> {
  return startSystem(
    {
      ...ephemeralPorts(),
      HOST: '127.0.0.1',
      DATA_DIR: sys.config.DATA_DIR,
      DEMO: 'off',
      LOG_LEVEL: 'silent',
      DATABASE_URL: sys.config.DATABASE_URL,
      ADMIN_TOKEN: sys.adminToken,
      ...env,
    },
    { ingest: false, api: true },
  );
}

export async function api<T = unknown>(
  sys: { url: string; adminToken: string },
  method: string,
  path: string,
  body?: unknown,
  token: string | null = sys.adminToken,
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sys.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
}

let plateSeq = 0;
/** A Mercosul plate unique within the test run. */
export function nextPlate(): string {
  plateSeq++;
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return `TST${plateSeq % 10}${letters[Math.floor(plateSeq / 10) % 26]}${String(plateSeq % 100).padStart(2, '0')}`;
}

/** Registers an operator, a vehicle and its device; returns the device's identifier and token. */
export async function registerVehicle(
  sys: { url: string; adminToken: string },
  /** `vehicle`: registry fields that differ from a vehicle in order (a status, an expired permit). */
  opts: { pack?: string; operatorId?: string; identifier?: string; vehicle?: Record<string, unknown> } = {},
): Promise<{ vehicleId: string; deviceId: string; identifier: string; token: string; operatorId: string }> {
  const pack = opts.pack ?? 'df-taxi';
  // Registered since yesterday: tests send telemetry stamped up to hours back, which the rules
  // judge against the registry as it was then.
  const since = new Date(Date.now() - 86_400_000).toISOString();
  const operatorId = opts.operatorId ?? `op-${Math.random().toString(36).slice(2, 8)}`;
  const op = await api(sys, 'GET', `/v1/operators/${operatorId}`);
  if (op.status === 404) {
    const created = await api(sys, 'POST', '/v1/operators', {
      id: operatorId,
      name: `Operator ${operatorId}`,
      pack,
      validFrom: since,
    });
    if (created.status !== 201) throw new Error(`operator: ${JSON.stringify(created.body)}`);
  }
  // A vehicle in order (documents current, recent inspection), so the live rules only flag what a test makes happen.
  const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
  const vehicle = await api<{ id: string }>(sys, 'POST', '/v1/vehicles', {
    plate: nextPlate(),
    pack,
    serviceType: pack === 'sp-fretamento' ? 'fretamento-continuo' : 'taxi',
    capacity: pack === 'sp-fretamento' ? 44 : 4,
    manufactureYear: new Date().getFullYear() - 2,
    operatorId,
    permitNumber: `P-${operatorId}`,
    permitValidUntil: day(300),
    lastInspectionDate: day(-30),
    divValidUntil: day(300),
    validFrom: since,
    ...opts.vehicle,
  });
  if (vehicle.status !== 201) throw new Error(`vehicle: ${JSON.stringify(vehicle.body)}`);
  const identifier = opts.identifier ?? `IMEI-${Math.random().toString().slice(2, 17)}`;
  const device = await api<{ id: string; token: string }>(sys, 'POST', '/v1/devices', {
    vehicleId: vehicle.body.id,
    identifier,
  });
  if (device.status !== 201) throw new Error(`device: ${JSON.stringify(device.body)}`);
  return { vehicleId: vehicle.body.id, deviceId: device.body.id, identifier, token: device.body.token, operatorId };
}

/**
 * One minute of a DF taxi ride from `t0` with 6 passengers in its 4 seats, a sample every 5 s:
 * the telemetry that raises a DF_OVER_CAPACITY violation.
 */
export function overCapacityRide(identifier: string, t0: number, tripId: string) {
  return Array.from({ length: 12 }, (_, i) => ({
    deviceId: identifier,
    ts: new Date(t0 + i * 5000).toISOString(),
    lat: -15.7942 + i * 0.0004,
    lon: -47.8822,
    speedKmh: 30,
    passengers: 6,
    meter: { state: 'hired', tariff: 1, fareCents: 600 + i * 20, tripId },
  }));
}

/** Polls `fn` every 50 ms until it returns something other than undefined or false; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Stores a DF over-capacity violation of `vehicle` (started ten minutes ago) the way the rule
 * pipeline stores one, for tests of what happens to a violation after it is raised (reviews,
 * exports); returns its id.
 */
export async function storeViolation(
  sys: TestSystem,
  vehicle: { vehicleId: string; operatorId: string },
  eventKey: string,
): Promise<string> {
  const start = new Date(Date.now() - 600_000);
  const [stored] = await sys.db.transaction((tx) =>
    upsertViolations(tx, [
      {
        eventKey,
        ruleId: 'DF_OVER_CAPACITY',
        pack: 'df-taxi',
        legalBasis: ['Art. 24'],
        description: 'Passageiros acima da lotação',
        descriptionEn: 'Passengers above capacity',
        vehicleId: vehicle.vehicleId,
        plate: 'JKL1A23',
        operatorId: vehicle.operatorId,
        permitNumber: null,
        driverId: null,
        variant: null,
        phase: 'ongoing',
        startedAt: start,
        endedAt: null,
        lat: -15.7942,
        lon: -47.8822,
        place: null,
        confidence: 'confirmed',
        measured: { passengersMax: 6, permittedPassengers: 4 },
        penalty: { group: 'B' },
        recidivism: { count: 0, windowDays: 730 },
        evidenceFrom: start,
        evidenceTo: new Date(start.getTime() + 60_000),
      },
    ]),
  );
  if (!stored) throw new Error(`violation ${eventKey} was not stored`);
  return stored.id;
}
