import { exitOnSignals, startOrExit } from '@vigia/core';
import { startIngestProcess } from './ingest-process.js';

const ingest = await startOrExit('vigia-ingest', () => startIngestProcess(process.env));
exitOnSignals(() => ingest.close(), ingest.log, ingest.config.SHUTDOWN_TIMEOUT_MS);
