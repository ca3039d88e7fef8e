import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { degreesAround } from '@vigia/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREET_DATA_DIR } from '../src/places/street-data.js';
import { api, startTestSystem, type TestSystem, waitFor } from './support.js';

/**
 * `GET /v1/places/reverse` on real PostgreSQL, against the street data the product ships
 * (dashboard/public/basemap) and places registered through the API (api/src/places/README.md).
 */

interface Reverse {
  street: { name: string | null; class: string; distanceM: number } | null;
  place: { kind: 'stop' | 'stand' | 'zone'; id: string; name: string; distanceM: number } | null;
}
interface ErrorBody {
  error: { code: string; message: string };
}

/** A point on Avenida Paulista, mid-block between Rua Pamplona and Alameda Casa Branca. */
const PAULISTA = { lat: -23.56322, lon: -46.65447 };
/** The Esplanada dos Ministérios, Brasília: streets in the data, none named. */
const ESPLANADA = { lat: -15.7942, lon: -47.8822 };
/** Belém: no street data at all (SOURCES.md "Gaps"). */
const BELEM = { lat: -1.4558, lon: -48.4902 };
/** The Atlantic, 500 km off the coast. */
const OCEAN = { lat: -20, lon: -35 };

/** `dLat` metres north of a point. */
const north = (p: { lat: number; lon: number }, metres: number) => ({
  lat: p.lat + degreesAround(p.lat, metres).dLat,
  lon: p.lon,
});

