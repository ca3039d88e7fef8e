import { setMaxListeners } from 'node:events';
import type { Logger } from '@vigia/core';
import { configSchema, createLogger } from '@vigia/core';
import { z } from 'zod';
import { HttpError } from './api/http.js';
import {
  registerDemoReferenceData,
  registerDispatchers,
  registerRoster,
  rotateDeviceToken,
} from './api/registry-registration.js';
import { type Clock, systemClock } from './clock.js';
import { type RunningDispatch, startSimulatedDispatch } from './dispatch/simulated-dispatch.js';
import { Gt06Uplink } from './emulators/gt06/gt06-uplink.js';
import { type HostPort, hostPortSchema } from './emulators/host-port.js';
import { OsmandUplink } from './emulators/osmand/osmand-uplink.js';
import {
  type EmulatorProfile,
  type Gt06Profile,
  loadEmulatorProfile,
  type OsmandProfile,
  type TeltonikaProfile,
} from './emulators/profiles/emulator-profile.js';
import { alignDeviceRegistrations, protocolIdentity, SIM_PROTOCOLS } from './emulators/protocol-devices.js';
import { TeltonikaUplink } from './emulators/teltonika/teltonika-uplink.js';
import { Fleet } from './fleet/fleet.js';
import { MIN_FLEET } from './fleet/fleet-split.js';
import { buildRoster } from './fleet/roster.js';
import { DeviceUplink } from './streaming/device-uplink.js';
import type { TelemetryUplink } from './streaming/telemetry-uplink.js';

const isLogger = (v: unknown): v is Logger =>
  typeof v === 'object' &&
  v !== null &&
  ['info', 'warn', 'error', 'debug', 'child'].every((k) => typeof (v as Record<string, unknown>)[k] === 'function');
const isClock = (v: unknown): v is Clock =>
  typeof v === 'object' && v !== null && typeof (v as Clock).now === 'function';

export const simulatorOptionsSchema = z.object({
  /** Base URL of the registry API. */
  apiUrl: z.url({ protocol: /^https?$/ }),
  /** Base URL of `POST /v1/telemetry`; default: apiUrl. */
  ingestUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Admin token, to register the fleet and rotate device tokens. */
  adminToken: z.string().min(1),
  /** Vehicles in total: ~40 % Brasília taxis, ~30 % Belém taxis, ~30 % São Paulo charter buses. */
  vehicles: z.number().int().min(MIN_FLEET).max(10_000).default(72),
  /** Milliseconds between two samples of one vehicle. */
  intervalMs: z.number().int().min(100).max(3_600_000).default(2000),
  /** Seed of everything random in the simulation (not of the registry data, which is fixed). */
  seed: z.union([z.number().int(), z.string().min(1)]).default(1),
  logger: z.custom<Logger>(isLogger, 'a pino logger').optional(),
  /** Where sample timestamps come from; default: the system clock. */
  clock: z.custom<Clock>(isClock, 'an object with now()').optional(),
  /** How long to keep retrying registration while the server is unreachable or overloaded. */
  registrationTimeoutMs: z.number().int().min(0).default(120_000),
  /**
   * How the devices talk: `native` (JSON over HTTP with device tokens), or as emulated Traccar
   * Client phones (`osmand`), Teltonika Codec 8 Extended trackers (`teltonika`) or GT06 (Concox)
   * trackers (`gt06`); `mixed` gives each device one of the four in turn.
   */
  protocol: z.enum(SIM_PROTOCOLS).default('native'),
  /** Teltonika gateway; default: the API's host and the server's default TELTONIKA_PORT. */
  teltonika: z.union([hostPortSchema, z.object({ host: z.string().min(1), port: z.number().int() })]).optional(),
  /** OsmAnd gateway; default: the API's host and the server's default OSMAND_PORT. */
  osmand: z.union([hostPortSchema, z.object({ host: z.string().min(1), port: z.number().int() })]).optional(),
  /** GT06 gateway; default: the API's host and the server's default GT06_PORT. */
  gt06: z.union([hostPortSchema, z.object({ host: z.string().min(1), port: z.number().int() })]).optional(),
  /**
   * Radio-taxi dispatch (dispatch/): the mean seconds between two bookings the simulated desks
   * take in each taxi city, whose offers the simulated taxis answer; 0 = no bookings, no answers.
   */
  bookingIntervalS: z.number().min(0).max(86_400).default(0),
  /**
   * Also register the demo's reference data (devices/data/demo-registry: unit values, some of them
   * placeholders, holidays, zones, regular-service stops): for the embedded demo's own registry,
   * never for a real one.
   */
  demoReferenceData: z.boolean().default(false),
  /** Shares of offers the simulated drivers accept and decline (the rest expire); default 0.8 and 0.1. */
  answerShares: z
    .object({ accept: z.number().min(0).max(1), decline: z.number().min(0).max(1) })
    .refine((s) => s.accept + s.decline <= 1, 'accept + decline must not exceed 1')
    .optional(),
});

