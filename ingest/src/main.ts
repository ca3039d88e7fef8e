import { AppError, createBus, createHttpServer, createLogger, exitOnSignals, loadConfig } from '@vigia/core';
import { openDatabase } from '@vigia/db';
import { resolveAdminToken } from './admin-token.js';
import { createIngestService } from './ingest-service.js';

/**
 * The ingest service alone (`npm run start:ingest`): `POST /v1/telemetry` into PostgreSQL /
 * TimescaleDB, fleet updates to the API processes over Redis. Several can run side by side.
 */
const config = loadConfig();
if (!config.DATABASE_URL || !config.REDIS_URL) {
  throw new AppError(
    'SERVICES_CONFIG_REQUIRED',
    'The ingest service needs DATABASE_URL and REDIS_URL (use `npm start` for the embedded mode)',
    500,
  );
}
const log = createLogger('vigia-ingest', config.LOG_LEVEL);
const admin = await resolveAdminToken(config);
const { db } = await openDatabase(config, log);
const bus = createBus(config.REDIS_URL, config.REDIS_PREFIX, log);
const ingest = createIngestService({ db, bus, config, adminToken: admin.token, log });
const app = createHttpServer({
  log,
  bodyLimit: config.INGEST_BODY_LIMIT_BYTES,
  checks: [
    { name: 'database', check: () => db.ping() },
    { name: 'bus', check: () => bus.ping() },
  ],
});
await ingest.register(app);
const url = await app.listen({ port: config.PORT, host: config.HOST });
log.info({ url }, 'ingest service running');

exitOnSignals(
  async () => {
    await app.close();
    await ingest.close();
    await bus.close();
    await db.close();
  },
  log,
  config.SHUTDOWN_TIMEOUT_MS,
);