describe('GET /v1/places/reverse', () => {
  let sys: TestSystem;
  const reverse = (p: { lat: number; lon: number }) =>
    api<Reverse>(sys, 'GET', `/v1/places/reverse?lat=${p.lat.toFixed(6)}&lon=${p.lon.toFixed(6)}`);

  beforeAll(async () => {
    sys = await startTestSystem('postgres');
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('names Avenida Paulista at a point on it, from the street data the map draws', async () => {
    const data = readFileSync(join(STREET_DATA_DIR, 'sao-paulo-roads.geojson'), 'utf8');
    expect(data).toContain('"name":"Avenida Paulista"');
    const started = performance.now();
    const res = await reverse(PAULISTA);
    console.log(`reverse lookup over HTTP (first, registry loaded): ${(performance.now() - started).toFixed(1)} ms`);
    const again = performance.now();
    for (let i = 0; i < 20; i++) await reverse({ lat: PAULISTA.lat + i * 0.0001, lon: PAULISTA.lon });
    console.log(`reverse lookup over HTTP (registry loaded): ${((performance.now() - again) / 20).toFixed(1)} ms each`);
    expect(res.status).toBe(200);
    expect(res.body.street).toMatchObject({ name: 'Avenida Paulista' });
    expect(['primary', 'secondary']).toContain(res.body.street?.class);
    expect(res.body.street?.distanceM).toBeLessThan(15);
    expect(res.body.place).toBeNull();
  });

  it('names a registered stop 20 m away, with its distance, and forgets it once retired', async () => {
    const stopAt = north(PAULISTA, -20);
    const created = await api<{ id: string }>(sys, 'POST', '/v1/stops', {
      name: 'Parada MASP',
      lat: stopAt.lat,
      lon: stopAt.lon,
    });
    expect(created.status).toBe(201);
    const res = await waitFor('the new stop named', async () => {
      const r = await reverse(PAULISTA);
      return r.body.place !== null && r;
    });
    expect(res.body.place).toMatchObject({ kind: 'stop', id: created.body.id, name: 'Parada MASP' });
    expect(res.body.place?.distanceM).toBeCloseTo(20, 0);
    expect(res.body.street?.name).toBe('Avenida Paulista');

    // 80 m away is beyond PLACES_NEAR_M (50 m): no place.
    expect((await reverse(north(stopAt, 80))).body.place).toBeNull();

    expect((await api(sys, 'DELETE', `/v1/stops/${created.body.id}`)).status).toBe(200);
    await waitFor('the retired stop forgotten', async () => (await reverse(PAULISTA)).body.place === null);
  });

  it('names a stand the point is in before a nearer-by-centre stop, and a zone that contains the point', async () => {
    const standCentre = north(ESPLANADA, 300);
    const stand = await api<{ id: string }>(sys, 'POST', '/v1/stands', {
      pack: 'df-taxi',
      name: 'Ponto Esplanada',
      geometry: { type: 'Point', coordinates: [standCentre.lon, standCentre.lat] },
      radiusM: 40,
      places: 4,
      kind: 'livre',
    });
    expect(stand.status).toBe(201);
    // A stop 30 m from the point; the point is 25 m from the stand's centre, inside its 40 m.
    const point = north(standCentre, 25);
    const stopAt = north(point, 30);
    expect(
      (await api(sys, 'POST', '/v1/stops', { name: 'Parada Ministérios', lat: stopAt.lat, lon: stopAt.lon })).status,
    ).toBe(201);
    const atStand = await waitFor('the stand named', async () => {
      const r = await reverse(point);
      return r.body.place?.kind === 'stand' && r;
    });
    expect(atStand.body.place).toEqual({ kind: 'stand', id: stand.body.id, name: 'Ponto Esplanada', distanceM: 0 });

    const d = 0.004;
    const zone = await api<{ id: string }>(sys, 'POST', '/v1/zones', {
      pack: 'df-taxi',
      kind: 'bandeira2-signed',
      name: 'Zona Eixo Monumental',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [ESPLANADA.lon - d, ESPLANADA.lat - d],
            [ESPLANADA.lon + d, ESPLANADA.lat - d],
            [ESPLANADA.lon + d, ESPLANADA.lat + d],
            [ESPLANADA.lon - d, ESPLANADA.lat + d],
            [ESPLANADA.lon - d, ESPLANADA.lat - d],
          ],
        ],
      },
    });
    expect(zone.status).toBe(201);
    const inZone = await waitFor('the zone named', async () => {
      const r = await reverse(ESPLANADA);
      return r.body.place !== null && r;
    });
    expect(inZone.body.place).toEqual({ kind: 'zone', id: zone.body.id, name: 'Zona Eixo Monumental', distanceM: 0 });
    // Brasília's streets are in the data without names: a street, unnamed, and not far.
    expect(inZone.body.street).toMatchObject({ name: null, class: 'unknown' });
    expect(inZone.body.street?.distanceM).toBeLessThan(50);
  });

  it('answers no street where the data has none (Belém) or nothing is near (the ocean)', async () => {
    for (const p of [BELEM, OCEAN]) {
      const res = await reverse(p);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ street: null, place: null });
    }
  });

  it('refuses a malformed or incomplete query and an unknown parameter with 400 in the error shape', async () => {
    const bad = [
      'lat=abc&lon=-46.6',
      'lat=-23.5',
      'lat=&lon=',
      'lat=1e1&lon=2',
      'lat=91&lon=0',
      'lat=0&lon=-180.5',
      'lat=-23.5&lon=-46.6&lat=-23.6',
      'lat=-23.5&lon=-46.6&radius=500',
    ];
    for (const query of bad) {
      const res = await api<ErrorBody>(sys, 'GET', `/v1/places/reverse?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toMatch(/^(VALIDATION_FAILED|UNKNOWN_FILTER)$/);
    }
    const unknown = await api<ErrorBody>(sys, 'GET', '/v1/places/reverse?lat=-23.5&lon=-46.6&radius=500');
    expect(unknown.body.error.message).toContain('radius');
  });

  it('refuses a call without a token', async () => {
    const res = await api<ErrorBody>(sys, 'GET', '/v1/places/reverse?lat=-23.5&lon=-46.6', undefined, null);
    expect(res.status).toBe(401);
  });
});
