/**
 * `npm run load`'s settings from the environment, validated before anything starts: the same
 * variables as the k6 scripts (load/README.md), with the `ci` profile by default.
 */
import { z } from 'zod';
import { SCENARIOS, type ScenarioName } from '../scenarios/fleet.ts';
import { PROFILES, SIZE_ENV, type Sizes, sizeProblems } from '../scenarios/sizes.ts';

const size = z.coerce.number().int().min(0).optional();
const sizeFields = Object.fromEntries(Object.values(SIZE_ENV).map((name) => [name, size])) as Record<
  string,
  typeof size
>;

const envSchema = z
  .object({
    /** The API of a running system; unset = `npm run load` starts one of its own (the built all-in-one entry). */
    LOAD_API_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** `POST /v1/telemetry` of that system; unset = the API's. */
    LOAD_INGEST_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** The admin token of that system (the one started here makes its own). */
    ADMIN_TOKEN: z.string().min(16).optional(),
    /** Comma-separated scenarios to run, in this order. */
    LOAD_SCENARIOS: z
      .string()
      .default(SCENARIOS.join(','))
      .transform((s) => s.split(',').map((x) => x.trim()))
      .pipe(z.array(z.enum(SCENARIOS)).min(1)),
    LOAD_PROFILE: z.enum(['ci', 'full']).default('ci'),
    /** `1`: also print the results as one JSON line (what the test reads). */
    LOAD_JSON: z.enum(['0', '1']).default('0'),
    ...sizeFields,
  })
  .refine((env) => !env.LOAD_API_URL || env.ADMIN_TOKEN, {
    message: 'ADMIN_TOKEN is required with LOAD_API_URL',
    path: ['ADMIN_TOKEN'],
  });

export interface LoadConfig {
  /** Undefined: start a system of our own. */
  target: { apiUrl: string; ingestUrl: string; adminToken: string } | undefined;
  scenarios: ScenarioName[];
  sizes: Sizes;
  json: boolean;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The configuration, or every problem with the environment as one message. */
export function loadConfigFrom(env: Record<string, string | undefined>): LoadConfig {
  // An empty variable is an unset one (as in core/src/config.ts): `LOAD_RATE= npm run load`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) throw new Error(`bad load settings:\n${z.prettifyError(parsed.error)}`);
  const e = parsed.data;
  const sizes: Sizes = { ...PROFILES[e.LOAD_PROFILE] };
  for (const key of Object.keys(SIZE_ENV) as (keyof Sizes)[]) {
    const value = (e as Record<string, unknown>)[SIZE_ENV[key]];
    if (typeof value === 'number') sizes[key] = value;
  }
  const problems = sizeProblems(sizes);
  if (problems.length > 0) throw new Error(`bad load sizes: ${problems.join('; ')}`);
  const target =
    e.LOAD_API_URL && e.ADMIN_TOKEN
      ? {
          apiUrl: trimSlash(e.LOAD_API_URL),
          ingestUrl: trimSlash(e.LOAD_INGEST_URL ?? e.LOAD_API_URL),
          adminToken: e.ADMIN_TOKEN,
        }
      : undefined;
  return { target, scenarios: e.LOAD_SCENARIOS, sizes, json: e.LOAD_JSON === '1' };
}
