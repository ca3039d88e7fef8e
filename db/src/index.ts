export type { Database, DatabaseKind, Queryable, QueryResult } from './database.js';
export { applyRetention, MIGRATIONS_DIR, type MigrationOutcome, migrate, readMigrations } from './migrate.js';
export { type OpenedDatabase, openDatabase } from './open.js';
export { openPglite, type PGliteLike, wrapPglite } from './pglite.js';
export { openPgliteThread } from './pglite-thread.js';
export { openPostgres, queryableOf } from './postgres.js';
