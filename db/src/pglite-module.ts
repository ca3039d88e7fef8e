import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * A compiled WebAssembly module, opaque here. The project compiles against ES2023 and Node's
 * types, neither of which declares the `WebAssembly` namespace; PGlite takes the module as is.
 */
export type CompiledWasm = object;
interface WasmApi {
  compile(bytes: Uint8Array): Promise<CompiledWasm>;
  Module: abstract new (...args: never[]) => CompiledWasm;
}
export const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: Promise<CompiledWasm> | undefined;

/**
 * PGlite's WebAssembly (9 MB), compiled once per process and kept. V8 compiles a module's
 * functions as they are first called and optimises the hot ones later; a PGlite that compiles its
 * own copy pays that again each time it opens, and on its own thread (`PGLITE_THREAD=on`) it
 * cannot reuse an earlier thread's. Handed this module, every PGlite of the process shares the
 * code already compiled: measured on a 2-vCPU machine (2026-12-02), starting the system on a
 * PGlite data folder took 1.3–1.6 s of CPU with a fresh compile and 0.7–0.9 s with the kept one.
 */
export function pgliteWasmModule(): Promise<CompiledWasm> {
  compiled ??= (async () => {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    return wasmApi.compile(await readFile(join(dirname(entry), 'pglite.wasm')));
  })();
  return compiled;
}
