import { parseArgs } from 'node:util';
import { configSchema } from '@vigia/core';
import { z } from 'zod';
import { hostPortSchema } from './emulators/host-port.js';
import { SIM_PROTOCOLS } from './emulators/protocol-devices.js';
import { MIN_FLEET } from './fleet/fleet-split.js';

/** The gateways' ports when the server runs with its defaults. */
const TELTONIKA_PORT = configSchema.shape.TELTONIKA_PORT.parse(undefined);
const OSMAND_PORT = configSchema.shape.OSMAND_PORT.parse(undefined);
const GT06_PORT = configSchema.shape.GT06_PORT.parse(undefined);

export const USAGE = `Usage: npm run simulate -- [options]

Registers a simulated fleet (Brasília and Belém taxis, São Paulo charter buses) through the
vigia API and streams its telemetry until stopped with Ctrl-C (SIGINT) or SIGTERM.

Options:
  --api-url <url>       registry API base URL (default http://127.0.0.1:3000)
  --ingest-url <url>    base URL of POST /v1/telemetry (default: the API URL)
  --token <token>       admin token (default: the ADMIN_TOKEN environment variable)
  --vehicles <n>        vehicles in total, at least ${MIN_FLEET} (default 72)
  --interval-ms <ms>    milliseconds between two samples of a vehicle (default 2000)
  --seed <seed>         seed of the simulation (default 1); the same seed replays the same fleet
  --protocol <name>     native (JSON over HTTP, the default), osmand (emulated Traccar Client
                        phones), teltonika (emulated Teltonika Codec 8 Extended trackers), gt06
                        (emulated GT06/Concox trackers) or mixed (each device one of the four)
  --teltonika <h:p>     Teltonika gateway (default: the API host, port ${TELTONIKA_PORT} as TELTONIKA_PORT)
  --osmand <h:p>        OsmAnd gateway (default: the API host, port ${OSMAND_PORT} as OSMAND_PORT)
  --gt06 <h:p>          GT06 gateway (default: the API host, port ${GT06_PORT} as GT06_PORT)
  -h, --help            show this help

Environment: ADMIN_TOKEN (admin token), LOG_LEVEL (pino level, default info).`;

const httpUrl = z.url({ protocol: /^https?$/, error: 'an http(s) URL' });

export const cliOptionsSchema = z.object({
  apiUrl: httpUrl.default('http://127.0.0.1:3000'),
  ingestUrl: httpUrl.optional(),
  token: z.string({ error: 'an admin token is required: --token or ADMIN_TOKEN' }).min(1),
  vehicles: z.coerce.number().int().min(MIN_FLEET).max(10_000).default(72),
  intervalMs: z.coerce.number().int().min(100).max(3_600_000).default(2000),
  // A numeric seed is a number, anything else a string seed: `--seed 7` and `--seed demo` both work.
  seed: z
    .string()
    .min(1)
    .default('1')
    .transform((s) => (/^-?\d+$/.test(s) ? Number(s) : s)),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unset means native; the device gateways' addresses matter only for their protocol. */
  protocol: z.enum(SIM_PROTOCOLS).optional(),
  teltonika: hostPortSchema.optional(),
  osmand: hostPortSchema.optional(),
  gt06: hostPortSchema.optional(),
});

export type CliOptions = z.output<typeof cliOptionsSchema>;

export type CliParse = { help: true } | { help: false; options: CliOptions } | { help: false; error: string };

/** Parse argv (without node and the script) and the environment into validated options. */
export function parseCli(argv: readonly string[], env: Record<string, string | undefined>): CliParse {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'api-url': { type: 'string' },
        'ingest-url': { type: 'string' },
        token: { type: 'string' },
        vehicles: { type: 'string' },
        'interval-ms': { type: 'string' },
        seed: { type: 'string' },
        protocol: { type: 'string' },
        teltonika: { type: 'string' },
        osmand: { type: 'string' },
        gt06: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    return { help: false, error: err instanceof Error ? err.message : String(err) };
  }
  if (values.help) return { help: true };
  const parsed = cliOptionsSchema.safeParse({
    apiUrl: values['api-url'],
    ingestUrl: values['ingest-url'],
    token: values.token ?? (env.ADMIN_TOKEN || undefined),
    vehicles: values.vehicles,
    intervalMs: values['interval-ms'],
    seed: values.seed,
    logLevel: env.LOG_LEVEL || undefined,
    protocol: values.protocol,
    teltonika: values.teltonika,
    osmand: values.osmand,
    gt06: values.gt06,
  });
  if (!parsed.success) {
    return { help: false, error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  }
  return { help: false, options: parsed.data };
}
