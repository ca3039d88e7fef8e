import { spawn } from 'node:child_process';

/**
 * Runs a built script of this package as its npm script does and collects everything it prints.
 * Only `env` (and PATH) reach it: the developer's own ADMIN_TOKEN, LOAD_* or SOAK_* must not leak in.
 */
export function runScript(path: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [path], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}
