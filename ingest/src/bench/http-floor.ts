/**
 * The HTTP floor of the one-record-per-request scenario: a bare Fastify (the ingest's version, its
 * default JSON parser) that takes the same `POST /v1/telemetry` requests and answers each with the
 * ingest's answer shape, doing nothing else. Run by ingest-bench.ts as a child process of its own,
 * under the same load, so what a request costs the HTTP stack alone on this machine at this moment
 * is measured beside what it costs the ingest: per-message figures from two machines (or two
 * moments of one shared machine) can be compared by what the ingest adds over the floor.
 *
 * It prints `{"url": …}` on stdout once it listens, and serves its own CPU counters at
 * `GET /metrics` under the names prom-client uses, so the bench reads it like the ingest.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/v1/telemetry', async (req) => ({ accepted: req.body === undefined ? 0 : 1, duplicates: 0, rejected: [] }));
app.get('/metrics', async (_req, reply) => {
  const { user, system } = process.cpuUsage();
  reply.type('text/plain; version=0.0.4');
  return `process_cpu_user_seconds_total ${user / 1e6}\nprocess_cpu_system_seconds_total ${system / 1e6}\n`;
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
