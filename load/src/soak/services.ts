/**
 * The soak's system: the built service entries (what `npm run start:ingest`, `start:api` and
 * `start:rules` run) as child processes on free ports, each waited for until it logs that it is
 * running. Warnings and errors of their logs are printed, tagged with the process, so a soak
 * that measures a failing system says so; the rest is drained so a full pipe never stalls one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sideBySideServiceEnv } from '@vigia/core';
import { z } from 'zod';

const START_TIMEOUT_MS = 90_000;

export type ServiceKind = 'ingest' | 'api' | 'rules';

const ENTRIES: Record<ServiceKind, string> = {
  ingest: fileURLToPath(new URL('../../../ingest/dist/main.js', import.meta.url)),
  api: fileURLToPath(new URL('../../../api/dist/api-main.js', import.meta.url)),
  rules: fileURLToPath(new URL('../../../ingest/dist/rules/partitions/worker-main.js', import.meta.url)),
};

/** The line each entry logs once it serves (rule workers have no URL). */
const READY: Record<ServiceKind, string> = {
  ingest: 'ingest service running',
  api: 'vigia is running',
  rules: 'rule worker running',
};

const logLine = z.looseObject({ level: z.number().optional(), msg: z.string().optional(), url: z.string().optional() });

export interface Service {
  name: string;
  kind: ServiceKind;
  child: ChildProcess;
  /** Its HTTP address; empty for a rule worker. */
  url: string;
}

export async function startService(
  kind: ServiceKind,
  name: string,
  env: Record<string, string>,
  onWarning: (name: string, line: string) => void,
): Promise<Service> {
  const child = spawn(process.execPath, [ENTRIES[kind]], {
    env: sideBySideServiceEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const early: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    if (early.length < 50) early.push(chunk.toString());
    onWarning(name, chunk.toString().trim());
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: no start within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was running:\n${early.join('\n')}`));
    });
    if (!child.stdout) throw new Error('no stdout');
    let ready = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      let entry: z.infer<typeof logLine>;
      try {
        const parsed = logLine.safeParse(JSON.parse(line));
        if (!parsed.success) return;
        entry = parsed.data;
      } catch {
        return;
      }
      if (!ready && entry.msg === READY[kind]) {
        ready = true;
        clearTimeout(timer);
        resolve(entry.url ?? '');
      } else if (!ready && early.length < 50) early.push(line);
      if ((entry.level ?? 0) >= 40) onWarning(name, line.slice(0, 500));
    });
  });
  child.removeAllListeners('exit');
  return { name, kind, child, url };
}

/** Stops the services (SIGTERM, as an orchestrator does) and waits for every one to exit. */
export async function stopServices(services: readonly Service[]): Promise<void> {
  await Promise.all(
    services.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }),
  );
}

/** Resident memory of a process in MB (Linux /proc), or NaN when it is gone. */
export function residentMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds (user + system) a process has used so far (Linux /proc), or NaN when it is gone. */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name (which may hold spaces): utime and stime are the 12th and 13th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
