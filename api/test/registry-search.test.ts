import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type Target, type TestSystem } from './support.js';

/**
 * `GET /v1/stops?q=` and `GET /v1/stands?q=`: the dispatch console's address search. A substring
 * of the name, regardless of case and Portuguese accents; `%` and `_` are letters, not wildcards;
 * other filters and the paging still apply.
 */

interface Page {
  items: { id: string; name: string }[];
  next: string | null;
}

const run = Math.random().toString(36).slice(2, 7);

describe.each<Target>(['pglite', 'postgres'])('registry name search (%s)', (target) => {
  let sys: TestSystem;

  beforeAll(async () => {
    sys = await startTestSystem(target);
    const stops = await api(sys, 'POST', '/v1/stops', [
      { id: `stop-rod-${run}`, name: `Rodoviária do Plano Piloto ${run}`, lat: -15.7939, lon: -47.8828 },
      { id: `stop-set-${run}`, name: `SETOR COMERCIAL SUL ${run}`, lat: -15.7975, lon: -47.8892 },
      { id: `stop-pct-${run}`, name: `Parada 100% ${run}`, lat: -15.8, lon: -47.9 },
    ]);
    expect(stops.status, JSON.stringify(stops.body)).toBe(201);
    const stands = await api(sys, 'POST', '/v1/stands', [
      {
        id: `stand-rod-${run}`,
        pack: 'df-taxi',
        name: `Ponto da Rodoviária ${run}`,
        geometry: { type: 'Point', coordinates: [-47.8829, -15.794] },
        radiusM: 40,
        places: 6,
        kind: 'livre',
      },
      {
        id: `stand-ver-${run}`,
        pack: 'belem-taxi',
        name: `Ver-o-Peso ${run}`,
        geometry: { type: 'Point', coordinates: [-48.5036, -1.4526] },
        radiusM: 40,
        places: 4,
        kind: 'livre',
      },
    ]);
    expect(stands.status, JSON.stringify(stands.body)).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await sys?.stop();
  });

  const names = async (path: string) => {
    const res = await api<Page>(sys, 'GET', path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items.map((item) => item.name).sort();
  };

  it('finds a substring of the name whatever its case and accents', async () => {
    expect(await names(`/v1/stops?q=rodoviaria%20do%20plano%20piloto%20${run}`)).toEqual([
      `Rodoviária do Plano Piloto ${run}`,
    ]);
    expect(await names(`/v1/stops?q=${encodeURIComponent(`comercial sul ${run}`)}`)).toEqual([
      `SETOR COMERCIAL SUL ${run}`,
    ]);
    expect(await names(`/v1/stops?q=${encodeURIComponent(`RODOVIÁRIA DO PLANO PILOTO ${run}`)}`)).toEqual([
      `Rodoviária do Plano Piloto ${run}`,
    ]);
    expect(await names(`/v1/stands?q=rodovi`)).toContain(`Ponto da Rodoviária ${run}`);
    expect(await names(`/v1/stops?q=nowhere-${run}`)).toEqual([]);
  });

  it('takes % and _ literally', async () => {
    expect(await names(`/v1/stops?q=${encodeURIComponent(`100% ${run}`)}`)).toEqual([`Parada 100% ${run}`]);
    // As a wildcard `%` would match every stop of this run.
    expect(await names(`/v1/stops?q=${encodeURIComponent(`a%${run}`)}`)).toEqual([]);
    expect(await names(`/v1/stops?q=${encodeURIComponent(`_${run}`)}`)).toEqual([]);
  });

  it('combines with the equality filters and paging; a blank q filters nothing', async () => {
    expect(await names(`/v1/stands?q=${run}&pack=belem-taxi`)).toEqual([`Ver-o-Peso ${run}`]);
    const first = await api<Page>(sys, 'GET', `/v1/stops?q=${run}&limit=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next).not.toBeNull();
    const second = await api<Page>(sys, 'GET', `/v1/stops?q=${run}&limit=2&cursor=${first.body.next}`);
    expect(second.body.items).toHaveLength(1);
    const all = await api<Page>(sys, 'GET', '/v1/stops?q=%20&limit=1000');
    expect(all.body.items.length).toBeGreaterThanOrEqual(3);
  });
});
