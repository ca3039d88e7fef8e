import { z } from 'zod';
import { type CompiledWasm, wasmApi } from './pglite-module.js';

/**
 * Messages between the main thread and the PGlite thread (pglite-thread.ts, pglite-thread-worker.ts).
 * Both sides check what they receive: the envelope, not the rows, which are PGlite's own answer.
 */
export const toPgliteThreadSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('query'),
    id: z.number().int(),
    txId: z.number().int().optional(),
    sql: z.string(),
    params: z.array(z.unknown()).optional(),
  }),
  z.object({ type: z.literal('exec'), id: z.number().int(), txId: z.number().int().optional(), sql: z.string() }),
  /** Opens a transaction; the answer carries its `txId`, which the statements inside then name. */
  z.object({ type: z.literal('begin'), id: z.number().int() }),
  /** Commits or rolls back; answered once PGlite has done so. */
  z.object({ type: z.literal('end'), id: z.number().int(), txId: z.number().int(), commit: z.boolean() }),
  z.object({ type: z.literal('close'), id: z.number().int() }),
]);
export type ToPgliteThread = z.infer<typeof toPgliteThreadSchema>;

/** A PostgreSQL error as PGlite reports it: the fields callers branch on (`code`, `constraint`, ...). */
export const threadErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});
export type ThreadError = z.infer<typeof threadErrorSchema>;

export const fromPgliteThreadSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('failed'), error: threadErrorSchema }),
  z.object({
    type: z.literal('done'),
    id: z.number().int(),
    rows: z.array(z.unknown()).optional(),
    rowCount: z.number().int().optional(),
    txId: z.number().int().optional(),
  }),
  z.object({ type: z.literal('error'), id: z.number().int(), error: threadErrorSchema }),
]);
export type FromPgliteThread = z.infer<typeof fromPgliteThreadSchema>;

export const pgliteThreadDataSchema = z.object({
  dir: z.string().optional(),
  /** The starting thread's compiled PGlite (`pgliteWasmModule`): the thread shares its code instead of compiling its own. */
  wasmModule: z.custom<CompiledWasm>((v) => v instanceof wasmApi.Module, 'a compiled WebAssembly module'),
});
export type PgliteThreadData = z.infer<typeof pgliteThreadDataSchema>;

/** An error's own primitive fields (PGlite's `code`, `detail`, `constraint`, ...), which cloning would drop. */
export function threadErrorOf(err: unknown): ThreadError {
  const fields: Record<string, string | number | boolean> = {};
  if (err && typeof err === 'object') {
    for (const [k, v] of Object.entries(err)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
    }
  }
  return {
    name: err instanceof Error ? err.name : 'Error',
    message: err instanceof Error ? err.message : String(err),
    fields,
  };
}
