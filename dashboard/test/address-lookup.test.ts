import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from '../../api/test/support.js';
import { describePlace, type PlacesClient } from '../src/address-lookup.js';

/**
 * The dashboard's address lines (dashboard/src/address-lookup.ts) against the real API on
 * PostgreSQL: the wording of each case (a named street with a stop, Brasília's unnamed streets,
 * Belém without street data, nowhere near a street) and the cache: one request per rounded point,
 * shared while in flight, none again once answered, a failure not kept.
 */

/** The API client's transport as the page has it (token, error contract), counting the requests. */
function countingClient(sys: TestSystem): PlacesClient & { requests: string[] } {
  const requests: string[] = [];
  return {
    requests,
    async getJson<T>(path: string): Promise<T> {
      requests.push(path);
      const res = await fetch(`${sys.url}${path}`, { headers: { authorization: `Bearer ${sys.adminToken}` } });
      if (!res.ok) throw new Error(`${res.status} from ${path}`);
      return (await res.json()) as T;
    },
  };
}

describe('describePlace', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem('postgres');
    expect((await api(sys, 'POST', '/v1/stops', { name: 'Parada Trianon', lat: -23.5617, lon: -46.6561 })).status).toBe(
      201,
    );
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('says the street and the place first, the coordinates second, in Portuguese', async () => {
    const client = countingClient(sys);
    const paulista = await describePlace(client, -23.56175, -46.65611);
    expect(paulista.first).toMatch(/^Avenida Paulista · Parada Trianon \(parada(, a \d+ m)?\)$/);
    expect(paulista.second).toBe('-23.56175, -46.65611');
    expect(paulista.answer?.street?.name).toBe('Avenida Paulista');

    expect((await describePlace(client, -15.7942, -47.8822)).first).toBe('via sem nome');
    expect((await describePlace(client, -1.4558, -48.4902)).first).toBe('Belém: sem dados de ruas aqui');
    // Off the coast, outside every served area: no street near.
    expect((await describePlace(client, -20, -35)).first).toBe('sem rua conhecida por perto');
  });

  it('asks once per rounded point: lookups in flight are shared and answers kept', async () => {
    const client = countingClient(sys);
    // Three points within the same 4-decimal cell (about 11 m), asked at once.
    const [a, b, c] = await Promise.all([
      describePlace(client, -23.55051, -46.63331),
      describePlace(client, -23.55049, -46.63329),
      describePlace(client, -23.55052, -46.63334),
    ]);
    expect(client.requests).toEqual(['/v1/places/reverse?lat=-23.5505&lon=-46.6333']);
    expect(a.first).toBe(b.first);
    expect(b.first).toBe(c.first);
    // Each keeps its own coordinates.
    expect([a.second, b.second, c.second]).toEqual([
      '-23.55051, -46.63331',
      '-23.55049, -46.63329',
      '-23.55052, -46.63334',
    ]);
    await describePlace(client, -23.5505, -46.6333);
    expect(client.requests).toHaveLength(1);
    await describePlace(client, -23.5515, -46.6333);
    expect(client.requests).toHaveLength(2);
  });

  it('says the address is unavailable when the lookup fails, and asks again next time', async () => {
    const refused: PlacesClient & { requests: string[] } = {
      requests: [],
      async getJson<T>(path: string): Promise<T> {
        refused.requests.push(path);
        // A token the API does not know: 401, as after a sign-out elsewhere.
        const res = await fetch(`${sys.url}${path}`, { headers: { authorization: 'Bearer not-a-token-0123456789' } });
        throw new Error(`${res.status}`);
      },
    };
    const failed = await describePlace(refused, -23.545, -46.64);
    expect(failed).toEqual({ first: 'endereço indisponível', second: '-23.54500, -46.64000', answer: null });
    await describePlace(refused, -23.545, -46.64);
    expect(refused.requests).toHaveLength(2);
    // A working client then gets the answer for the same point.
    expect((await describePlace(countingClient(sys), -23.545, -46.64)).answer).not.toBeNull();
  });
});
