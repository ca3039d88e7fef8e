import { z } from 'zod';
import { AppError } from './errors.js';

/**
 * Every environment variable any process of the system reads, with its default. One schema for
 * all processes keeps the README, docker-compose.yml and the code in step (a test checks the
 * compose file against `configSchema.shape`).
 */
const onOff = z.enum(['on', 'off']);
const positiveInt = (def: number) => z.coerce.number().int().positive().default(def);

export const configSchema = z.object({
  /** HTTP port of the process. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to listen on. */
  HOST: z.string().default('0.0.0.0'),
  /** Embedded data folder (PGlite files, generated admin token). */
  DATA_DIR: z.string().default('./data'),
  /** PostgreSQL / TimescaleDB connection string; unset = embedded PGlite in DATA_DIR. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Connections per process in the PostgreSQL pool. */
  DATABASE_POOL_SIZE: positiveInt(10),
  /** Embedded mode: PGlite on a worker thread of its own (`on`) or on the main thread (`off`). */
  PGLITE_THREAD: onOff.default('on'),
  /** Redis connection string; unset = in-process bus (single process only). */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Prefix of every Redis channel and key, so several deployments can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default('vigia'),
  /** The admin/gateway token; unset in embedded mode = generated and kept in DATA_DIR. */
  ADMIN_TOKEN: z.string().min(16).optional(),
  /** Run the simulated fleet; default on in embedded mode, off when DATABASE_URL is set. */
  DEMO: onOff.optional(),
  /** Simulated vehicles in total, split across Brasília taxis, Belém taxis and São Paulo charter buses. */
  DEMO_VEHICLES: positiveInt(72),
  /** Milliseconds between two samples of one simulated vehicle. */
  DEMO_INTERVAL_MS: positiveInt(2000),
  /**
   * How the simulated devices talk: `native` (JSON over HTTP), as Traccar Client phones (`osmand`),
   * Teltonika (`teltonika`) or GT06 (`gt06`) trackers through this process's own gateways, or
   * `mixed` (each device one of the four in turn).
   */
  DEMO_PROTOCOL: z.enum(['native', 'osmand', 'teltonika', 'gt06', 'mixed']).default('native'),
  /**
   * Radio-taxi dispatch in the demo: mean seconds between two bookings the simulated radio desks
   * take in each of Brasília and Belém (each gap 0.5–1.5 times it); the simulated taxis answer the
   * offers. 0 = no simulated bookings.
   */
  DEMO_BOOKING_INTERVAL_S: z.coerce.number().int().min(0).max(86_400).default(40),
  /**
   * Where the demo's simulated fleet runs: `on` = a worker thread of its own, so its HTTP clients
   * and vehicle motion do not share the event loop that answers the API and the ingest; `off` =
   * the main thread, as before (for comparison: `npm run bench:embedded`).
   */
  DEMO_THREAD: onOff.default('on'),
  /** MapLibre style the dashboard loads; unset = the built-in offline style. */
  MAP_STYLE_URL: z.url().optional(),
  /** TCP port of the OsmAnd / Traccar Client HTTP protocol (ingest processes). */
  OSMAND_PORT: z.coerce.number().int().min(0).max(65535).default(5055),
  /** TCP port of the Teltonika Codec 8 / 8 Extended protocol (ingest processes). */
  TELTONIKA_PORT: z.coerce.number().int().min(0).max(65535).default(5027),
  /** TCP port of the GT06 (Concox) binary protocol (ingest processes); 5023 is what trackers are commonly set to. */
  GT06_PORT: z.coerce.number().int().min(0).max(65535).default(5023),
  /** JSON file with the rule packs' settings (see rules/README.md); unset = the documented defaults. */
  RULES_CONFIG_FILE: z.string().optional(),
  /**
   * Where the live rules run: `embedded` (in the ingest process that stores the samples; a
   * vehicle's device must stay with one ingest process), `partitioned` (ingest appends accepted
   * samples to Redis Streams, one per partition of vehicles, and rule workers, `npm run
   * start:rules`, judge them; needs REDIS_URL; ingest then sits behind any balancer), `off`.
   */
  RULES_MODE: z.enum(['embedded', 'partitioned', 'off']).default('embedded'),
  /** Embedded mode: where the rule state is saved on shutdown and every checkpoint interval; default DATA_DIR/rule-state.bin. One per ingest process. */
  RULES_STATE_FILE: z.string().optional(),
  /** How often the rule state is checkpointed (embedded: to RULES_STATE_FILE; partitioned: each partition to Redis), in milliseconds. */
  RULES_CHECKPOINT_INTERVAL_MS: positiveInt(5000),
  /**
   * The most of its time a process spends writing checkpoints: a large state is checkpointed less
   * often than RULES_CHECKPOINT_INTERVAL_MS, so that writing it takes at most this share of the
   * time between two (0.05: a checkpoint that takes 0.5 s is written every 10 s at the most).
   */
  RULES_CHECKPOINT_MAX_COST_SHARE: z.coerce.number().gt(0).max(1).default(0.05),
  /**
   * How often the rules finish, provisionally, the events of vehicles silent longer than the
   * packs' `idleCloseS` (a trip that ends with the device off), in milliseconds. Tests that wait
   * for such a flush shorten it; in production it only decides how soon a silent vehicle's
   * violation is closed, not whether.
   */
  RULES_FLUSH_INTERVAL_MS: positiveInt(30_000),
  /** Partitioned mode: how many partitions (Redis streams) vehicles are hashed into; every ingest and rule worker must agree. */
  RULES_PARTITIONS: z.coerce.number().int().min(1).max(4096).default(64),
  /** Partitioned mode: how long a rule worker's lease on a partition lasts unrenewed (renewed every third of it), in milliseconds. A dead worker's partitions move after at most this. */
  RULES_LEASE_TTL_MS: z.coerce.number().int().min(500).default(6000),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest accepted request body on the ingest path, in bytes (larger: 413). */
  INGEST_BODY_LIMIT_BYTES: positiveInt(5 * 1024 * 1024),
  /** Records written in one database transaction at most. */
  INGEST_BATCH_MAX_RECORDS: positiveInt(1000),
  /**
   * How long a record may wait for others to share its write, in milliseconds; unset = 5 on
   * PostgreSQL, 50 on PGlite (`batchWaitMs`).
   */
  INGEST_BATCH_MAX_WAIT_MS: z.coerce.number().int().min(0).optional(),
  /** Records waiting for the database, across all requests, before ingest answers 503. */
  INGEST_MAX_PENDING_RECORDS: positiveInt(50_000),
  /** A record stamped further in the future than this (seconds) is rejected. */
  INGEST_MAX_FUTURE_SKEW_S: positiveInt(300),
  /**
   * A record stamped further in the past than this (seconds) is rejected (`PAST_TIMESTAMP`); 0 = no
   * bound. 400 days: a tracker uploads its stored backlog after weeks without coverage or a dead
   * SIM, and the scenario suite replays the annual calendar (31 December, holidays) up to a year
   * back; a clock that reset (1970, the GPS epoch 1980, a GPS week rollover 19.6 years back) is
   * still refused.
   */
  INGEST_MAX_PAST_AGE_S: z.coerce
    .number()
    .int()
    .min(0)
    .default(400 * 86_400),
  /** How long a device lookup (identifier, token hash, vehicle) is cached, in milliseconds. */
  DEVICE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * Most entries each device and token cache holds (least recently used evicted first): unknown
   * identifiers are cached too, so without a bound anyone could fill memory with made-up ones.
   * Keep it above the number of registered devices: the registered ones cached are what keeps a
   * fleet sending while the database is away. About 1 KB per registered device.
   */
  DEVICE_CACHE_MAX_ENTRIES: positiveInt(100_000),
  /** Where ingest keeps accepted records while the database is unreachable; default DATA_DIR/spool. One per ingest process. */
  SPOOL_DIR: z.string().optional(),
  /** Largest spool on disk, in bytes; past it ingest answers 503 so devices keep their data. */
  SPOOL_MAX_BYTES: positiveInt(1024 * 1024 * 1024),
  /**
   * Largest import body as sent (`POST /v1/stops/import` with a GTFS zip, the CSV imports), in
   * bytes. Streamed, never held whole: a whole national GTFS zip fits, stops.txt is read from it.
   */
  IMPORT_MAX_BODY_BYTES: positiveInt(128 * 1024 * 1024),
  /** Largest CSV an import reads, uncompressed (a CSV body, stops.txt inflated from a zip), in bytes. */
  IMPORT_MAX_CSV_BYTES: positiveInt(32 * 1024 * 1024),
  /** Most data rows of an imported CSV, or features of an imported GeoJSON FeatureCollection. */
  IMPORT_MAX_ROWS: positiveInt(50_000),
  /** Most entries of an imported zip (read in order up to the one needed). */
  IMPORT_MAX_ZIP_ENTRIES: positiveInt(1000),
  /** Largest GeoJSON import body (`POST /v1/stands/import`, `/v1/zones/import`), in bytes; parsed whole. */
  IMPORT_MAX_GEOJSON_BYTES: positiveInt(10 * 1024 * 1024),
  /** Imports (`POST /v1/<collection>/import`) running at once per process; the others wait, bodies unread. */
  IMPORT_MAX_CONCURRENT: positiveInt(2),
  /** Interval of the batched live push to dashboards, in milliseconds (at most 500 by contract). */
  LIVE_PUSH_INTERVAL_MS: z.coerce.number().int().min(50).max(500).default(500),
  /**
   * A `/live` socket that sent its viewport gets the vehicles in the view grown by this share of its
   * width and height on each side at every push: a vehicle about to enter is already drawn.
   */
  LIVE_VIEWPORT_MARGIN: z.coerce.number().min(0).max(2).default(0.25),
  /**
   * ... and the rest of its scope at most this late, in milliseconds: counts and "offline" stay
   * right with fewer bytes. Kept under OFFLINE_AFTER_S, or a quiet area would show vehicles offline.
   */
  LIVE_OUTSIDE_REFRESH_MS: z.coerce.number().int().min(500).default(30_000),
  /** A vehicle with no sample for this many seconds is shown offline. */
  OFFLINE_AFTER_S: positiveInt(120),
  /** Telemetry older than this many days is dropped (TimescaleDB retention policy); 0 keeps all. */
  TELEMETRY_RETENTION_DAYS: z.coerce.number().int().min(0).default(1825),
  /** Records refused but acknowledged by a gateway (the quarantine) are purged after this many days; 0 keeps all. */
  QUARANTINE_RETENTION_DAYS: z.coerce.number().int().min(0).default(90),
  /** Grace for in-flight work on SIGTERM before the process exits anyway, in milliseconds. */
  SHUTDOWN_TIMEOUT_MS: positiveInt(15_000),
  /** Failed authentications (401) one client address may make per window before it gets 429; 0 = no limit. */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).default(20),
  /** The window of AUTH_FAILURE_LIMIT, in seconds; a refused address may retry when it ends. */
  AUTH_FAILURE_WINDOW_S: positiveInt(60),
  /** Mean event-loop delay (ms, sampled each second) above which requests get 503 OVERLOADED; 0 = off. */
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(500),
  /** Event-loop utilisation (0–1, over the last second) above which requests get 503 OVERLOADED; 0 = off. */
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: z.coerce.number().min(0).max(1).default(0),
  /** Bearer token that may read `GET /metrics` besides the admin token; unset = the admin token only. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Alerts worker: how often each API process looks for new alert events and due deliveries, in milliseconds. */
  ALERT_POLL_INTERVAL_MS: positiveInt(200),
  /** Alerts: a receiver must answer 2xx within this many milliseconds (10 s by contract), or the attempt failed. */
  ALERT_TIMEOUT_MS: positiveInt(10_000),
  /** Alerts: an alert is retried for this long (24 h by contract) before it is `failed` and its subscription failing. */
  ALERT_MAX_AGE_MS: positiveInt(86_400_000),
  /** Alerts: attempts in flight at once to one subscription, per API process. */
  ALERT_CONCURRENCY_PER_RECEIVER: positiveInt(4),
  /** Alerts: the first retry waits up to this many milliseconds (jittered), doubling per attempt; ≤ 30 s by contract. */
  ALERT_BACKOFF_BASE_MS: z.coerce.number().int().positive().max(30_000).default(5_000),
  /** Alerts: the longest wait between two attempts of one alert, in milliseconds. */
  ALERT_BACKOFF_MAX_MS: positiveInt(600_000),
  /** Alerts: delivered and failed alerts (and their events) are purged after this many days; 0 keeps all. */
  ALERT_RETENTION_DAYS: z.coerce.number().int().min(0).default(90),
  /** Dispatch: how long one taxi has to answer an offer before it passes to the next, in seconds (API.md `offerTimeoutS`). */
  DISPATCH_OFFER_TIMEOUT_S: positiveInt(20),
  /** Dispatch: a booking nobody has taken after this many seconds is `expired` (the console sounds it). */
  DISPATCH_BOOKING_TIMEOUT_S: positiveInt(300),
  /**
   * Dispatch: when an API process's bus resumes after an outage, every taxi page it holds is sent
   * its snapshot again; the snapshots are read for this many vehicles at a time, batch after batch.
   */
  DRIVER_RESYNC_BATCH: positiveInt(500),
  /** Dispatch: a taxi within this many metres of the pickup has `arrived`. */
  DISPATCH_ARRIVAL_RADIUS_M: positiveInt(50),
  /** Dispatch worker: how often each API process looks for offers due to expire and bookings to offer, in milliseconds. */
  DISPATCH_POLL_INTERVAL_MS: positiveInt(1000),
  /**
   * SMTP server alerts by e-mail go through, e.g. `smtp://user:pass@host:587` (STARTTLS when the
   * server offers it) or `smtps://user:pass@host:465` (TLS from the start); unset = no e-mail
   * subscriptions (400 EMAIL_NOT_CONFIGURED).
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** Sender of alert e-mails (`From:`), an address or `Name <address>`. */
  SMTP_FROM: z.string().min(3).default('Vigia <alertas@vigia.localhost>'),
  /**
   * The address users reach the dashboard and API at (behind a proxy: the proxy's), for links in
   * e-mails and on notices; unset = this process's own `http://<HOST>:<PORT>`.
   */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Dispatch best arrival: an OSRM-compatible routing server (`/table/v1/driving/…`), e.g.
   * `http://osrm:5000`; unset = travel times estimated from the stored trace history.
   */
  ROUTING_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Dispatch: the routing server must answer within this many milliseconds, or the history estimate is used. */
  ROUTING_TIMEOUT_MS: positiveInt(1000),
  /** Dispatch: speed (km/h) assumed where the trace history has too few moving samples (and before it has any). */
  DISPATCH_FALLBACK_SPEED_KMH: z.coerce.number().positive().max(130).default(25),
  /** Dispatch: road distance over straight-line distance until enough hired trips have measured it (1–3). */
  DISPATCH_DETOUR_FACTOR: z.coerce.number().min(1).max(3).default(1.35),
  /** Dispatch: days of telemetry the travel-time history is first built from (older samples fade with a 14-day half-life). */
  DISPATCH_HISTORY_DAYS: positiveInt(14),
  /** Dispatch: how often each API process folds new telemetry into its travel-time history, in seconds. */
  DISPATCH_HISTORY_REFRESH_S: positiveInt(300),
  /** Dispatch: moving samples (recency-weighted) an H3 cell needs, in an hour slot or overall, before its speed is used. */
  DISPATCH_HISTORY_MIN_SAMPLES: positiveInt(10),
  /** Dispatch: samples at or below this speed (km/h) are a taxi waiting, not traffic, and are left out of the speeds. */
  DISPATCH_HISTORY_MIN_SPEED_KMH: z.coerce.number().min(0).default(5),
  /** Dispatch: a pickup within this many metres of a stand is offered to that stand's queue first (Art. 37 m DF). */
  DISPATCH_STAND_RADIUS_M: positiveInt(100),
  /** Dispatch: the nearest free taxis (straight line) whose arrival is estimated for each ranking. */
  DISPATCH_CANDIDATES: positiveInt(20),
  /** Dispatch: no taxi farther than this many metres (straight line) from the pickup is offered a booking. */
  DISPATCH_SEARCH_RADIUS_M: positiveInt(10_000),
  /** Dispatch report: the longest range (days) one `GET /v1/bookings/report` covers; longer is 400 RANGE_TOO_LARGE. */
  DISPATCH_REPORT_MAX_DAYS: z.coerce.number().int().min(1).max(366).default(31),
  /** Vehicle track: a silence longer than this many seconds between two samples splits the trail (a gap). */
  TRACK_GAP_S: positiveInt(300),
  /** Vehicle track: a jump between two samples faster than this (km/h) splits the trail too (a fix far off, not a drive). */
  TRACK_GAP_SPEED_KMH: positiveInt(200),
  /**
   * Analytics, Belém fleet sizing (Art. 5 §6, Art. 65: one taxi per 500 inhabitants): the
   * municipality's population. Default: IBGE, Censo Demográfico 2022, Belém (1 303 403).
   */
  BELEM_POPULATION: positiveInt(1_303_403),
  /** Where BELEM_POPULATION comes from, shown beside the figure. */
  BELEM_POPULATION_SOURCE: z.string().min(1).max(200).default('IBGE, Censo Demográfico 2022'),
  /** Reverse lookup: a street farther than this many metres from the point is not named (api/src/places/README.md). */
  PLACES_STREET_MAX_M: z.coerce.number().int().min(1).max(1000).default(150),
  /** Reverse lookup: a registered stop or stand within this many metres names the place (else a zone containing it). */
  PLACES_NEAR_M: z.coerce.number().int().min(1).max(1000).default(50),
  /** Reverse lookup: the directory of `*-roads.geojson` street data; unset = the dashboard's bundled dashboard/public/basemap. */
  PLACES_STREET_DATA_DIR: z.string().min(1).optional(),
});

