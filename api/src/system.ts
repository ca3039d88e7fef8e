import { type Bus, type Config, demoEnabled, loadConfig, publicUrlOf } from '@vigia/core';
import type { Database } from '@vigia/db';
import { createServiceRuntime } from '@vigia/ingest';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type AlertService, registerAlerts } from './alerts/alert-service.js';
import { registerAnalyticsRoutes } from './analytics/analytics-routes.js';
import { registerDashboardRoutes } from './dashboard/dashboard-routes.js';
import { packTimeZonesOf } from './dashboard/pack-time-zones.js';
import { type RunningDemo, startDemo } from './demo/demo.js';
import { type BestArrival, createBestArrival } from './dispatch/best-arrival.js';
import { BookingStore } from './dispatch/booking-store.js';
import { type Bookings, registerBookings } from './dispatch/bookings.js';
import { registerDispatchReportRoutes } from './dispatch/dispatch-report-routes.js';
import { DriverHub, driverFeedFrom } from './dispatch/driver-hub.js';
import { registerStandQueueRoutes } from './dispatch/stand-queue-routes.js';
import { DbStandQueues } from './dispatch/stand-queues.js';
import { registerHistoryRoutes } from './history/history-routes.js';
import { declaredVehiclesOf } from './live/declared-vehicles.js';
import { loadFleetUpdates } from './live/live-fleet-load.js';
import { LiveHub } from './live/live-hub.js';
import { registerNoticeRoutes } from './notices/notice-routes.js';
import { registerPlaceRoutes } from './places/place-routes.js';
import { RegistryPlaces } from './places/registry-places.js';
import { streetsOf } from './places/street-data.js';
import { importLimitsFrom } from './registry/import-limits.js';
import { registerRegistryRoutes } from './registry/registry-routes.js';
import { registerSearchRoutes } from './search/search-routes.js';
import { registerSessionRoutes } from './session/session-routes.js';
import { registerViolationRoutes } from './violations/violation-routes.js';

export interface SystemComponents {
  /** `POST /v1/telemetry`. */
  ingest: boolean;
  /** Registry, live channel and dashboard. */
  api: boolean;
}

export interface RunningSystem {
  url: string;
  adminToken: string;
  config: Config;
  app: FastifyInstance;
  db: Database;
  bus: Bus;
  log: Logger;
  /** The alerts' routes and delivery worker (API processes). */
  alerts?: AlertService;
  /** Radio-taxi bookings: routes, offer worker, progress from telemetry (API processes). */
  bookings?: Bookings;
  /** Socket.IO `/live` (API processes). */
  live?: LiveHub;
  close(): Promise<void>;
}

/**
 * Starts the process's parts from the environment: the database (PGlite or DATABASE_URL,
 * migrated), the bus (in-process or REDIS_URL), one HTTP server with the chosen components,
 * and the simulated fleet when DEMO is on. `close()` stops intake first, lets every accepted
 * record commit, then closes connections.
 */
