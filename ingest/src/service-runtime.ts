import { type Bus, type Config, createBus, createHttpServer, createLogger } from '@vigia/core';
import { type Database, openDatabase } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { resolveAdminToken } from './admin-token.js';
import { createIngestService, type IngestService } from './ingest-service.js';

/**
 * What every Vigia process starts from, whichever components it then serves: the logger, the
 * admin token, the migrated database, the bus, the ingest service (whose token resolver the
 * API uses too) and an HTTP server with `/health` and `/ready`.
 */
export interface ServiceRuntime {
  config: Config;
  log: Logger;
  admin: { token: string; generated: boolean };
  db: Database;
  bus: Bus;
  ingest: IngestService;
  app: FastifyInstance;
  /** After the HTTP server has closed: lets accepted records commit, then closes bus and database. */
  closeBackends(): Promise<void>;
}

export async function createServiceRuntime(config: Config, name: string): Promise<ServiceRuntime> {
  const log = createLogger(name, config.LOG_LEVEL);
  const admin = await resolveAdminToken(config);
  const { db } = await openDatabase(config, log);
  const bus = createBus(config.REDIS_URL, config.REDIS_PREFIX, log);
  const ingest = createIngestService({ db, bus, config, adminToken: admin.token, log });
  await ingest.start();
  const app = createHttpServer({
    log,
    resolveToken: ingest.resolveToken,
    failedAuth: { max: config.AUTH_FAILURE_LIMIT, windowMs: config.AUTH_FAILURE_WINDOW_S * 1000 },
    overload: {
      maxEventLoopDelayMs: config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      maxEventLoopUtilization: config.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
    },
    checks: [
      { name: 'database', check: () => db.ping() },
      { name: 'bus', check: () => bus.ping() },
    ],
  });
  return {
    config,
    log,
    admin,
    db,
    bus,
    ingest,
    app,
    async closeBackends() {
      await ingest.close();
      await bus.close();
      await db.close();
    },
  };
}
