/**
 * `npm run soak`'s settings from the environment, validated before anything starts. The defaults
 * are the issue's soak: 2 ingest and 2 API processes with partitioned rules on the local
 * PostgreSQL and Redis, 20 000 vehicles reporting every 10 s for 10 minutes. Documented in
 * load/README.md ("Soak").
 */
import { z } from 'zod';

const count = (def: number, min = 1) => z.coerce.number().int().min(min).default(def);

const envSchema = z.object({
  /** Vehicles reporting; each sends one sample per SOAK_INTERVAL_S with its own device token. */
  SOAK_VEHICLES: count(20_000),
  SOAK_INTERVAL_S: count(10),
  /** Seconds of sending (registration, warm-up and the checks come on top). */
  SOAK_DURATION_S: count(600),
  SOAK_INGEST_PROCESSES: count(2),
  SOAK_API_PROCESSES: count(2),
  /** Rule workers (`npm run start:rules`); the ingest processes run RULES_MODE=partitioned. */
  SOAK_RULE_WORKERS: count(1),
  /** Vehicles that carry 6 passengers in 4 seats for the first minute of every 90 s (DF_OVER_CAPACITY). */
  SOAK_VIOLATORS: count(200, 0),
  /** Requests in flight at most. */
  SOAK_CONCURRENCY: count(128),
  /** The PostgreSQL server's admin URL: the soak creates a scratch database on it and drops it after. */
  SOAK_PG_ADMIN_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgres://postgres@127.0.0.1:5432/postgres'),
  SOAK_REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  /**
   * A rule settings file (RULES_CONFIG_FILE) for the services, e.g. a shorter over-capacity
   * minimum for a run of seconds; unset = the packs' defaults.
   */
  SOAK_RULES_CONFIG_FILE: z.string().optional(),
  /** `1`: keep the scratch database (its name is printed) for a look afterwards. */
  SOAK_KEEP_DATABASE: z.enum(['0', '1']).default('0'),
  /**
   * Rows of telemetry written into TimescaleDB (its PGlite build) to time compression and the
   * hourly aggregate over them; 0 skips. Default: what the run's fleet sends in its duration.
   */
  SOAK_TIMESCALE_ROWS: z.coerce.number().int().min(0).optional(),
  /** `1`: also print the figures as one JSON line (what the test reads). */
  SOAK_JSON: z.enum(['0', '1']).default('0'),
});

export interface SoakConfig {
  vehicles: number;
  intervalS: number;
  durationS: number;
  ingestProcesses: number;
  apiProcesses: number;
  ruleWorkers: number;
  violators: number;
  concurrency: number;
  pgAdminUrl: string;
  redisUrl: string;
  rulesConfigFile: string | undefined;
  keepDatabase: boolean;
  timescaleRows: number;
  json: boolean;
}

/** The configuration, or every problem with the environment as one message. */
export function soakConfigFrom(env: Record<string, string | undefined>): SoakConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) throw new Error(`bad soak settings:\n${z.prettifyError(parsed.error)}`);
  const e = parsed.data;
  if (e.SOAK_VIOLATORS > e.SOAK_VEHICLES) throw new Error('bad soak settings: SOAK_VIOLATORS > SOAK_VEHICLES');
  const sent = Math.floor(e.SOAK_VEHICLES * (e.SOAK_DURATION_S / e.SOAK_INTERVAL_S));
  return {
    vehicles: e.SOAK_VEHICLES,
    intervalS: e.SOAK_INTERVAL_S,
    durationS: e.SOAK_DURATION_S,
    ingestProcesses: e.SOAK_INGEST_PROCESSES,
    apiProcesses: e.SOAK_API_PROCESSES,
    ruleWorkers: e.SOAK_RULE_WORKERS,
    violators: e.SOAK_VIOLATORS,
    concurrency: e.SOAK_CONCURRENCY,
    pgAdminUrl: e.SOAK_PG_ADMIN_URL,
    redisUrl: e.SOAK_REDIS_URL,
    rulesConfigFile: e.SOAK_RULES_CONFIG_FILE,
    keepDatabase: e.SOAK_KEEP_DATABASE === '1',
    timescaleRows: e.SOAK_TIMESCALE_ROWS ?? sent,
    json: e.SOAK_JSON === '1',
  };
}
