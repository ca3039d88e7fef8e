import { join } from 'node:path';
import type { Config } from '@vigia/core';
import type { Logger } from 'pino';
import type { Database } from './database.js';
import { applyRetention, type MigrationOutcome, migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPgliteThread } from './pglite-thread.js';
import { openPostgres } from './postgres.js';

export interface OpenedDatabase {
  db: Database;
  migration: MigrationOutcome;
}

/** DATABASE_URL → PostgreSQL/TimescaleDB; unset → PGlite in DATA_DIR/pgdata (on its own thread unless PGLITE_THREAD=off). Migrated before use. */
export async function openDatabase(
  config: Pick<
    Config,
    'DATABASE_URL' | 'DATA_DIR' | 'DATABASE_POOL_SIZE' | 'PGLITE_THREAD' | 'TELEMETRY_RETENTION_DAYS'
  >,
  log: Logger,
): Promise<OpenedDatabase> {
  const db = config.DATABASE_URL
    ? openPostgres(config.DATABASE_URL, config.DATABASE_POOL_SIZE)
    : config.PGLITE_THREAD === 'on'
      ? await openPgliteThread(join(config.DATA_DIR, 'pgdata'))
      : await openPglite(join(config.DATA_DIR, 'pgdata'));
  try {
    const migration = await migrate(db, log);
    if (migration.timescale) await applyRetention(db, config.TELEMETRY_RETENTION_DAYS);
    return { db, migration };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
