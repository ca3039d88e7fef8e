/**
 * How big a run is. Both runners read the same environment variables (k6 from `__ENV`, the Node
 * runner through its zod schema) on top of a profile: `ci` is what `npm run load` does by default
 * (seconds on a shared two-core machine), `full` what the k6 scripts do by default against a
 * deployment (minutes, a city's fleet).
 *
 * Plain TypeScript with no imports: k6 and Node both load this file.
 */

export interface Sizes {
  /** Seconds each scenario sends for (registration and the final checks come on top). */
  durationS: number;
  /** Vehicles of the ingest and the live scenarios, each with its own device. */
  vehicles: number;
  /** Ingest: requests in flight at most (k6: VUs). */
  concurrency: number;
  /** Ingest: requests a second to start; 0 = as many as `concurrency` allows (a closed loop). */
  ratePerS: number;
  /** Ingest: telemetry records per request; 1 is a tracker (its own token), more a gateway (the admin token). */
  recordsPerRequest: number;
  /** Live: Socket.IO clients on `/live`, each a dashboard. */
  subscribers: number;
  /** Live: each vehicle sends a sample this often (ms). */
  liveIntervalMs: number;
  /** Dispatch: taxis of the cooperative, free and online. */
  taxis: number;
  /** Dispatch: radio desks booking at once, each a loop of book → offer → accept → cancel. */
  desks: number;
}

export type ProfileName = 'ci' | 'full';

export const PROFILES: Record<ProfileName, Sizes> = {
  ci: {
    durationS: 4,
    vehicles: 50,
    concurrency: 8,
    ratePerS: 0,
    recordsPerRequest: 1,
    subscribers: 4,
    liveIntervalMs: 1000,
    taxis: 20,
    desks: 2,
  },
  full: {
    durationS: 120,
    vehicles: 2000,
    concurrency: 64,
    ratePerS: 1000,
    recordsPerRequest: 1,
    subscribers: 20,
    liveIntervalMs: 10_000,
    taxis: 200,
    desks: 10,
  },
};

/** The environment variable of each size (`LOAD_PROFILE` picks the profile they override). */
export const SIZE_ENV: Record<keyof Sizes, string> = {
  durationS: 'LOAD_DURATION_S',
  vehicles: 'LOAD_VEHICLES',
  concurrency: 'LOAD_CONCURRENCY',
  ratePerS: 'LOAD_RATE',
  recordsPerRequest: 'LOAD_RECORDS_PER_REQUEST',
  subscribers: 'LOAD_SUBSCRIBERS',
  liveIntervalMs: 'LOAD_LIVE_INTERVAL_MS',
  taxis: 'LOAD_TAXIS',
  desks: 'LOAD_DESKS',
};

/**
 * Problems with a set of sizes that would make a run measure the wrong thing, as sentences (empty
 * when fine). Both runners refuse to start with any.
 */
export function sizeProblems(s: Sizes): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(s)) {
    const min = key === 'ratePerS' ? 0 : 1;
    if (!Number.isInteger(value) || value < min) problems.push(`${key} must be an integer ≥ ${min} (got ${value})`);
  }
  // A taxi holds one booking at a time: with fewer than two per desk, desks wait for each other.
  if (s.taxis < 2 * s.desks) problems.push(`taxis (${s.taxis}) must be at least twice desks (${s.desks})`);
  if (s.liveIntervalMs < 100) problems.push(`liveIntervalMs must be ≥ 100 (got ${s.liveIntervalMs})`);
  return problems;
}
