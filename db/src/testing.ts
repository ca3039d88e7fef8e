import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger } from '@vigia/core';
import pg from 'pg';
import type { Database, Queryable } from './database.js';
import { MIGRATIONS_DIR, migrate, readMigrations } from './migrate.js';
import { openPglite } from './pglite.js';

const execFileAsync = promisify(execFile);

/**
 * Test support: a fresh database on the local PostgreSQL server for each test file, so test
 * files can run in parallel. The server is the one this machine kind runs on 127.0.0.1:5432
 * (trust auth); TEST_PG_URL points elsewhere.
 */
export const TEST_PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** `adminUrl`: a server's maintenance database to create it from (the soak takes its own setting). */
export async function createScratchDatabase(
  prefix = 'vigia_test',
  adminUrl = TEST_PG_ADMIN_URL,
): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Puts a migrated PGlite database in `dataDir/pgdata` (where the system opens it), copied from a
 * template made once per machine and migration set. A fresh PGlite spends about 6 s in initdb
 * before its 0.5 s of migrations; a copy opens in under a second. Dozens of test files start a
 * PGlite system, so on a two-core CI machine this is minutes. The template is made by the same
 * `migrate` the system runs (db/test/migrations.test.ts still applies them to an empty PGlite),
 * and the system's own `migrate` on the copy checks every checksum as usual.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const template = await pgliteTemplate();
  const target = join(dataDir, 'pgdata');
  // The system's `cp` first: the template is 1 171 files, and Node's `fs.cp` walks them in
  // JavaScript, several promises per file. Measured on a 2-vCPU machine (2026-12-02): 1.4–1.7 s
  // of the test process's CPU per copy, against about 0.6 s for `cp -R` in its own process.
  try {
    await execFileAsync('cp', ['-R', template, target]);
  } catch {
    await rm(target, { recursive: true, force: true });
    await cp(template, target, { recursive: true });
  }
}

let templatePromise: Promise<string> | undefined;

function pgliteTemplate(): Promise<string> {
  templatePromise ??= makePgliteTemplate();
  return templatePromise;
}

async function makePgliteTemplate(): Promise<string> {
  const migrations = await readMigrations(MIGRATIONS_DIR);
  const hash = createHash('sha256');
  hash.update(await pgliteVersion());
  for (const m of migrations) hash.update(`${m.version}:${m.checksum}\n`);
  const dir = join(tmpdir(), `vigia-pglite-template-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
  // Built beside the final name and renamed into place: several test workers may race to make it,
  // and a rename either wins whole or finds the template already there.
  const building = await mkdtemp(`${dir}.building-`);
  const db = await openPglite(join(building, 'pgdata'));
  try {
    await migrate(db, createLogger('pglite-template', 'silent'));
  } finally {
    await db.close();
  }
  try {
    await rename(join(building, 'pgdata'), dir);
  } catch (err) {
    if (!existsSync(join(dir, 'PG_VERSION'))) throw err;
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

/** The installed PGlite's version: a data directory is only sure to open in the version that made it. */
async function pgliteVersion(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
  return String(pkg.version);
}

/**
 * Opens a transaction on `db`, runs `inside` in it (a `LOCK TABLE`, an insert) and holds it open
 * until `release()`: what another statement must wait for. Resolves once `inside` has run; `done`
 * settles when the transaction has ended.
 */
export async function holdTransaction(
  db: Database,
  inside: (tx: Queryable) => Promise<unknown> = async () => {},
): Promise<{ release(): void; done: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held!: () => void;
  const isHeld = new Promise<void>((resolve) => {
    held = resolve;
  });
  const done = db.transaction(async (tx) => {
    await inside(tx);
    held();
    await released;
  });
  // A failing `inside` ends the transaction before it is held: report that rather than wait forever.
  await Promise.race([isHeld, done]);
  return { release, done };
}
