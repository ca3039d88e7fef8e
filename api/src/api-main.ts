import { AppError, exitOnSignals, startOrExit } from '@vigia/core';
import { startSystem } from './system.js';

/** The API service alone (`npm run start:api`): registry, live channel and dashboard, several per deployment. */
const system = await startOrExit('vigia-api', async () => {
  if (!process.env.DATABASE_URL) {
    throw new AppError(
      'DATABASE_URL_REQUIRED',
      'The API service needs DATABASE_URL (use `npm start` for the embedded mode)',
      500,
    );
  }
  return startSystem(process.env, { ingest: false, api: true });
});
exitOnSignals(() => system.close(), system.log, system.config.SHUTDOWN_TIMEOUT_MS);
