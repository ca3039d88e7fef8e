import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sideBySideServiceEnv } from '@vigia/core';

/** The built entry points: process tests run what ships (`npm test` builds first). */
export const ENTRY = {
  all: fileURLToPath(new URL('../dist/main.js', import.meta.url)),
  api: fileURLToPath(new URL('../dist/api-main.js', import.meta.url)),
  ingest: fileURLToPath(new URL('../../ingest/dist/main.js', import.meta.url)),
};

export interface ChildSystem {
  child: ChildProcess;
  url: string;
  logs: string[];
  exited: Promise<number | null>;
}

/** Starts a built entry point on a free port and resolves once it logs that it listens. */
export async function spawnSystem(entry: string, env: Record<string, string>): Promise<ChildSystem> {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [entry], {
    env: sideBySideServiceEnv({
      // As in startTestSystem: on a starved CI machine the event-loop delay is the machine's, and a
      // shed 503 right after a large import is not what these tests check (http-hygiene tests shedding).
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${logs.join('\n')}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        logs.push(line);
        try {
          const entryLog = JSON.parse(line) as { url?: string; msg?: string };
          if (entryLog.url && (entryLog.msg === 'vigia is running' || entryLog.msg === 'ingest service running')) {
            clearTimeout(timer);
            resolve(entryLog.url);
          }
        } catch {
          // not a log line
        }
        nl = buffer.indexOf('\n');
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${logs.join('\n')}`));
    });
  });
  return { child, url, logs, exited };
}
