import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '@vigia/core';
import { type RunningSimulator, startSimulator } from '@vigia/devices';
import { demoWorkerDataSchema, type FromDemoWorker, toDemoWorkerSchema } from './demo-messages.js';

/**
 * The embedded demo's simulated fleet, on a thread of its own (started by demo.ts): its HTTP
 * clients, TCP trackers and vehicle motion took a fifth of the one process's CPU at 2,000
 * vehicles, on the same event loop as the API and the ingest, so `/health` and the ingest's own
 * answers queued behind it. It still talks to the API over the loopback, as a real fleet would.
 */
const port = parentPort;
if (!port) throw new Error('demo-worker.js runs as a worker thread (api/src/demo/demo.ts starts it)');
const data = demoWorkerDataSchema.parse(workerData);
const log = createLogger('vigia', data.logLevel).child({ component: 'simulator', thread: 'demo' });
const post = (message: FromDemoWorker) => port.postMessage(message);

let simulator: RunningSimulator | undefined;
let stopRequested = false;
let statsTimer: NodeJS.Timeout | undefined;

async function stop(): Promise<void> {
  stopRequested = true;
  if (statsTimer) clearInterval(statsTimer);
  if (!simulator) return; // Still starting: stopped as soon as it has started.
  await simulator.stop();
  post({ type: 'stopped', stats: simulator.stats() });
  port?.close();
}

port.on('message', (raw: unknown) => {
  const message = toDemoWorkerSchema.safeParse(raw);
  if (!message.success) {
    log.error({ code: 'DEMO_MESSAGE_INVALID', issues: message.error.issues }, 'unexpected message to the demo thread');
    return;
  }
  void stop();
});

try {
  simulator = await startSimulator({
    apiUrl: data.apiUrl,
    adminToken: data.adminToken,
    vehicles: data.vehicles,
    intervalMs: data.intervalMs,
    protocol: data.protocol,
    bookingIntervalS: data.bookingIntervalS,
    // Unit values, holidays, zones and stops for this process's own registry (devices/data/demo-registry).
    demoReferenceData: true,
    ...(data.gateways
      ? {
          osmand: { host: data.gateways.host, port: data.gateways.osmandPort },
          teltonika: { host: data.gateways.host, port: data.gateways.teltonikaPort },
          gt06: { host: data.gateways.host, port: data.gateways.gt06Port },
        }
      : {}),
    logger: log,
  });
} catch (err) {
  const code =
    typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : 'DEMO_START_FAILED';
  post({ type: 'failed', code, message: err instanceof Error ? err.message : String(err) });
  port.close();
}
if (simulator) {
  post({ type: 'started', vehicles: simulator.vehicles });
  const running = simulator;
  statsTimer = setInterval(() => post({ type: 'stats', stats: running.stats() }), data.statsIntervalMs);
  statsTimer.unref();
  if (stopRequested) await stop();
}
