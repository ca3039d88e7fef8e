import { mkdir } from 'node:fs/promises';
import { PGlite, type PGliteOptions, types } from '@electric-sql/pglite';
import type { Database, Queryable, QueryResult } from './database.js';
import { type CompiledWasm, pgliteWasmModule } from './pglite-module.js';

/** What the services need of a PGlite instance; the TimescaleDB test build has the same shape. */
export interface PGliteLike {
  query<T>(sql: string, params?: unknown[], options?: unknown): Promise<{ rows: T[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(fn: (tx: PGliteTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
export interface PGliteTx {
  query<T>(sql: string, params?: unknown[], options?: unknown): Promise<{ rows: T[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}

// Same as the pg driver: `date` stays a 'YYYY-MM-DD' string.
export const pgliteQueryOptions = { parsers: { [types.DATE]: (v: string) => v } };

function wrap(db: PGliteTx): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const res = await db.query<T>(sql, params ? [...params] : undefined, pgliteQueryOptions);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await db.exec(sql);
    },
  };
}

export function wrapPglite(db: PGliteLike): Database {
  return {
    kind: 'pglite',
    ...wrap(db),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(wrap(tx))),
    async ping(): Promise<boolean> {
      try {
        await db.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.close(),
  };
}

/**
 * PGlite on `dir`, with plpgsql loaded. PGlite loads a procedural language's library on its first
 * use, most of a second on a busy machine, and the telemetry batch statement is plpgsql
 * (db/migrations/015): loaded here, while the service starts, the first batch of records after a
 * start does not wait for it. `wasmModule` is the process's compiled PGlite (`pgliteWasmModule`), which a
 * worker thread receives from the thread that started it.
 */
export async function createPglite(dir: string | undefined, wasmModule?: CompiledWasm): Promise<PGlite> {
  const pgliteWasm = (wasmModule ?? (await pgliteWasmModule())) as PGliteOptions['pgliteWasmModule'];
  const db = await PGlite.create(dir, { pgliteWasmModule: pgliteWasm });
  await db.exec('DO $$ BEGIN END $$');
  return db;
}

/** PGlite keeping its files in `dir` (created if missing); `undefined` keeps it in memory. */
export async function openPglite(dir: string | undefined): Promise<Database> {
  if (dir) await mkdir(dir, { recursive: true });
  const db = await createPglite(dir);
  return wrapPglite(db as unknown as PGliteLike);
}
