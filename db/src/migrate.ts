import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AppError } from '@vigia/core';
import type { Logger } from 'pino';
import type { Database } from './database.js';

/**
 * Versioned SQL migrations in db/migrations, named `NNN_description.sql`, applied in order at
 * start and recorded with a checksum in `schema_migrations`. A file whose first lines say
 * `-- requires: timescaledb` is applied only where TimescaleDB is available; it is not recorded
 * when skipped, so it applies later if the extension is installed afterwards. Several processes
 * may start at once: a PostgreSQL advisory lock lets one of them migrate while the others wait.
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));
const MIGRATION_LOCK_KEY = 7_246_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
  requiresTimescale: boolean;
}

export interface MigrationOutcome {
  timescale: boolean;
  applied: string[];
  skipped: string[];
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(`${dir}/${file}`, 'utf8');
      return {
        version: Number.parseInt(file, 10),
        name: file,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
        requiresTimescale: /^--\s*requires:\s*timescaledb\s*$/m.test(sql.split('\n').slice(0, 5).join('\n')),
      };
    }),
  );
}

/** Loads TimescaleDB when the server offers it; false where it cannot (plain PostgreSQL, PGlite). */
async function enableTimescale(db: Database, log: Logger): Promise<boolean> {
  const { rows } = await db.query<{ available: boolean; installed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb') AS available,
            EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') AS installed`,
  );
  const row = rows[0];
  if (row?.installed) return true;
  if (!row?.available) return false;
  try {
    await db.exec('CREATE EXTENSION IF NOT EXISTS timescaledb');
    return true;
  } catch (err) {
    log.warn(
      { err, code: 'TIMESCALEDB_UNAVAILABLE' },
      'TimescaleDB is installed but cannot be loaded; running without it',
    );
    return false;
  }
}

export async function migrate(db: Database, log: Logger, dir = MIGRATIONS_DIR): Promise<MigrationOutcome> {
  const migrations = await readMigrations(dir);
  const outcome: MigrationOutcome = { timescale: false, applied: [], skipped: [] };
  await db.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    outcome.timescale = await enableTimescale(db, log);
    const { rows: done } = await db.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations',
    );
    const applied = new Map(done.map((r) => [r.version, r]));
    for (const m of migrations) {
      const previous = applied.get(m.version);
      if (previous) {
        if (previous.checksum !== m.checksum) {
          throw new AppError(
            'MIGRATION_CHANGED',
            `Migration ${m.name} was changed after it was applied (as ${previous.name}); add a new migration instead`,
            500,
          );
        }
        continue;
      }
      if (m.requiresTimescale && !outcome.timescale) {
        outcome.skipped.push(m.name);
        continue;
      }
      await db.transaction(async (tx) => {
        await tx.exec(m.sql);
        await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          m.checksum,
        ]);
      });
      outcome.applied.push(m.name);
    }
  } finally {
    await db.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
  log.info({ ...outcome }, 'database migrated');
  return outcome;
}

/** TELEMETRY_RETENTION_DAYS as a TimescaleDB retention policy (0 removes it). */
export async function applyRetention(db: Database, days: number): Promise<void> {
  await db.query(`SELECT remove_retention_policy('telemetry', if_exists => true)`);
  if (days > 0) {
    await db.query(`SELECT add_retention_policy('telemetry', make_interval(days => $1::int))`, [days]);
  }
}
