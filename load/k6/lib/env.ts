/**
 * The k6 scripts' settings, from `k6 run -e NAME=value` or the container's environment (`__ENV`):
 * the same variables as `npm run load` (load/README.md). A bad value stops the run before it starts.
 */
import { PROFILES, type ProfileName, SIZE_ENV, type Sizes, sizeProblems } from '../../src/scenarios/sizes.ts';

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The API (registry, bookings, `/live`): `LOAD_API_URL`, by default a system on this machine. */
export const apiUrl = (): string => trimSlash(__ENV.LOAD_API_URL || 'http://localhost:3000');

/** `POST /v1/telemetry`: `LOAD_INGEST_URL`, by default the API's (the all-in-one process serves both). */
export const ingestUrl = (): string => trimSlash(__ENV.LOAD_INGEST_URL || apiUrl());

/** The admin token (`ADMIN_TOKEN`): the scenarios register their own operator, vehicles and devices. */
export function adminToken(): string {
  const token = __ENV.ADMIN_TOKEN ?? '';
  if (token.length < 16) throw new Error('set ADMIN_TOKEN to the system’s admin token (at least 16 characters)');
  return token;
}

/** The sizes of `LOAD_PROFILE` (the k6 default is `full`), each overridden by its own variable. */
export function sizesFromEnv(defaultProfile: ProfileName = 'full'): Sizes {
  const name = __ENV.LOAD_PROFILE || defaultProfile;
  if (name !== 'ci' && name !== 'full') throw new Error(`LOAD_PROFILE must be ci or full (got ${name})`);
  const sizes: Sizes = { ...PROFILES[name] };
  for (const key of Object.keys(SIZE_ENV) as (keyof Sizes)[]) {
    const raw = __ENV[SIZE_ENV[key]];
    if (raw !== undefined && raw !== '') sizes[key] = Number(raw);
  }
  const problems = sizeProblems(sizes);
  if (problems.length > 0) throw new Error(`bad sizes: ${problems.join('; ')}`);
  return sizes;
}
