import { AppError, type Config, loadConfig } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { Logger } from 'pino';
import { createServiceRuntime } from './service-runtime.js';

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
  const runtime = await createServiceRuntime(config, 'vigia-ingest');
  const { app, log } = runtime;
  if (!config.REDIS_URL) log.warn({ code: 'NO_REDIS' }, 'REDIS_URL unset: fleet updates reach no API process');
  await runtime.ingest.register(app);
  const url = await app.listen({ port: config.PORT, host: config.HOST });
  log.info({ url }, 'ingest service running');
  return {
    url,
    config,
    db: runtime.db,
    log,
    async close() {
      await app.close();
      await runtime.closeBackends();
    },
  };
}
