#!/usr/bin/env node
import { createLogger } from '@vigia/core';
import { parseCli, USAGE } from './cli-options.js';
import { type RunningSimulator, startSimulator } from './simulator.js';

/** `npm run simulate`: the simulated fleet against a running vigia server. */

const SHUTDOWN_TIMEOUT_MS = 15_000;

const cli = parseCli(process.argv.slice(2), process.env);
if (cli.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if ('error' in cli) {
  process.stderr.write(`${cli.error}\n\n${USAGE}\n`);
  process.exit(2);
}

const { options } = cli;
const log = createLogger('simulator', options.logLevel);
let simulator: RunningSimulator | undefined;
let stopping = false;

// Installed before registration starts, so Ctrl-C also works while the server is still unreachable.
const onSignal = (signal: NodeJS.Signals) => {
  if (stopping) {
    log.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  }
  stopping = true;
  log.info({ signal }, 'stopping the simulated fleet');
  setTimeout(() => {
    log.error({ code: 'SHUTDOWN_TIMEOUT' }, 'stopping took too long: exiting');
    process.exit(1);
  }, SHUTDOWN_TIMEOUT_MS).unref();
  void (simulator?.stop() ?? Promise.resolve()).then(() => process.exit(0));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

try {
  simulator = await startSimulator({
    apiUrl: options.apiUrl,
    ingestUrl: options.ingestUrl,
    adminToken: options.token,
    vehicles: options.vehicles,
    intervalMs: options.intervalMs,
    seed: options.seed,
    logger: log,
    protocol: options.protocol,
    teltonika: options.teltonika,
    osmand: options.osmand,
    gt06: options.gt06,
  });
  if (stopping) await simulator.stop();
} catch (err) {
  if (!stopping) {
    const code = err && typeof err === 'object' && 'code' in err ? String(err.code) : 'SIMULATOR_FAILED';
    log.fatal({ err, code }, 'could not start the simulated fleet');
    process.exit(1);
  }
}