export type SimulatorOptions = z.input<typeof simulatorOptionsSchema>;

/** The fleet's telemetry so far: samples made, and what became of them (summed over every device). */
export interface SimulatorStats {
  /** Samples the vehicles produced (each is delivered, dropped from a full backlog, or still waiting). */
  generated: number;
  sent: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  failedRequests: number;
  dropped: number;
  /** Samples waiting in the devices' backlogs now. */
  backlog: number;
}

export interface RunningSimulator {
  vehicles: number;
  stats(): SimulatorStats;
  stop(): Promise<void>;
}

/** Interval of the summary log line. */
const STATS_LOG_INTERVAL_MS = 60_000;

/**
 * Registers the simulated fleet through the API (re-using what a previous run registered) and
 * streams each vehicle's telemetry with its own device token, one sample per `intervalMs`. Errors
 * while streaming are logged and retried, never thrown: the simulator keeps going until `stop()`.
 */
export async function startSimulator(input: SimulatorOptions): Promise<RunningSimulator> {
  const options = simulatorOptionsSchema.parse(input);
  const log = options.logger ?? createLogger('simulator', 'info');
  const clock = options.clock ?? systemClock;
  const ingestUrl = options.ingestUrl ?? options.apiUrl;
  const abort = new AbortController();
  // Every device listens on this one signal while it connects or posts (a TCP tracker per
  // connection attempt): a fleet is expected to hold more than Node's default of 10 listeners.
  setMaxListeners(2 * options.vehicles + 10, abort.signal);
  const api = { apiUrl: options.apiUrl, adminToken: options.adminToken, log, signal: abort.signal };

  const roster = buildRoster(options.vehicles, clock.now());
  const tokens = await withRetries(() => registerRoster(api, roster), options.registrationTimeoutMs, log);
  if (options.demoReferenceData)
    await withRetries(() => registerDemoReferenceData(api), options.registrationTimeoutMs, log);
  const identities = new Map(roster.entries.map((e) => [e.device.id, protocolIdentity(e, options.protocol)]));
  await withRetries(() => alignDeviceRegistrations(api, identities), options.registrationTimeoutMs, log);
  const dispatcherTokens =
    options.bookingIntervalS > 0
      ? await withRetries(() => registerDispatchers(api, roster.dispatchers), options.registrationTimeoutMs, log)
      : undefined;
  const fleet = new Fleet(roster, { seed: options.seed, startMs: clock.now() });
  const apiHost = new URL(options.apiUrl).hostname.replace(/^\[|\]$/g, '');
  const gateway = (given: HostPort | undefined, port: number): HostPort => given ?? { host: apiHost, port };
  const teltonika = gateway(options.teltonika, configSchema.shape.TELTONIKA_PORT.parse(undefined));
  const osmand = gateway(options.osmand, configSchema.shape.OSMAND_PORT.parse(undefined));
  const gt06 = gateway(options.gt06, configSchema.shape.GT06_PORT.parse(undefined));
  const profiles = new Map<string, EmulatorProfile>();
  const profileOf = (name: string) => {
    const profile = profiles.get(name) ?? loadEmulatorProfile(name);
    profiles.set(name, profile);
    return profile;
  };

  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let generated = 0;
  const uplinks = fleet.vehicles.map((vehicle, i) => {
    const entry = roster.entries[i];
    if (!entry) throw new Error('Fleet and roster out of step');
    const deviceId = entry.device.id;
    const identity = identities.get(deviceId);
    if (!identity) throw new Error(`No protocol identity for device ${deviceId}`);
    let uplink: TelemetryUplink;
    if (identity.protocol === 'teltonika') {
      uplink = new TeltonikaUplink({
        ...teltonika,
        imei: identity.identifier,
        profile: profileOf(identity.profile as string) as TeltonikaProfile,
        log,
      });
    } else if (identity.protocol === 'gt06') {
      uplink = new Gt06Uplink({
        ...gt06,
        imei: identity.identifier,
        profile: profileOf(identity.profile as string) as Gt06Profile,
        log,
      });
    } else if (identity.protocol === 'osmand') {
      uplink = new OsmandUplink({
        baseUrl: `http://${osmand.host.includes(':') ? `[${osmand.host}]` : osmand.host}:${osmand.port}`,
        identifier: identity.identifier,
        profile: profileOf(identity.profile as string) as OsmandProfile,
        log,
      });
    } else {
      const token = tokens.get(deviceId);
      if (!token) throw new Error(`No token for device ${deviceId}`);
      uplink = new DeviceUplink({
        ingestUrl,
        deviceId,
        identifier: entry.device.identifier,
        token,
        log,
        // The renewed token answers the taxi's offers too (dispatch/).
        renewToken: async () => {
          const renewed = await rotateDeviceToken(api, deviceId);
          tokens.set(deviceId, renewed);
          return renewed;
        },
      });
    }
    // Devices are spread evenly over the interval, as real trackers' clocks are not in step.
    let nextAt = Date.now() + (options.intervalMs * i) / fleet.vehicles.length;
    const tick = () => {
      timers.delete(timer);
      if (stopped) return;
      try {
        const now = clock.now();
        vehicle.advanceTo(now);
        if (vehicle.reportDue(now, options.intervalMs)) {
          uplink.enqueue(vehicle.report(now));
          generated++;
        }
        void uplink.flush(abort.signal);
      } catch (err) {
        log.error({ device: entry.device.identifier, err }, 'simulation step failed');
      }
      nextAt += options.intervalMs;
      timer = setTimeout(tick, Math.max(0, nextAt - Date.now()));
      timers.add(timer);
    };
    let timer = setTimeout(tick, Math.max(0, nextAt - Date.now()));
    timers.add(timer);
    return uplink;
  });

  const stats = (): SimulatorStats => {
    const total = {
      generated,
      sent: 0,
      accepted: 0,
      duplicates: 0,
      rejected: 0,
      failedRequests: 0,
      dropped: 0,
      backlog: 0,
    };
    for (const u of uplinks) {
      for (const k of Object.keys(u.stats) as (keyof typeof u.stats)[]) total[k] += u.stats[k];
      total.backlog += u.pending;
    }
    return total;
  };
  const statsTimer = setInterval(() => log.info(stats(), 'simulator telemetry so far'), STATS_LOG_INTERVAL_MS);
  statsTimer.unref();

  let dispatch: RunningDispatch | undefined;
  if (dispatcherTokens) {
    dispatch = startSimulatedDispatch({
      apiUrl: options.apiUrl,
      adminToken: options.adminToken,
      fleet,
      roster,
      dispatcherTokens,
      deviceTokens: tokens,
      clock,
      seed: options.seed,
      bookingIntervalS: options.bookingIntervalS,
      ...(options.answerShares ? { shares: options.answerShares } : {}),
      log,
      signal: abort.signal,
    });
  }

  const used = new Set([...identities.values()].map((identity) => identity.protocol));
  const target = {
    ...(used.has('native') ? { ingestUrl } : {}),
    ...(used.has('osmand') ? { osmand: `${osmand.host}:${osmand.port}` } : {}),
    ...(used.has('teltonika') ? { teltonika: `${teltonika.host}:${teltonika.port}` } : {}),
    ...(used.has('gt06') ? { gt06: `${gt06.host}:${gt06.port}` } : {}),
  };
  log.info(
    { vehicles: fleet.vehicles.length, intervalMs: options.intervalMs, protocol: options.protocol, ...target },
    'simulated fleet streaming',
  );
  let stopping: Promise<void> | undefined;
  return {
    vehicles: fleet.vehicles.length,
    stats,
    stop() {
      stopping ??= (async () => {
        stopped = true;
        const dispatchStopped = dispatch?.stop();
        clearInterval(statsTimer);
        for (const t of timers) clearTimeout(t);
        timers.clear();
        abort.abort();
        await dispatchStopped;
        await Promise.allSettled(uplinks.map((u) => u.whenIdle()));
        await Promise.allSettled(uplinks.map((u) => u.close()));
        log.info(stats(), 'simulated fleet stopped');
      })();
      return stopping;
    },
  };
}

/** Retry transient failures (no answer, 429, 5xx) with backoff until `timeoutMs` has passed. */
async function withRetries<T>(work: () => Promise<T>, timeoutMs: number, log: Logger): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof HttpError) || !err.transient || Date.now() >= deadline) throw err;
      const wait = Math.min(
        err.retryAfterMs ?? 1000 * 2 ** Math.min(attempt - 1, 4),
        Math.max(0, deadline - Date.now()),
      );
      log.warn(
        { code: err.code, status: err.status, attempt, retryInMs: wait },
        `registration failed, retrying: ${err.message}`,
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
