import { AppError, type Config, createBus, createHttpServer, createLogger, loadConfig } from '@vigia/core';
import { type Database, openDatabase } from '@vigia/db';
import type { Logger } from 'pino';
import { resolveAdminToken } from './admin-token.js';
import { createIngestService } from './ingest-service.js';

export interface RunningIngest {
  url: string;
  config: Config;
  db: Database;
  log: Logger;
  close(): Promise<void>;
}

/**
 * The ingest service alone: `POST /v1/telemetry` into PostgreSQL / TimescaleDB, with fleet
 * updates to the API processes over Redis. Several can run side by side behind a load balancer.
 */
export async function startIngestProcess(env: Record<string, string | undefined>): Promise<RunningIngest> {
  const config = loadConfig(env);
  if (!config.DATABASE_URL) {
    throw new AppError(
      'DATABASE_URL_REQUIRED',
      'The ingest service needs DATABASE_URL (use `npm start` for the embedded mode)',
      500,
    );
  }
  const log = createLogger('vigia-ingest', config.LOG_LEVEL);
  if (!config.REDIS_URL) log.warn({ code: 'NO_REDIS' }, 'REDIS_URL unset: fleet updates reach no API process');
  const admin = await resolveAdminToken(config);
  const { db } = await openDatabase(config, log);
  const bus = createBus(config.REDIS_URL, config.REDIS_PREFIX, log);
  const ingest = createIngestService({ db, bus, config, adminToken: admin.token, log });
  const app = createHttpServer({
    log,
    checks: [
      { name: 'database', check: () => db.ping() },
      { name: 'bus', check: () => bus.ping() },
    ],
  });
  await ingest.register(app);
  const url = await app.listen({ port: config.PORT, host: config.HOST });
  log.info({ url }, 'ingest service running');
  return {
    url,
    config,
    db,
    log,
    async close() {
      await app.close();
      await ingest.close();
      await bus.close();
      await db.close();
    },
  };
}
