import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_COLOUR } from '../src/notices/notice-map.js';
import { MAP_FRAME } from '../src/notices/notice-pdf.js';
import { api, registerVehicle, startTestSystem, type TestSystem } from './support.js';

const run = promisify(execFile);

interface Violation {
  id: string;
  ruleId: string;
  plate: string;
  legalBasis: string[];
  penalty: { amountBrl: number | null; units: number | null; unit: string | null };
}
interface Verification {
  code: string;
  violationId: string;
  plate: string;
  issuedAt: string;
  sha256: string;
  authentic: boolean;
  unchanged: boolean | null;
}

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
/** pdftotext and Intl both use no-break spaces in places; compare words, not spacing. */
const words = (s: string) => s.replace(/\s+/g, ' ');

/**
 * The enforcement notice end to end: a rule fires on real telemetry, the notice is downloaded,
 * rendered by poppler the way a reader's viewer would (text and pixels), and its code verified.
 */
describe('enforcement notice PDF', () => {
  let sys: TestSystem;
  let dir: string;
  let violation: Violation;
  let enforcementToken: string;
  let operatorToken: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vigia-notice-'));
    // Anexo I's fines are configuration; set them so the notice has a BRL amount to print.
    const rules = join(dir, 'rules.json');
    await writeFile(rules, JSON.stringify({ 'df-taxi': { groupUpdfPercent: { A: 50, B: 100, C: 200, D: 400 } } }));
    sys = await startTestSystem('pglite', { RULES_CONFIG_FILE: rules, PUBLIC_URL: 'https://vigia.example.gov.br' });
    expect(
      (await api(sys, 'POST', '/v1/unit-values', { unit: 'UPDF', valueBrl: 98.76, validFrom: '2020-01-01' })).status,
    ).toBe(201);
    const dev = await registerVehicle(sys, { pack: 'df-taxi' });
    // A stand beside the trace: registry context on the map.
    expect(
      (
        await api(sys, 'POST', '/v1/stands', {
          pack: 'df-taxi',
          name: 'Ponto Rodoviária',
          geometry: { type: 'Point', coordinates: [-47.8815, -15.7925] },
          radiusM: 25,
          places: 6,
          kind: 'livre',
        })
      ).status,
    ).toBe(201);
    const user = async (role: string) =>
      (
        await api<{ token: string }>(sys, 'POST', '/v1/users', {
          name: `Notice ${role}`,
          role,
          operatorIds: [dev.operatorId],
        })
      ).body.token;
    enforcementToken = await user('enforcement');
    operatorToken = await user('operator');

    // DF_OVER_CAPACITY (Art. 24): 6 passengers in a 4-seat taxi, moving, for a minute.
    const t0 = Math.ceil(Date.now() / 1000) * 1000 - 600_000;
    const samples = Array.from({ length: 14 }, (_, i) => ({
      deviceId: dev.identifier,
      ts: new Date(t0 + i * 5000).toISOString(),
      lat: -15.7942 + i * 0.0004,
      lon: -47.8822 + (i % 2) * 0.0002,
      speedKmh: 30,
      passengers: 6,
      meter: { state: 'hired', tariff: 1, fareCents: 600 + i * 20, tripId: 'trip-notice' },
    }));
    expect((await api(sys, 'POST', '/v1/telemetry', samples, dev.token)).status).toBe(200);
    const start = Date.now();
    while (!violation && Date.now() - start < 5000) {
      const list = await api<{ items: Violation[] }>(
        sys,
        'GET',
        `/v1/violations?vehicleId=${dev.vehicleId}&ruleId=DF_OVER_CAPACITY`,
      );
      const found = list.body.items[0];
      if (found) violation = found;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(violation, 'DF_OVER_CAPACITY was raised').toBeDefined();
  });
  afterAll(async () => {
    await sys?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const download = (id: string, token: string) =>
    fetch(`${sys.url}/v1/violations/${encodeURIComponent(id)}/notice.pdf`, {
      headers: { authorization: `Bearer ${token}` },
    });

  it('prints the plate, the article and the BRL amount, draws the trace on the map, and verifies by its code', async () => {
    const res = await download(violation.id, enforcementToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    const code = res.headers.get('vigia-notice-code') ?? '';
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    expect(res.headers.get('vigia-notice-sha256')).toBe(sha256);
    const file = join(dir, 'notice.pdf');
    await writeFile(file, pdf);
    if (process.env.NOTICE_KEEP) await writeFile(process.env.NOTICE_KEEP, pdf);

    // What a reader sees: the text…
    const { stdout: info } = await run('pdfinfo', [file]);
    expect(info).toMatch(/Pages:\s+2/);
    const text = words((await run('pdftotext', ['-layout', file, '-'])).stdout);
    expect(violation.penalty.amountBrl).not.toBeNull();
    console.log(
      `notice: ${pdf.length} bytes, penalty ${violation.penalty.units} ${violation.penalty.unit} = ${violation.penalty.amountBrl} BRL`,
    );
    expect(text).toContain(violation.plate);
    expect(text).toContain('Art. 24');
    expect(text).toContain(words(brl.format(violation.penalty.amountBrl ?? 0)));
    expect(text).toContain('AUTO DE INFRAÇÃO');
    expect(text).toContain(code);
    expect(text).toContain(`https://vigia.example.gov.br/v1/notices/${code}`);
    expect(text).toContain('Ponto Rodoviária');

    // …and the map: page 2 at 72 dpi, where a PDF point is a pixel.
    await run('pdftoppm', ['-png', '-r', '72', '-f', '2', '-l', '2', '-singlefile', file, join(dir, 'page2')]);
    const png = PNG.sync.read(await readFile(join(dir, 'page2.png')));
    const tracePixels = traceColouredInFrame(png);
    console.log(`notice map: ${tracePixels} trace-coloured pixels inside the frame`);
    // 14 samples ~ 570 m fitted to a 430-pt frame: a line of several hundred pixels, 2.5 px wide.
    expect(tracePixels).toBeGreaterThan(300);

    // Anyone verifies the code, without a token; the hash tells whether the copy is unchanged.
    const plain = await api<Verification>(sys, 'GET', `/v1/notices/${code}`, undefined, null);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({
      code,
      violationId: violation.id,
      plate: violation.plate,
      issuedAt: expect.any(String),
      sha256,
      authentic: true,
      unchanged: null,
    });
    const same = await api<Verification>(
      sys,
      'GET',
      `/v1/notices/${code.toLowerCase()}?sha256=${sha256}`,
      undefined,
      null,
    );
    expect(same.body).toMatchObject({ authentic: true, unchanged: true });
    const tampered = Buffer.from(pdf);
    const mid = Math.floor(pdf.length / 2);
    tampered.writeUInt8(tampered.readUInt8(mid) ^ 1, mid);
    const otherHash = createHash('sha256').update(tampered).digest('hex');
    const changed = await api<Verification>(sys, 'GET', `/v1/notices/${code}?sha256=${otherHash}`, undefined, null);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ authentic: false, unchanged: false });

    // An altered code: one character changed within the alphabet is unknown; outside it, refused unread.
    const last = code.at(-1) === '0' ? '1' : '0';
    const altered = await api<{ error: { code: string } }>(
      sys,
      'GET',
      `/v1/notices/${code.slice(0, -1)}${last}`,
      undefined,
      null,
    );
    expect(altered.status).toBe(404);
    for (const bad of [`${code.slice(0, -1)}I`, `${code}-XXXX`, 'A'.repeat(90), "1' OR '1'='1", '%00%00']) {
      const r = await api<{ error: { code: string } }>(
        sys,
        'GET',
        `/v1/notices/${encodeURIComponent(bad)}`,
        undefined,
        null,
      );
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe('INVALID_NOTICE_CODE');
    }
    // Longer than any route parameter: Fastify answers 414 before the handler runs.
    expect((await api(sys, 'GET', `/v1/notices/${'A'.repeat(300)}`, undefined, null)).status).toBe(414);
    const badHash = await api<{ error: { code: string } }>(
      sys,
      'GET',
      `/v1/notices/${code}?sha256=xyz`,
      undefined,
      null,
    );
    expect(badHash.status).toBe(400);

    // Every download is its own notice, recorded with its issuer.
    const { rows } = await sys.db.query<{ issued_by: string; content_hash: string }>(
      'SELECT issued_by, content_hash FROM notices WHERE code = $1',
      [code],
    );
    expect(rows).toEqual([{ issued_by: expect.stringMatching(/\S/), content_hash: sha256 }]);
  });

  it('names the zone involved, and draws no trace when the tracker recorded none (near miss)', async () => {
    const zone = await api<{ id: string }>(sys, 'POST', '/v1/zones', {
      pack: 'df-taxi',
      kind: 'airport',
      name: 'Zona Aeroporto JK',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-47.925, -15.875],
            [-47.915, -15.875],
            [-47.915, -15.865],
            [-47.925, -15.865],
            [-47.925, -15.875],
          ],
        ],
      },
    });
    expect(zone.status).toBe(201);
    const id = 'vio-notice-no-trace';
    // A vehicle with no telemetry in the window: the evidence map has nothing to draw in red.
    const { rows } = await sys.db.query<{ vehicle_id: string }>('SELECT vehicle_id FROM violations WHERE id = $1', [
      violation.id,
    ]);
    await sys.db.query(
      `INSERT INTO violations (id, event_key, rule_id, pack, legal_basis, description, description_en, vehicle_id,
         started_at, lat, lon, place, confidence, evidence_from, evidence_to)
       VALUES ($1, $1, 'DF_TEST_RULE', 'df-taxi', ARRAY['Art. 99'], 'teste', 'test', $2, now() - interval '30 days',
         -15.87, -47.92, $3, 'suspected', now() - interval '30 days 1 hour', now() - interval '30 days')`,
      [id, rows[0]?.vehicle_id, JSON.stringify({ id: zone.body.id, kind: 'zone', name: 'Zona Aeroporto JK' })],
    );
    const res = await download(id, sys.adminToken);
    expect(res.status).toBe(200);
    const file = join(dir, 'no-trace.pdf');
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    const text = words((await run('pdftotext', ['-layout', file, '-'])).stdout);
    expect(text).toContain('Zona Aeroporto JK (zona)');
    expect(text).toContain('-15.870000, -47.920000');
    await run('pdftoppm', ['-png', '-r', '72', '-f', '2', '-l', '2', '-singlefile', file, join(dir, 'no-trace')]);
    const png = PNG.sync.read(await readFile(join(dir, 'no-trace.png')));
    expect(traceColouredInFrame(png)).toBe(0);
  });

  it('is refused to an operator (403), and 404 for an unknown violation', async () => {
    const own = await download(violation.id, operatorToken);
    expect(own.status).toBe(403);
    expect(((await own.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    const unknown = await download('vio-does-not-exist', sys.adminToken);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

/** Pixels of the trace colour inside the map frame of a page rendered at 72 dpi (a point is a pixel). */
function traceColouredInFrame(png: PNG): number {
  const [tr, tg, tb] = [1, 3, 5].map((i) => Number.parseInt(TRACE_COLOUR.slice(i, i + 2), 16)) as [
    number,
    number,
    number,
  ];
  let n = 0;
  for (let y = MAP_FRAME.y + 1; y < MAP_FRAME.y + MAP_FRAME.height; y++) {
    for (let x = MAP_FRAME.x + 1; x < MAP_FRAME.x + MAP_FRAME.width; x++) {
      const i = (y * png.width + x) * 4;
      if (
        Math.abs((png.data[i] ?? 0) - tr) < 40 &&
        Math.abs((png.data[i + 1] ?? 0) - tg) < 40 &&
        Math.abs((png.data[i + 2] ?? 0) - tb) < 40
      )
        n++;
    }
  }
  return n;
}