export type Config = z.infer<typeof configSchema>;

/** Every variable that names a port the process listens on: PORT and each gateway's. */
export const portKeys = Object.keys(configSchema.shape).filter((k) => k === 'PORT' || k.endsWith('_PORT'));

/**
 * Every listening port set to 0, so the operating system picks free ones: for processes started
 * side by side (tests, benchmarks), where a fixed default port of a new gateway would collide.
 */
export function ephemeralPorts(): Record<string, string> {
  return Object.fromEntries(portKeys.map((k) => [k, '0']));
}

/**
 * The environment of a service started as a child process beside others on this machine (the
 * soak, benchmarks, tests): nothing inherited but PATH, free ports, the loopback interface, and
 * `info` logs, whose start-up line carries the URL the caller waits for; `env` adds or overrides.
 */
export function sideBySideServiceEnv(env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...ephemeralPorts(), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
}
export type ConfigKey = keyof typeof configSchema.shape;

/** Parse the environment; a bad value stops start-up with every problem listed. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new AppError('INVALID_CONFIG', `Invalid configuration: ${problems.join('; ')}`, 500, problems);
  }
  if (parsed.data.RULES_MODE === 'partitioned' && !parsed.data.REDIS_URL) {
    throw new AppError(
      'INVALID_CONFIG',
      'RULES_MODE=partitioned needs REDIS_URL (the partitions are Redis streams)',
      500,
    );
  }
  if (parsed.data.LIVE_OUTSIDE_REFRESH_MS >= parsed.data.OFFLINE_AFTER_S * 1000) {
    throw new AppError(
      'INVALID_CONFIG',
      'LIVE_OUTSIDE_REFRESH_MS must be shorter than OFFLINE_AFTER_S, or vehicles outside a view would show offline',
      500,
    );
  }
  return parsed.data;
}

/**
 * The base URL links handed to people (e-mails, notices) start with, without a trailing slash:
 * PUBLIC_URL, or else this process's own address. `port` is the port actually listened on (PORT=0
 * picks one at start); a wildcard HOST is not an address anyone can open, so it reads `localhost`.
 */
export function publicUrlOf(config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>, port = config.PORT): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/+$/, '');
  const wildcard = config.HOST === '0.0.0.0' || config.HOST === '::' || config.HOST === '';
  const host = wildcard ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${port}`;
}

/**
 * PGlite has one connection and a fixed cost per statement that is most of a small batch's
 * (its protocol layer and the function call): in the embedded mode at 2,000 vehicles, waiting 50 ms
 * instead of 5 for company halved the lag's p99 and `/health`'s. PostgreSQL writes up to four batches
 * at once, so a short wait is enough there.
 */
export function batchWaitMs(config: Pick<Config, 'INGEST_BATCH_MAX_WAIT_MS'>, database: 'pglite' | 'postgres'): number {
  return config.INGEST_BATCH_MAX_WAIT_MS ?? (database === 'pglite' ? 50 : 5);
}

export function demoEnabled(config: Config): boolean {
  return config.DEMO ? config.DEMO === 'on' : config.DATABASE_URL === undefined;
}
