/**
 * With no LOAD_API_URL, `npm run load` measures a system of its own: the built all-in-one entry
 * (`api/dist/main.js`, what `npm start` runs) on embedded PGlite in a scratch data folder, the
 * simulated fleet off, on free ports. Its own process, so the load generator's CPU is not counted
 * against it (they still share the machine's cores).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ephemeralPorts } from '@vigia/core';
import { z } from 'zod';
import type { Target } from './http.ts';

const ENTRY = fileURLToPath(new URL('../../../api/dist/main.js', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const runningLine = z.object({ msg: z.literal('vigia is running'), url: z.url() });

export interface OwnSystem extends Target {
  stop(): Promise<void>;
}

export async function startOwnSystem(): Promise<OwnSystem> {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run \`npm run build\` first`);
  const dataDir = await mkdtemp(join(tmpdir(), 'vigia-load-'));
  const adminToken = `vgload_${randomBytes(24).toString('base64url')}`;
  const child = spawn(process.execPath, [ENTRY], {
    env: {
      PATH: process.env.PATH ?? '',
      ...ephemeralPorts(),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEMO: 'off',
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'info',
      // The load generator shares the machine: the event-loop delay it causes is not the system's
      // own overload, and a shed 503 would be counted against the system.
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await runningUrl(child, logs);
    return { apiUrl: url, ingestUrl: url, adminToken, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The URL the process logs once it listens; its other log lines are drained so a full pipe never stalls it. */
function runningUrl(child: ChildProcess, logs: string[]): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no start within ${START_TIMEOUT_MS / 1000} s:\n${logs.join('\n')}`)),
      START_TIMEOUT_MS,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the system exited with ${code} before listening:\n${logs.join('\n')}`));
    });
    if (!child.stdout) throw new Error('no stdout');
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (logs.length < 200) logs.push(line);
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      const running = runningLine.safeParse(entry);
      if (running.success) {
        clearTimeout(timer);
        resolve(running.data.url);
      }
    });
  });
}
