import pg from 'pg';
import type { Database, Queryable, QueryResult } from './database.js';

// `date` columns stay 'YYYY-MM-DD' strings: a calendar date has no time zone to guess.
pg.types.setTypeParser(pg.types.builtins.DATE, (v: string) => v);

/** A pool, or one connection (a transaction's, a benchmark's own), as the Queryable the stores take. */
export function queryableOf(client: pg.Pool | pg.ClientBase): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const res = await client.query(sql, params as unknown[] | undefined);
      return { rows: res.rows as T[], rowCount: res.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  };
}

export function openPostgres(url: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000 });
  // A connection lost while idle in the pool, or while checked out between two queries of a
  // transaction, is reported as an 'error' event; unhandled it would take the process down. The
  // query in progress (if any) fails on its own, and the pool replaces the connection.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const base = queryableOf(pool);
  return {
    kind: 'postgres',
    ...base,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(queryableOf(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async ping(): Promise<boolean> {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };
}
