import { isDatabaseUnavailable } from '@vigia/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/database.js';
import { openPgliteThread } from '../src/pglite-thread.js';
import { holdTransaction } from '../src/testing.js';

/**
 * PGlite on its own thread (db/src/pglite-thread.ts) must be the same `Database` the services
 * had with PGlite in process: values and errors cross the thread intact, and a transaction keeps
 * PGlite's semantics (committed or rolled back as a whole, other statements waiting for it).
 */
describe('PGlite on a worker thread', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPgliteThread(undefined);
    await db.exec(`CREATE TABLE t (id int PRIMARY KEY, at timestamptz, day date, blob bytea, doc jsonb, tags text[]);`);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('sends parameters and returns rows with PostgreSQL types, as in process', async () => {
    const at = new Date('2026-03-01T12:34:56.789Z');
    const inserted = await db.query('INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)', [
      1,
      at,
      '2026-03-01',
      new Uint8Array([0, 1, 255]),
      JSON.stringify({ a: [1, 'x'] }),
      ['a', 'b'],
    ]);
    expect(inserted.rowCount).toBe(1);
    const { rows } = await db.query<{ at: Date; day: string; blob: Uint8Array; doc: unknown; tags: string[] }>(
      'SELECT at, day, blob, doc, tags FROM t WHERE id = $1',
      [1],
    );
    expect(rows[0]?.at).toBeInstanceOf(Date);
    expect(rows[0]?.at.toISOString()).toBe(at.toISOString());
    expect(rows[0]?.day).toBe('2026-03-01');
    expect([...(rows[0]?.blob ?? [])]).toEqual([0, 1, 255]);
    expect(rows[0]?.doc).toEqual({ a: [1, 'x'] });
    expect(rows[0]?.tags).toEqual(['a', 'b']);
  });

  it("reports PostgreSQL's errors with their code and constraint", async () => {
    const err = await db.query('INSERT INTO t (id) VALUES (1)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ code: '23505', constraint: 't_pkey' });
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('commits a transaction as a whole and rolls it back as a whole when its callback throws', async () => {
    const value = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (10)');
      await tx.query('INSERT INTO t (id) VALUES (11)');
      return 'kept';
    });
    expect(value).toBe('kept');
    const failure = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (12)');
        throw new Error('changed my mind');
      })
      .catch((e: unknown) => e);
    expect((failure as Error).message).toBe('changed my mind');
    // A statement failing inside rolls back the statements before it too.
    const conflict = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (13)');
        await tx.query('INSERT INTO t (id) VALUES (10)');
      })
      .catch((e: unknown) => e);
    expect(conflict).toMatchObject({ code: '23505' });
    const { rows } = await db.query<{ id: number }>('SELECT id FROM t WHERE id >= 10 ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([10, 11]);
  });

  it('makes a statement outside a transaction wait for it, and see its outcome', async () => {
    const inside = await holdTransaction(db, (tx) => tx.query('INSERT INTO t (id) VALUES (20)'));
    let outsideDone = false;
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t WHERE id = 20').then((r) => {
      outsideDone = true;
      return r.rows[0]?.n;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(outsideDone).toBe(false);
    inside.release();
    await inside.done;
    expect(await outside).toBe(1);
  });

  it('answers every statement after close as an unreachable database', async () => {
    const other = await openPgliteThread(undefined);
    expect(await other.ping()).toBe(true);
    await other.close();
    const err = await other.query('SELECT 1').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(await other.ping()).toBe(false);
  });
});
