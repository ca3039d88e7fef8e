import { exitOnSignals, startOrExit } from '@vigia/core';
import { startSystem } from './system.js';

/** The whole system in one process (`npm start`): ingest, API, dashboard and, by default, the simulated fleet. */
const system = await startOrExit('vigia', () => startSystem(process.env, { ingest: true, api: true }));
exitOnSignals(() => system.close(), system.log, system.config.SHUTDOWN_TIMEOUT_MS);
