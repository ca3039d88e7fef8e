import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import { createPglite, type PGliteTx, pgliteQueryOptions } from './pglite.js';
import {
  type FromPgliteThread,
  pgliteThreadDataSchema,
  type ToPgliteThread,
  threadErrorOf,
  toPgliteThreadSchema,
} from './pglite-thread-messages.js';

/**
 * The embedded database on a thread of its own (started by pglite-thread.ts). PGlite's engine and
 * its protocol layer run synchronously for the whole of each statement; on the main thread they
 * held up every HTTP answer, `/health` included, for as long as a batch took to store.
 */
const port = parentPort;
if (!port) throw new Error('pglite-thread-worker.js runs as a worker thread (db/src/pglite-thread.ts starts it)');
const data = pgliteThreadDataSchema.parse(workerData);
const post = (message: FromPgliteThread) => port.postMessage(message);

/** A transaction in progress: PGlite's handle, and how to end it once the main thread says so. */
interface OpenTransaction {
  tx: PGliteTx;
  end(commit: boolean, replyId: number): void;
}
const transactions = new Map<number, OpenTransaction>();
let nextTxId = 1;
/** Thrown inside PGlite's transaction callback to make it roll back; not an error to report. */
const ROLLBACK = Symbol('rollback');

let db: PGlite;
try {
  db = await createPglite(data.dir, data.wasmModule);
} catch (err) {
  post({ type: 'failed', error: threadErrorOf(err) });
  port.close();
  throw err;
}
post({ type: 'ready' });

function target(txId: number | undefined): PGliteTx {
  if (txId === undefined) return db;
  const open = transactions.get(txId);
  if (!open) throw new Error(`no open transaction ${txId}`);
  return open.tx;
}

function begin(id: number): void {
  const txId = nextTxId++;
  let replyTo = id;
  void db
    .transaction(async (tx) => {
      const commit = await new Promise<boolean>((resolve) => {
        transactions.set(txId, {
          tx,
          end(commit, replyId) {
            replyTo = replyId;
            resolve(commit);
          },
        });
        post({ type: 'done', id, txId });
      });
      if (!commit) throw ROLLBACK;
    })
    .then(
      () => post({ type: 'done', id: replyTo }),
      (err: unknown) =>
        post(
          err === ROLLBACK ? { type: 'done', id: replyTo } : { type: 'error', id: replyTo, error: threadErrorOf(err) },
        ),
    )
    .finally(() => transactions.delete(txId));
}

async function handle(message: ToPgliteThread): Promise<void> {
  switch (message.type) {
    case 'query': {
      const res = await target(message.txId).query(message.sql, message.params, pgliteQueryOptions);
      post({ type: 'done', id: message.id, rows: res.rows, rowCount: res.affectedRows ?? res.rows.length });
      return;
    }
    case 'exec':
      await target(message.txId).exec(message.sql);
      post({ type: 'done', id: message.id });
      return;
    case 'begin':
      begin(message.id);
      return;
    case 'end': {
      const open = transactions.get(message.txId);
      if (!open) throw new Error(`no open transaction ${message.txId}`);
      open.end(message.commit, message.id);
      return;
    }
    case 'close':
      await db.close();
      post({ type: 'done', id: message.id });
      port?.close();
      return;
  }
}

port.on('message', (raw: unknown) => {
  const message = toPgliteThreadSchema.safeParse(raw);
  if (!message.success) {
    const id = (raw as { id?: unknown } | null)?.id;
    const error = threadErrorOf(new Error(`unexpected message to the PGlite thread: ${message.error.message}`));
    if (typeof id === 'number') post({ type: 'error', id, error });
    return;
  }
  handle(message.data).catch((err: unknown) => post({ type: 'error', id: message.data.id, error: threadErrorOf(err) }));
});