export async function startSystem(
  env: Record<string, string | undefined>,
  components: SystemComponents = { ingest: true, api: true },
): Promise<RunningSystem> {
  const config = loadConfig(env);
  const runtime = await createServiceRuntime(config, 'vigia');
  const { log, admin, db, bus, ingest, app } = runtime;
  let live: LiveHub | undefined;
  let driver: DriverHub | undefined;
  let alerts: AlertService | undefined;
  let standQueues: DbStandQueues | undefined;
  let places: RegistryPlaces | undefined;
  let bestArrival: BestArrival | undefined;
  let bookings: Bookings | undefined;
  if (components.ingest) await ingest.register(app);
  if (components.api) {
    await registerRegistryRoutes(app, {
      db,
      bus,
      resolveToken: ingest.resolveToken,
      offlineAfterS: config.OFFLINE_AFTER_S,
      importLimits: importLimitsFrom(config),
    });
    const violations = await registerViolationRoutes(app, { db, bus, resolveToken: ingest.resolveToken });
    await registerNoticeRoutes(app, {
      db,
      violations,
      // The port is known once listening (PORT=0 picks one); notices are issued after that.
      publicUrl: () => {
        const address = app.server.address();
        return publicUrlOf(config, typeof address === 'object' && address ? address.port : config.PORT);
      },
    });
    alerts = await registerAlerts(app, { db, config, log });
    // The stands' legal queues as the live rules store them (dispatch offers the head first).
    standQueues = new DbStandQueues({ db, bus, log });
    await registerStandQueueRoutes(app, { queues: standQueues });
    await registerDispatchReportRoutes(app, { db, maxDays: config.DISPATCH_REPORT_MAX_DAYS });
    // Addresses: the nearest street of the offline map's data and the registered place at a point.
    const streets = await streetsOf(config.PLACES_STREET_DATA_DIR);
    log.info(
      {
        files: streets.files,
        segments: streets.index.segmentCount,
        readMs: Math.round(streets.readMs),
        buildMs: Math.round(streets.buildMs),
      },
      'street index built',
    );
    places = new RegistryPlaces({ db, bus, log, nearM: config.PLACES_NEAR_M });
    await registerPlaceRoutes(app, { streets: streets.index, places, streetMaxM: config.PLACES_STREET_MAX_M });
    // One search box: plates, permits, operators, drivers, stops and stands (api/src/search/README.md).
    await registerSearchRoutes(app, { db });
    // History: a vehicle's track and the area replay, from the stored telemetry.
    await registerHistoryRoutes(app, {
      db,
      gaps: { maxSilenceMs: config.TRACK_GAP_S * 1000, maxJumpKmh: config.TRACK_GAP_SPEED_KMH },
    });
    // Analytics: the regulator's figures from the hourly per-vehicle aggregate (api/src/analytics/README.md).
    await registerAnalyticsRoutes(app, {
      db,
      belemPopulation: config.BELEM_POPULATION,
      belemPopulationSource: config.BELEM_POPULATION_SOURCE,
    });
    // Bookings go to the operator's best free taxi: the stand queue's head first, then best arrival.
    bestArrival = await createBestArrival({ config, db, bus, log, standQueues });
    bookings = await registerBookings(app, {
      db,
      bus,
      log,
      config,
      rules: ingest.rules,
      ranker: bestArrival.ranker,
    });
    await registerDashboardRoutes(app, {
      mapStyleUrl: config.MAP_STYLE_URL,
      offlineAfterS: config.OFFLINE_AFTER_S,
      log,
      packTimeZones: await packTimeZonesOf(config.RULES_CONFIG_FILE),
    });
    await registerSessionRoutes(app, { db });
    live = new LiveHub({
      app,
      bus,
      resolveToken: ingest.resolveToken,
      pushIntervalMs: config.LIVE_PUSH_INTERVAL_MS,
      redisUrl: config.REDIS_URL,
      redisPrefix: config.REDIS_PREFIX,
      log,
      revalidateMs: Math.max(1000, config.DEVICE_CACHE_TTL_MS),
      declaredVehicles: declaredVehiclesOf(db),
      viewport: { margin: config.LIVE_VIEWPORT_MARGIN, outsideRefreshMs: config.LIVE_OUTSIDE_REFRESH_MS },
      loadFleet: () => loadFleetUpdates(db),
    });
    // The taxis' side of dispatch (`/driver`), on the same Socket.IO server and adapter as `/live`.
    driver = new DriverHub({
      app,
      io: live.io,
      bus,
      resolveToken: ingest.resolveToken,
      source: driverFeedFrom(new BookingStore(db)),
      log,
      revalidateMs: Math.max(1000, config.DEVICE_CACHE_TTL_MS),
      snapshotBatch: config.DRIVER_RESYNC_BATCH,
    });
  }
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`;

  // Every API process delivers alerts; the database shares the work among them.
  alerts?.start(publicUrlOf(config, port));
  // Every API process offers bookings and follows them; the bookings' row locks share the work.
  bestArrival?.start();
  await bookings?.start();

  let demo: RunningDemo | undefined;
  if (components.api && components.ingest && demoEnabled(config)) {
    // The simulated trackers of DEMO_PROTOCOL dial this process's gateways, on the ports they bound.
    const gateways = ingest.gateways();
    const localHost = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
    demo = await startDemo({
      url,
      adminToken: admin.token,
      vehicles: config.DEMO_VEHICLES,
      intervalMs: config.DEMO_INTERVAL_MS,
      protocol: config.DEMO_PROTOCOL,
      gateways: gateways && { host: localHost, ...gateways },
      bookingIntervalS: config.DEMO_BOOKING_INTERVAL_S,
      log,
      mainThread: config.DEMO_THREAD === 'off',
    });
  }
  log.info(
    {
      url,
      components,
      database: db.kind,
      bus: config.REDIS_URL ? 'redis' : 'in-process',
      demo: demo !== undefined,
      ...(components.api
        ? { dashboard: `${url}/#token=${admin.generated || !config.ADMIN_TOKEN ? admin.token : '<ADMIN_TOKEN>'}` }
        : {}),
    },
    'vigia is running',
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    adminToken: admin.token,
    config,
    app,
    db,
    bus,
    log,
    alerts,
    bookings,
    live,
    close() {
      closing ??= (async () => {
        const step = async (name: string, fn: () => Promise<void> | undefined) => {
          log.debug({ step: name }, 'closing');
          await fn();
        };
        await step('simulator', () => demo?.stop());
        await step('http', () => app.close());
        driver?.close();
        await step('live', () => live?.close());
        await step('alerts', () => alerts?.stop());
        await step('bookings', () => bookings?.stop());
        await step('best arrival', () => bestArrival?.stop());
        standQueues?.close();
        places?.close();
        await step('ingest, bus and database', () => runtime.closeBackends());
      })();
      return closing;
    },
  };
}
