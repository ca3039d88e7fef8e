import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Database, Queryable, QueryResult } from './database.js';
import { pgliteWasmModule } from './pglite-module.js';
import {
  fromPgliteThreadSchema,
  type PgliteThreadData,
  type ThreadError,
  type ToPgliteThread,
} from './pglite-thread-messages.js';

/**
 * The worker's compiled script. From dist, this file's sibling; from the sources (the tests run
 * them through Vitest), the compiled one in ../dist: a worker thread runs plain JavaScript.
 */
function workerFile(): string {
  if (import.meta.url.endsWith('.js')) return fileURLToPath(new URL('./pglite-thread-worker.js', import.meta.url));
  return fileURLToPath(new URL('../dist/pglite-thread-worker.js', import.meta.url));
}

/** PGlite's error as thrown on its thread: the same message and fields (`code`, `constraint`, ...). */
function errorFrom(e: ThreadError): Error {
  const err = Object.assign(new Error(e.message), e.fields);
  err.name = e.name;
  return err;
}

/** A message to the thread before `send` numbers it. */
type Request = ToPgliteThread extends infer M ? (M extends { id: number } ? Omit<M, 'id'> : never) : never;

interface Waiter {
  resolve(value: { rows?: unknown[]; rowCount?: number; txId?: number }): void;
  reject(err: Error): void;
}

/** Why statements fail once the thread is gone: `isDatabaseUnavailable` reads it as an outage (57P01). */
function threadGone(reason: string): Error {
  return Object.assign(new Error(`the PGlite thread stopped (${reason}); the database is not queryable`), {
    code: '57P01',
  });
}

/**
 * PGlite in `dir` (created if missing; `undefined` keeps it in memory) on a worker thread
 * (`PGLITE_THREAD=on`, the embedded default): the same `Database` as `openPglite`, each statement
 * a message to the thread and its rows a message back. Transactions keep PGlite's own semantics:
 * the thread holds PGlite's transaction open while the main thread runs the callback, whose
 * statements name it; other statements wait for it, as they would in one process.
 */
export async function openPgliteThread(dir: string | undefined): Promise<Database> {
  if (dir) await mkdir(dir, { recursive: true });
  const worker = new Worker(workerFile(), {
    workerData: { dir, wasmModule: await pgliteWasmModule() } satisfies PgliteThreadData,
  });
  const waiters = new Map<number, Waiter>();
  let nextId = 1;
  let gone: Error | undefined;

  const ready = new Promise<void>((resolve, reject) => {
    const fail = (reason: string, err?: Error) => {
      gone ??= threadGone(reason);
      // A thread that broke the protocol is not trusted with another statement (a no-op once it has exited).
      void worker.terminate();
      reject(err ?? gone);
      for (const w of waiters.values()) w.reject(gone);
      waiters.clear();
    };
    worker.on('message', (raw: unknown) => {
      const message = fromPgliteThreadSchema.safeParse(raw);
      if (!message.success) return fail(`unexpected message: ${message.error.message}`);
      const m = message.data;
      if (m.type === 'ready') return resolve();
      if (m.type === 'failed') return fail('it could not open the database', errorFrom(m.error));
      const waiter = waiters.get(m.id);
      if (!waiter) return;
      waiters.delete(m.id);
      if (m.type === 'error') waiter.reject(errorFrom(m.error));
      else waiter.resolve(m);
    });
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', (code) => fail(`exit code ${code}`));
  });
  await ready;

  function send(message: Request) {
    return new Promise<{ rows?: unknown[]; rowCount?: number; txId?: number }>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextId++;
      waiters.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  }

  function queryable(txId?: number): Queryable {
    return {
      async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
        const res = await send({ type: 'query', sql, txId, params: params ? [...params] : undefined });
        return { rows: (res.rows ?? []) as T[], rowCount: res.rowCount ?? 0 };
      },
      async exec(sql: string): Promise<void> {
        await send({ type: 'exec', sql, txId });
      },
    };
  }

  return {
    kind: 'pglite',
    ...queryable(),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const { txId } = await send({ type: 'begin' });
      if (txId === undefined) throw new Error('the PGlite thread opened no transaction');
      let result: T;
      try {
        result = await fn(queryable(txId));
      } catch (err) {
        await send({ type: 'end', txId, commit: false }).catch(() => {});
        throw err;
      }
      await send({ type: 'end', txId, commit: true });
      return result;
    },
    async ping(): Promise<boolean> {
      try {
        await send({ type: 'query', sql: 'SELECT 1' });
        return true;
      } catch {
        return false;
      }
    },
    async close(): Promise<void> {
      if (gone) return;
      await send({ type: 'close' });
      await worker.terminate();
    },
  };
}
