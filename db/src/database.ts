/**
 * The one interface the services use for SQL, whichever engine is behind it: PGlite in the
 * embedded mode, PostgreSQL or TimescaleDB through `pg` in the services mode. Queries use `$n`
 * parameters; results keep PostgreSQL's types (timestamptz → Date). Counts are cast to int in
 * SQL, since the two drivers return bigint differently.
 */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** Runs a script of several statements, without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database extends Queryable {
  readonly kind: DatabaseKind;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
