/**
 * The benchmark's HTTP load generator, run by ingest-bench.ts as a child process of its own so
 * that its CPU is not counted against the ingest (a `fetch` client in the bench's process cost as
 * much CPU as the server it measured). It sends every record of its scenario exactly once through
 * autocannon, which writes pre-built requests on keep-alive sockets and costs a few µs a request.
 *
 * Protocol (http-load-protocol.ts): arguments as one JSON argv item; a `ready` line on stdout once
 * the bodies are made; the load starts when a line arrives on stdin; a `report` line at the end.
 */
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { z } from 'zod';
import { makeSamples } from './bench-samples.js';
import { type HttpLoadMessage, parseHttpLoadArgs } from './http-load-protocol.js';

const args = parseHttpLoadArgs(process.argv.slice(2));

/** One request: its body and who signs it. */
interface PreparedRequest {
  body: Buffer;
  authorization: string;
}

/**
 * Every request made up front, so that sending one costs autocannon only the copy of its bytes.
 * One record per request is a JSON object, signed by its own device; a batch is a JSON array.
 */
function prepareRequests(): PreparedRequest[] {
  const samples = makeSamples(args.records, args.devices, args.dayStartMs);
  const requests: PreparedRequest[] = [];
  for (let i = 0; i < samples.length; i += args.batchSize) {
    const authorization =
      args.auth.kind === 'gateway' ? `Bearer ${args.auth.token}` : `Bearer ${args.auth.tokenPrefix}${i % args.devices}`;
    const body = args.batchSize === 1 ? samples[i] : samples.slice(i, i + args.batchSize);
    requests.push({ body: Buffer.from(JSON.stringify(body)), authorization });
  }
  return requests;
}

function send(message: HttpLoadMessage): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** The part of autocannon's result the report uses (the package ships no types: checked here). */
const resultSchema = z.object({
  errors: z.number(),
  timeouts: z.number(),
  non2xx: z.number(),
  latency: z.object({ p50: z.number(), p99: z.number() }),
  requests: z.object({ sent: z.number() }),
});

/** The part of an ingest answer the report sums. */
const ingestAnswerSchema = z.object({ accepted: z.int().nonnegative() });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const requests = prepareRequests();
send({ type: 'ready', requests: requests.length });
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();
// Nothing more comes in: an open stdin would keep this process alive after its report.
process.stdin.destroy();

const url = new URL(args.url);
let next = 0;
let ok = 0;
let accepted = 0;
let lastResponseMs = 0;
const startMs = performance.now();
const raw = await autocannon({
  url: url.origin,
  // Every connection takes the next unsent request from the shared list: each record goes once.
  amount: requests.length,
  connections: Math.min(args.connections, requests.length),
  pipelining: 1,
  timeout: args.timeoutS,
  // autocannon notices the end of the run on its sampling tick: a short tick ends the run promptly.
  sampleInt: 50,
  requests: [
    {
      method: 'POST',
      path: `${url.pathname.replace(/\/$/, '')}/v1/telemetry`,
      setupRequest: (request) => {
        const prepared = requests[next++];
        if (!prepared) return request;
        return {
          ...request,
          headers: { 'content-type': 'application/json', authorization: prepared.authorization },
          body: prepared.body,
        };
      },
      onResponse: (status, body) => {
        lastResponseMs = performance.now();
        if (status !== 200) return;
        ok++;
        const answer = ingestAnswerSchema.safeParse(parseJson(body));
        if (answer.success) accepted += answer.data.accepted;
      },
    },
  ],
});
const result = resultSchema.parse(raw);
send({
  type: 'report',
  requestsSent: result.requests.sent,
  ok,
  notOk: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  accepted,
  seconds: Math.max(0, (lastResponseMs - startMs) / 1000),
  latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
});
