/**
 * What the benchmark and its HTTP load generator (http-load.ts, a child process) say to each
 * other. The parent passes the arguments as one JSON document in argv; the child answers with
 * JSON lines on stdout: `ready` once its request bodies are made, then, after the parent writes a
 * line on its stdin ("go": the parent reads the ingest's CPU in between), one `report`. Both
 * sides validate, so a change on one side fails loudly instead of printing wrong figures.
 */
import { z } from 'zod';

const count = z.int().nonnegative();

export const httpLoadArgsSchema = z
  .strictObject({
    /** The ingest service's base URL (`POST <url>/v1/telemetry`). */
    url: z.url({ protocol: /^https?$/ }),
    /** Records to send, each exactly once. */
    records: z.int().positive(),
    /** Records per request: 1 is one JSON record per request (how trackers send), more a JSON array. */
    batchSize: z.int().positive().max(10_000),
    /** Registered bench devices the records are spread over (`BENCH-0` … `BENCH-<devices-1>`). */
    devices: z.int().positive(),
    /** Epoch ms of the first sample of each device (the scenario's own day). */
    dayStartMs: z.int().nonnegative(),
    /** Keep-alive connections, each with one request in flight (no pipelining: trackers do not pipeline). */
    connections: z.int().positive().max(4096),
    /** Seconds a request may take before autocannon gives up on it (its records then count as lost). */
    timeoutS: z.int().positive().default(120),
    /**
     * Who signs the requests: each device with its own token (`<tokenPrefix><n>`), as a tracker
     * does, or one gateway (admin) token for every request, as a gateway forwarding batches does.
     */
    auth: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('device'), tokenPrefix: z.string().min(1) }),
      z.strictObject({ kind: z.literal('gateway'), token: z.string().min(16) }),
    ]),
  })
  .refine((a) => a.auth.kind === 'gateway' || a.batchSize === 1, {
    message: 'a device token may only send its own records: device auth needs batchSize 1',
    path: ['auth'],
  })
  .refine((a) => a.records % a.batchSize === 0, {
    message: 'records must be a multiple of batchSize',
    path: ['records'],
  });
export type HttpLoadArgs = z.infer<typeof httpLoadArgsSchema>;
export type HttpLoadArgsInput = z.input<typeof httpLoadArgsSchema>;

/** The child's arguments from its argv (after the script path): exactly one JSON document. */
export function parseHttpLoadArgs(argv: readonly string[]): HttpLoadArgs {
  if (argv.length !== 1 || argv[0] === undefined)
    throw new Error(`expected one argument (the JSON arguments), got ${argv.length}`);
  let json: unknown;
  try {
    json = JSON.parse(argv[0]);
  } catch (err) {
    throw new Error(`the argument is not JSON: ${(err as Error).message}`);
  }
  const parsed = httpLoadArgsSchema.safeParse(json);
  if (!parsed.success) throw new Error(`invalid arguments: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export const httpLoadReadySchema = z.strictObject({ type: z.literal('ready'), requests: count });

export const httpLoadReportSchema = z.strictObject({
  type: z.literal('report'),
  requestsSent: count,
  /** Responses with status 200. */
  ok: count,
  /** Responses with another status (a 503 when the ingest sheds load, for instance). */
  notOk: count,
  /** Connection errors and timeouts, as autocannon counts them. */
  errors: count,
  timeouts: count,
  /** Sum of `accepted` over the 200 responses. */
  accepted: count,
  /** From the first request to the last response. */
  seconds: z.number().nonnegative(),
  latencyMs: z.strictObject({ p50: z.number().nonnegative(), p99: z.number().nonnegative() }),
});
export type HttpLoadReport = z.infer<typeof httpLoadReportSchema>;

export const httpLoadMessageSchema = z.discriminatedUnion('type', [httpLoadReadySchema, httpLoadReportSchema]);
export type HttpLoadMessage = z.infer<typeof httpLoadMessageSchema>;
