import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError } from '@vigia/core';
import type { Logger } from 'pino';
import {
  type DemoStats,
  type DemoWorkerData,
  demoWorkerDataSchema,
  fromDemoWorkerSchema,
  type ToDemoWorker,
} from './demo-messages.js';

export interface RunningDemo {
  vehicles: number;
  /** The fleet's figures as the simulator thread last reported them (every `statsIntervalMs`, and at stop). */
  stats(): DemoStats | undefined;
  stop(): Promise<void>;
}

/** How long `stop()` waits for the simulator thread to stop its devices before terminating it. */
const STOP_TIMEOUT_MS = 15_000;

/**
 * The simulator thread's compiled script. From dist, this file's sibling; from the sources (the
 * tests run them through Vitest), the compiled one in ../../dist: a worker thread runs plain
 * Node, which loads JavaScript, and `npm run build` comes before the tests.
 */
export function demoWorkerFile(): string {
  const sibling = new URL('./demo-worker.js', import.meta.url);
  if (import.meta.url.endsWith('.js')) return fileURLToPath(sibling);
  const compiled = fileURLToPath(new URL('../../dist/demo/demo-worker.js', import.meta.url));
  if (!existsSync(compiled)) {
    throw new AppError(
      'DEMO_WORKER_NOT_BUILT',
      `The demo's simulator thread is not built (${compiled}): run npm run build`,
    );
  }
  return compiled;
}

/**
 * The simulated fleet beside this process's API (DEMO=on), on a worker thread of its own so that
 * its HTTP clients and vehicle motion do not share the event loop that answers `/health`, the
 * ingest and the dashboard. Resolves once the fleet is registered and streaming; rejects if it
 * could not start. Later failures of the thread are logged with a code and never stop the API.
 */
export async function startDemo(opts: {
  url: string;
  adminToken: string;
  vehicles: number;
  intervalMs: number;
  /** `DEMO_PROTOCOL`; the gateways are this process's own, on the ports they bound. */
  protocol: 'native' | 'osmand' | 'teltonika' | 'gt06' | 'mixed';
  gateways: { host: string; osmandPort: number; teltonikaPort: number; gt06Port: number } | undefined;
  /** `DEMO_BOOKING_INTERVAL_S`: the simulated radio desks' bookings, answered by the simulated taxis; 0 = none. */
  bookingIntervalS: number;
  log: Logger;
  /** How often the thread reports its figures, ms; default 10 s. */
  statsIntervalMs?: number;
  /** `DEMO_THREAD=off`: on the main thread, as before the thread existed (for comparison); default false. */
  mainThread?: boolean;
}): Promise<RunningDemo> {
  const log = opts.log.child({ component: 'demo' });
  if (opts.mainThread) return startOnMainThread(opts, log);
  // Parsed on this side too: zod keeps only the schema's keys, and a structured clone copies nothing else.
  const data: DemoWorkerData = demoWorkerDataSchema.parse({
    apiUrl: opts.url,
    adminToken: opts.adminToken,
    vehicles: opts.vehicles,
    intervalMs: opts.intervalMs,
    protocol: opts.protocol,
    gateways: opts.gateways,
    bookingIntervalS: opts.bookingIntervalS,
    logLevel: opts.log.level,
    statsIntervalMs: opts.statsIntervalMs ?? 10_000,
  });
  const worker = new Worker(demoWorkerFile(), {
    workerData: data,
    name: 'vigia-demo',
    // Not the parent's flags: under Vitest they carry `--conditions development`, which would
    // resolve the workspaces to their TypeScript sources, which plain Node cannot load.
    execArgv: [],
  });
  let stats: DemoStats | undefined;
  let stopping = false;
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
  const stopped = new Promise<void>((resolve) => {
    worker.on('message', (m) => {
      if (fromDemoWorkerSchema.safeParse(m).data?.type === 'stopped') resolve();
    });
    void exited.then(() => resolve());
  });
  const started = new Promise<number>((resolve, reject) => {
    worker.on('message', (raw: unknown) => {
      const message = fromDemoWorkerSchema.safeParse(raw);
      if (!message.success) {
        log.error(
          { code: 'DEMO_MESSAGE_INVALID', issues: message.error.issues },
          'unexpected message from the demo thread',
        );
        return;
      }
      const m = message.data;
      if (m.type === 'started') resolve(m.vehicles);
      else if (m.type === 'stats' || m.type === 'stopped') stats = m.stats;
      else if (m.type === 'failed')
        reject(new AppError(m.code, `The demo's simulator did not start: ${m.message}`, 500));
    });
    // An uncaught error in the thread: logged with a code; the API carries on without its demo.
    worker.on('error', (err) => {
      log.error({ code: 'DEMO_THREAD_FAILED', err }, 'the demo simulator thread failed; the API carries on without it');
      reject(new AppError('DEMO_THREAD_FAILED', `The demo's simulator thread failed: ${err.message}`, 500));
    });
    void exited.then((code) => {
      if (!stopping) log.error({ code: 'DEMO_THREAD_EXITED', exitCode: code }, 'the demo simulator thread exited');
      reject(new AppError('DEMO_THREAD_EXITED', `The demo's simulator thread exited (${code})`, 500));
    });
  });
  const stop = async () => {
    if (!stopping) {
      stopping = true;
      worker.postMessage({ type: 'stop' } satisfies ToDemoWorker);
    }
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS, 'timeout').unref());
    if ((await Promise.race([stopped, timeout])) === 'timeout') {
      log.warn(
        { code: 'DEMO_STOP_TIMEOUT', timeoutMs: STOP_TIMEOUT_MS },
        'the demo simulator thread did not stop; terminating it',
      );
    }
    await worker.terminate();
    await exited;
    // The fleet's final figures, as the thread last sent them (`npm run bench:embedded` reads this line).
    log.info({ ...stats }, 'demo fleet stopped');
  };
  let vehicles: number;
  try {
    vehicles = await started;
  } catch (err) {
    stopping = true;
    await worker.terminate();
    throw err;
  }
  let stopPromise: Promise<void> | undefined;
  return {
    vehicles,
    stats: () => stats,
    stop() {
      stopPromise ??= stop();
      return stopPromise;
    },
  };
}

/** The fleet in this thread (`DEMO_THREAD=off`); loaded on demand, so an API process never loads the simulator's code. */
async function startOnMainThread(opts: Parameters<typeof startDemo>[0], log: Logger): Promise<RunningDemo> {
  const { startSimulator } = await import('@vigia/devices');
  const simulator = await startSimulator({
    apiUrl: opts.url,
    adminToken: opts.adminToken,
    vehicles: opts.vehicles,
    intervalMs: opts.intervalMs,
    protocol: opts.protocol,
    bookingIntervalS: opts.bookingIntervalS,
    demoReferenceData: true,
    ...(opts.gateways
      ? {
          osmand: { host: opts.gateways.host, port: opts.gateways.osmandPort },
          teltonika: { host: opts.gateways.host, port: opts.gateways.teltonikaPort },
          gt06: { host: opts.gateways.host, port: opts.gateways.gt06Port },
        }
      : {}),
    logger: opts.log.child({ component: 'simulator' }),
  });
  let stopPromise: Promise<void> | undefined;
  return {
    vehicles: simulator.vehicles,
    stats: () => simulator.stats(),
    stop() {
      stopPromise ??= simulator.stop().then(() => log.info({ ...simulator.stats() }, 'demo fleet stopped'));
      return stopPromise;
    },
  };
}
