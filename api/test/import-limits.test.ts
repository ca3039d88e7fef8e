import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedPgliteDataDir } from '@vigia/db/testing';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildSystem, ENTRY, spawnSystem } from './processes.js';
import { api } from './support.js';

/**
 * Finding 1 of the security review: a 744 KB zip holding a 300 MB stops.txt ran the server out
 * of heap. The server runs in a child process (the built entry point) so that its memory is
 * measured alone, from /proc: the test process builds the zips and polls `/health`.
 */
const ADMIN_TOKEN = 'import-limits-test-admin-token';
const SHARED = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
const MiB = 1024 * 1024;

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/**
 * A GTFS zip whose stops.txt inflates to `csvBytes` of one repeated row, written by fflate's
 * streaming Zip so the test never holds the inflated text (about 900 KB for 300 MB).
 */
function zipBomb(csvBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, data, final) => {
      if (err) return reject(err);
      parts.push(data);
      if (final) resolve(Buffer.concat(parts));
    });
    const entry = new ZipDeflate('gtfs/stops.txt', { level: 6 });
    zip.add(entry);
    const enc = new TextEncoder();
    entry.push(enc.encode('stop_id,stop_name,stop_desc,stop_lat,stop_lon,location_type\n'));
    const row = `1,Parada,${'x'.repeat(1000)},-23.55,-46.63,0\n`;
    const chunk = enc.encode(row.repeat(Math.floor(MiB / row.length)));
    for (let sent = 0; sent < csvBytes; sent += chunk.length) entry.push(chunk);
    entry.push(new Uint8Array(0), true);
    zip.end();
  });
}

