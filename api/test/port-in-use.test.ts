import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ephemeralPorts } from '@vigia/core';
import { createScratchDatabase, type ScratchDatabase } from '@vigia/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY } from './processes.js';

/**
 * Issue 8 ("Also"): a port already taken ends the process with one line naming the variable to
 * change and a non-zero exit code, not a stack trace. Runs the built entry points.
 */
describe('a taken port ends start-up with one clear line', () => {
  let blocker: Server;
  let taken: number;
  let scratch: ScratchDatabase;
  let dataDir: string;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    taken = typeof address === 'object' && address ? address.port : 0;
    scratch = await createScratchDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'vigia-port-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker?.close(resolve));
    await scratch?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  function run(entry: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npx tsc -b\` first`);
    const child = spawn(process.execPath, [entry], {
      env: {
        PATH: process.env.PATH ?? '',
        ...ephemeralPorts(),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: scratch.url,
        ADMIN_TOKEN: 'test-admin-token-0123456789',
        DEMO: 'off',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    return new Promise((resolve) => {
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  const cases: [string, string, string][] = [
    ['the whole system', 'PORT', ENTRY.all],
    ['the whole system', 'OSMAND_PORT', ENTRY.all],
    ['the whole system', 'TELTONIKA_PORT', ENTRY.all],
    ['the API service', 'PORT', ENTRY.api],
    ['the ingest service', 'PORT', ENTRY.ingest],
  ];

  it.each(cases)('%s with %s taken', async (_name, variable, entry) => {
    const { code, output } = await run(entry, { [variable]: String(taken) });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    const naming = lines.filter((l) => new RegExp(`\\b${variable}\\b`).test(l));
    expect(naming, output).toHaveLength(1);
    expect(naming[0]).toContain('EADDRINUSE');
    expect(naming[0]).toContain(String(taken));
    expect(output, 'no stack trace').not.toMatch(/^\s+at /m);
  });
});
