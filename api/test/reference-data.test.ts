import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from './support.js';

const SHARED = fileURLToPath(new URL('../../../shared/data/', import.meta.url));

interface ErrorBody {
  error: { code: string; details?: unknown };
}

describe('reference data', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('postgres');
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const upload = (path: string, body: string | Uint8Array, type: string) =>
    fetch(`${sys.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sys.adminToken}`, 'content-type': type },
      body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
    });

  const stopsTxt = [
    'stop_id,stop_name,stop_desc,stop_lat,stop_lon,location_type',
    '18848,Clínicas,,-23.554022,-46.671108,0',
    '18849,Vila Madalena,,-23.546498,-46.690823,',
    'STA1,Estação Sé,,-23.5503,-46.6339,1',
  ].join('\n');

  it('imports GTFS stops.txt, keeps boarding points only, and updates on re-import', async () => {
    const res = await upload('/v1/stops/import?source=sptrans', stopsTxt, 'text/csv');
    const body = (await res.json()) as { imported: number; skipped: { line: number }[] };
    expect(res.status).toBe(201);
    expect(body.imported).toBe(2);
    expect(body.skipped).toEqual([expect.objectContaining({ line: 4 })]);
    const renamed = stopsTxt.replace('Clínicas', 'Hospital das Clínicas');
    await upload(
      '/v1/stops/import?source=sptrans',
      zipSync({ 'feed/stops.txt': new TextEncoder().encode(renamed) }),
      'application/zip',
    );
    const stop = await api<{ name: string; source: string; lat: number }>(sys, 'GET', '/v1/stops/18848');
    expect(stop.body).toMatchObject({ name: 'Hospital das Clínicas', source: 'sptrans', lat: -23.554022 });
    // Both versions are kept: what a violation was judged against stays known.
    const { rows } = await sys.db.query<{ name: string; valid_to: Date | null }>(
      "SELECT record->>'name' AS name, valid_to FROM registry_history WHERE collection = 'stops' AND id = '18848' ORDER BY valid_from",
    );
    expect(rows.map((r) => [r.name, r.valid_to === null])).toEqual([
      ['Clínicas', false],
      ['Hospital das Clínicas', true],
    ]);
  });

  it('refuses a zip without stops.txt and a CSV without coordinates', async () => {
    const noStops = await upload(
      '/v1/stops/import',
      zipSync({ 'routes.txt': new Uint8Array([65]) }),
      'application/zip',
    );
    expect(((await noStops.json()) as ErrorBody).error.code).toBe('GTFS_STOPS_MISSING');
    const noCols = await upload('/v1/stops/import', 'id,name\n1,x', 'text/csv');
    expect(((await noCols.json()) as ErrorBody).error.code).toBe('GTFS_COLUMNS_MISSING');
  });

  it('imports stands and zones from GeoJSON, validating geometry and fields', async () => {
    const stands = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          id: 'ponto-rodoviaria',
          geometry: { type: 'Point', coordinates: [-47.8825, -15.7939] },
          properties: { name: 'Rodoviária do Plano Piloto', places: 6, kind: 'livre', radiusM: 40 },
        },
        {
          type: 'Feature',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [-48.49, -1.45],
                [-48.489, -1.45],
                [-48.489, -1.449],
                [-48.49, -1.45],
              ],
            ],
          },
          properties: {
            id: 'ponto-docas',
            name: 'Estação das Docas',
            places: 4,
            kind: 'fixo',
            pack: 'belem-taxi',
            holderVehicleIds: ['v-1'],
          },
        },
      ],
    };
    const res = await upload('/v1/stands/import?pack=df-taxi', JSON.stringify(stands), 'application/json');
    const body = (await res.json()) as { imported: number; items: { id: string; pack: string }[] };
    expect(res.status).toBe(201);
    expect(body.items.map((s) => [s.id, s.pack]).sort()).toEqual([
      ['ponto-docas', 'belem-taxi'],
      ['ponto-rodoviaria', 'df-taxi'],
    ]);

    const openRing = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [-47.9, -15.8],
                [-47.8, -15.8],
                [-47.8, -15.7],
                [-47.9, -15.7],
              ],
            ],
          },
          properties: { name: 'Aeroporto', kind: 'airport' },
        },
      ],
    };
    const bad = await upload('/v1/zones/import?pack=df-taxi', JSON.stringify(openRing), 'application/json');
    const badBody = (await bad.json()) as ErrorBody;
    expect(bad.status).toBe(400);
    // Every geometry problem, the schema's (an open ring) and the topology's, is INVALID_GEOMETRY.
    expect(badBody.error.code).toBe('INVALID_GEOMETRY');
    expect(JSON.stringify(badBody.error.details)).toContain('ring');

    const speed = await api<ErrorBody>(sys, 'POST', '/v1/zones', {
      pack: 'sp-fretamento',
      kind: 'speed-limit',
      name: 'Marginal Tietê',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-46.7, -23.5],
            [-46.6, -23.5],
            [-46.6, -23.52],
            [-46.7, -23.5],
          ],
        ],
      },
    });
    expect(speed.status).toBe(400);
  });

  it('keeps contracts, holiday overrides and unit values', async () => {
    await api(sys, 'POST', '/v1/operators', { id: 'fret-1', name: 'Fretados ABC', pack: 'sp-fretamento' });
    const contract = await api<{ id: string }>(sys, 'POST', '/v1/contracts', {
      operatorId: 'fret-1',
      kind: 'fretamento-continuo',
      vehicleIds: ['bus-1'],
      schedule: [{ daysOfWeek: [1, 2, 3, 4, 5], start: '06:00', end: '09:00' }],
      route: {
        type: 'LineString',
        coordinates: [
          [-46.53, -23.69],
          [-46.65, -23.56],
        ],
      },
      boardingPlaces: [{ name: 'Praça da Matriz', lat: -23.69, lon: -46.53 }],
      validFrom: '2026-01-01',
    });
    expect(contract.status).toBe(201);
    const holiday = await api(sys, 'POST', '/v1/holidays', {
      pack: 'belem-taxi',
      date: '2026-10-12',
      name: 'Círio (decreto municipal)',
    });
    expect(holiday.status).toBe(201);
    const ortn = await api<{ valueBrl: number }>(sys, 'POST', '/v1/unit-values', {
      unit: 'ORTN',
      valueBrl: 57.8,
      validFrom: '2026-01-01',
    });
    expect(ortn.body.valueBrl).toBe(57.8);
    const dup = await api<ErrorBody>(sys, 'POST', '/v1/unit-values', {
      unit: 'ORTN',
      valueBrl: 58,
      validFrom: '2026-01-01',
    });
    expect(dup.body.error.code).toBe('ALREADY_EXISTS');
  });

  it.skipIf(!existsSync(`${SHARED}/sptrans_gtfs/stops.txt`))(
    'imports the real SPTrans stops.txt (22 000 stops)',
    async () => {
      const text = readFileSync(`${SHARED}/sptrans_gtfs/stops.txt`, 'utf8');
      const t = performance.now();
      const res = await upload('/v1/stops/import?source=sptrans', text, 'text/csv');
      const body = (await res.json()) as { imported: number; skipped: unknown[] };
      console.log(
        `SPTrans stops: ${body.imported} imported, ${body.skipped.length} skipped in ${Math.round(performance.now() - t)} ms`,
      );
      expect(res.status).toBe(201);
      expect(body.imported).toBeGreaterThan(20_000);
    },
  );
});