/** The resident and peak resident memory of a process, in bytes (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') * 1024, peak: kib('VmHWM') * 1024 };
}

const gtfsStops = [
  'stop_id,stop_name,stop_desc,stop_lat,stop_lon,location_type',
  '18848,Clínicas,,-23.554022,-46.671108,0',
  '18849,Vila Madalena,,-23.546498,-46.690823,',
].join('\n');

describe('import limits (finding 1)', () => {
  let sys: ChildSystem;
  let dataDir: string;
  let operatorToken: string;
  const client = () => ({ url: sys.url, adminToken: ADMIN_TOKEN });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vigia-import-limits-'));
    await seedPgliteDataDir(dataDir);
    sys = await spawnSystem(ENTRY.all, { DATA_DIR: dataDir, ADMIN_TOKEN, DEMO: 'off' });
    const op = await api(client(), 'POST', '/v1/operators', { id: 'op-imports', name: 'Cooperativa', pack: 'df-taxi' });
    expect(op.status).toBe(201);
    const user = await api<{ token: string }>(client(), 'POST', '/v1/users', {
      name: 'Operadora',
      role: 'operator',
      operatorIds: ['op-imports'],
    });
    expect(user.status).toBe(201);
    operatorToken = user.body.token;
  });
  afterAll(async () => {
    if (sys) {
      sys.child.kill('SIGTERM');
      await sys.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  const upload = (path: string, body: string | Uint8Array, type: string, token: string | null = ADMIN_TOKEN) =>
    fetch(`${sys.url}${path}`, {
      method: 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': type },
      body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
    });

  it('refuses the zip bomb 8 times in parallel with 413, answering /health throughout, RSS growth < 256 MB', async () => {
    const bomb = await zipBomb(300 * MiB);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const pid = sys.child.pid as number;
    const before = memoryOf(pid).rss;
    // Resets VmHWM (the peak) to the current RSS, so the peak read after is the attack's.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');

    let done = false;
    const healthMs: number[] = [];
    let healthFailures = 0;
    let peakPolled = before;
    const poll = (async () => {
      while (!done) {
        const t = performance.now();
        const res = await fetch(`${sys.url}/health`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
        healthMs.push(performance.now() - t);
        if (res?.status !== 200) healthFailures++;
        peakPolled = Math.max(peakPolled, memoryOf(pid).rss);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const t0 = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await upload('/v1/stops/import', bomb, 'application/zip');
        return { status: res.status, body: (await res.json()) as ErrorBody };
      }),
    );
    const elapsed = performance.now() - t0;
    done = true;
    await poll;
    const peak = Math.max(memoryOf(pid).peak, peakPolled);
    console.log(
      `zip bomb (${bomb.length} B → 300 MiB) ×8: answered in ${Math.round(elapsed)} ms; RSS ${before >> 20} MiB before, ` +
        `peak ${peak >> 20} MiB (+${(peak - before) >> 20} MiB); /health ${healthMs.length} polls, slowest ${Math.round(Math.max(...healthMs))} ms`,
    );
    for (const a of answers) {
      expect(a.status).toBe(413);
      expect(a.body.error.code).toBe('IMPORT_TOO_LARGE');
      expect(a.body.error.message).toContain('IMPORT_MAX_CSV_BYTES');
    }
    // Each refusal is logged with its code (a structured line, not a stack trace); the child's
    // last lines may still be in the pipe.
    const refusalsLogged = () => sys.logs.filter((l) => l.includes('"code":"IMPORT_TOO_LARGE"')).length;
    for (let i = 0; i < 40 && refusalsLogged() < 8; i++) await new Promise((r) => setTimeout(r, 50));
    expect(refusalsLogged()).toBeGreaterThanOrEqual(8);
    expect(healthFailures).toBe(0);
    expect(healthMs.length).toBeGreaterThan(0);
    expect(peak - before).toBeLessThan(256 * MiB);
    // Still serving.
    expect((await api(client(), 'GET', '/v1/stops?limit=1')).status).toBe(200);
    // Eight 300 MiB inflations refused in parallel take seconds alone, a minute on a starved CI machine.
  }, 180_000);

  /** Sends the headers and a first slice of a large body, then stalls: the answer must not wait for the rest. */
  const stalledUpload = (token: string | null, length = 100 * MiB) =>
    new Promise<{ status: number; body: ErrorBody }>((resolve, reject) => {
      const req = request(`${sys.url}/v1/stops/import`, {
        method: 'POST',
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'content-type': 'application/zip',
          'content-length': String(length),
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as ErrorBody });
        });
      });
      req.on('error', reject);
      // The rest of the body never comes: an answer at all proves it was not waited for.
      req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s: the body was waited for')));
      req.write(Buffer.alloc(64 * 1024, 0x50));
    });

  it('refuses an operator token with 403 without reading the body', async () => {
    const res = await stalledUpload(operatorToken);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses a request without a token with 401 without reading the body', async () => {
    const res = await stalledUpload(null);
    expect(res.status).toBe(401);
  });

  it('refuses a body announced larger than IMPORT_MAX_BODY_BYTES before reading it', async () => {
    const res = await stalledUpload(ADMIN_TOKEN, 200 * MiB);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'IMPORT_TOO_LARGE', details: { limit: 'IMPORT_MAX_BODY_BYTES' } });
  });

  it('refuses a zip with more entries than IMPORT_MAX_ZIP_ENTRIES', async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 1001; i++) files[`extra/${i}.txt`] = new Uint8Array([65]);
    files['stops.txt'] = new TextEncoder().encode(gtfsStops);
    const res = await upload('/v1/stops/import', zipSync(files), 'application/zip');
    const body = (await res.json()) as ErrorBody;
    expect(res.status).toBe(413);
    expect(body.error).toMatchObject({
      code: 'IMPORT_TOO_LARGE',
      details: { limit: 'IMPORT_MAX_ZIP_ENTRIES', value: 1000 },
    });
  });

  it('refuses more rows than IMPORT_MAX_ROWS, in a CSV and in a GeoJSON import', async () => {
    const header = 'stop_id,stop_name,stop_lat,stop_lon\n';
    const rows = Array.from({ length: 50_001 }, (_, i) => `s${i},S,-23.5,-46.6\n`).join('');
    const csv = await upload('/v1/stops/import', header + rows, 'text/csv');
    const csvBody = (await csv.json()) as ErrorBody;
    expect(csv.status).toBe(413);
    expect(csvBody.error).toMatchObject({ code: 'IMPORT_TOO_LARGE', details: { limit: 'IMPORT_MAX_ROWS' } });
    expect(csvBody.error.message).toContain('IMPORT_MAX_ROWS');
    // Nothing of a refused import is kept.
    expect((await api<{ status: number }>(client(), 'GET', '/v1/stops/s0')).status).toBe(404);

    const feature = { type: 'Feature', geometry: { type: 'Point', coordinates: [-47.88, -15.79] }, properties: {} };
    const geojson = { type: 'FeatureCollection', features: Array.from({ length: 50_001 }, () => feature) };
    const stands = await api<ErrorBody>(client(), 'POST', '/v1/stands/import?pack=df-taxi', geojson);
    expect(stands.status).toBe(413);
    expect(stands.body.error).toMatchObject({ code: 'IMPORT_TOO_LARGE', details: { limit: 'IMPORT_MAX_ROWS' } });
  });

  it('refuses a vehicle CSV larger than its limits, and a huge JSON batch before validating it', async () => {
    const header = 'plate,pack,serviceType,capacity,operatorId\n';
    const rows = Array.from({ length: 50_001 }, (_, i) => `ABC${i},df-taxi,taxi,4,op-imports\n`).join('');
    const csv = await upload('/v1/vehicles/import', header + rows, 'text/csv');
    expect(csv.status).toBe(413);
    expect(((await csv.json()) as ErrorBody).error.code).toBe('IMPORT_TOO_LARGE');
    // One row swallowing the rest of the file (an unclosed quote) is refused as well.
    const unclosed = await upload('/v1/vehicles/import', `${header}"${'x'.repeat(200_000)}`, 'text/csv');
    expect(unclosed.status).toBe(413);

    const t = performance.now();
    const batch = await api<ErrorBody>(
      client(),
      'POST',
      '/v1/stops',
      Array.from({ length: 60_000 }, () => ({})),
    );
    expect(batch.status).toBe(413);
    // Refused on its length before any item is validated: the code says which check answered (a
    // validated body would be a VALIDATION_FAILED listing the items). How soon is printed, not asserted.
    expect(batch.body.error.code).toBe('BATCH_TOO_LARGE');
    console.log(`import limits: a 60,000-item JSON batch refused in ${(performance.now() - t).toFixed(0)} ms`);
  });

  it('answers 400 to a malformed zip: not a zip, cut short, corrupt data', async () => {
    const valid = zipSync({ 'stops.txt': new TextEncoder().encode(gtfsStops.repeat(50)) });
    const corrupt = Uint8Array.from(valid);
    // Inside stops.txt's compressed data (after the 30-byte header and its name).
    for (let i = 45; i < 120; i++) corrupt[i] = 0xff;
    // Cut inside the second entry's local header: the first entry reads well, then nothing more comes.
    const twoEntries = zipSync({
      'agency.txt': new TextEncoder().encode('agency_id\n1\n'),
      'stops.txt': new TextEncoder().encode(gtfsStops),
    });
    const cutInHeader = twoEntries.subarray(0, 30 + 'agency.txt'.length + 14 + 10);
    const notZip = new TextEncoder().encode('stop_id,stop_lat\n1,2');
    for (const body of [notZip, valid.subarray(0, 60), cutInHeader, corrupt]) {
      const res = await upload('/v1/stops/import', body, 'application/zip');
      const answer = (await res.json()) as ErrorBody;
      expect(res.status, JSON.stringify(answer)).toBe(400);
      expect(answer.error.code).toBe('MALFORMED_ZIP');
    }
  });

  it('still imports a normal GTFS zip, stops.txt after the other files', async () => {
    const enc = new TextEncoder();
    const files: Record<string, Uint8Array> = {};
    const real = `${SHARED}/sptrans_gtfs`;
    const hasReal = existsSync(`${real}/stops.txt`);
    for (const name of ['agency.txt', 'routes.txt', 'trips.txt', 'frequencies.txt', 'fare_rules.txt']) {
      files[name] = hasReal && existsSync(`${real}/${name}`) ? readFileSync(`${real}/${name}`) : enc.encode('x\n');
    }
    files['stops.txt'] = hasReal ? readFileSync(`${real}/stops.txt`) : enc.encode(gtfsStops);
    const zip = zipSync(files);
    const t = performance.now();
    const res = await upload('/v1/stops/import?source=sptrans', zip, 'application/zip');
    const body = (await res.json()) as { imported: number; skipped: unknown[] };
    console.log(
      `GTFS zip of ${zip.length} B (${hasReal ? 'SPTrans' : 'synthetic'}): ${body.imported} stops imported in ${Math.round(performance.now() - t)} ms`,
    );
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.imported).toBeGreaterThanOrEqual(hasReal ? 20_000 : 2);
    const stop = await api<{ source: string }>(client(), 'GET', '/v1/stops/18848');
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(stop.body.source).toBe('sptrans');
  });
});
