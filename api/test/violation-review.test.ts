import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, storeViolation, type TestSystem } from './support.js';

interface ErrorBody {
  error: { code: string };
}
interface Review {
  decision: string;
  reason: string;
  reviewer: string;
  reviewerName: string | null;
  fromStatus: string;
  toStatus: string;
  at: string;
}

/**
 * The review workflow's reopening and its trail (api/src/violations/README.md): a dismissed
 * violation goes back to open with a reason, by the roles that review; anything else is a 409;
 * each decision of the trail names its reviewer.
 */
describe('reopening a dismissed violation, and reviewers by name', () => {
  let sys: TestSystem;
  let dev: Awaited<ReturnType<typeof registerVehicle>>;
  const tokens: Record<'regulator' | 'enforcement' | 'dispatcher' | 'operator', string> = {
    regulator: '',
    enforcement: '',
    dispatcher: '',
    operator: '',
  };
  let keySeq = 0;

  const raise = () => storeViolation(sys, dev, `reopen-${++keySeq}`);
  const review = (id: string, decision: string, reason: string, token: string | null = sys.adminToken) =>
    api<{ status: string } & ErrorBody>(sys, 'POST', `/v1/violations/${id}/review`, { decision, reason }, token);
  const trail = async (id: string) =>
    (await api<{ reviews: Review[] }>(sys, 'GET', `/v1/violations/${id}`)).body.reviews;

  beforeAll(async () => {
    sys = await startTestSystem('pglite');
    dev = await registerVehicle(sys, { operatorId: 'coop-reopen' });
    const names = {
      regulator: 'Regina Alves (SEMOB)',
      enforcement: 'Edson Prado',
      dispatcher: 'Dora Lima',
      operator: 'Otávio Reis',
    } as const;
    for (const role of Object.keys(tokens) as (keyof typeof tokens)[]) {
      const res = await api<{ token: string }>(sys, 'POST', '/v1/users', {
        id: `u-${role}`,
        name: names[role],
        role,
        operatorIds: role === 'dispatcher' || role === 'operator' ? ['coop-reopen'] : [],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      tokens[role] = res.body.token;
    }
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('reopens a dismissed violation to open, with the reason and the reviewer by name in the trail', async () => {
    const id = await raise();
    expect((await review(id, 'dismiss', 'Contagem do sensor duvidosa', tokens.enforcement)).body.status).toBe(
      'dismissed',
    );
    const reopened = await review(id, 'reopen', 'Vídeo da garagem mostra seis passageiros', tokens.regulator);
    expect(reopened.status).toBe(200);
    expect(reopened.body.status).toBe('open');
    // Open again, it can be confirmed and notified like any other.
    expect((await review(id, 'confirm', 'Evidência confirmada pelo vídeo', tokens.regulator)).body.status).toBe(
      'confirmed',
    );
    const reviews = await trail(id);
    expect(reviews.map((r) => [r.decision, r.fromStatus, r.toStatus, r.reviewer, r.reviewerName])).toEqual([
      ['dismiss', 'open', 'dismissed', 'u-enforcement', 'Edson Prado'],
      ['reopen', 'dismissed', 'open', 'u-regulator', 'Regina Alves (SEMOB)'],
      ['confirm', 'open', 'confirmed', 'u-regulator', 'Regina Alves (SEMOB)'],
    ]);
    expect(reviews[1]?.reason).toBe('Vídeo da garagem mostra seis passageiros');
    // The operator reads the same trail, names included.
    const seen = await api<{ reviews: Review[] }>(sys, 'GET', `/v1/violations/${id}`, undefined, tokens.operator);
    expect(seen.body.reviews.map((r) => r.reviewerName)).toEqual([
      'Edson Prado',
      'Regina Alves (SEMOB)',
      'Regina Alves (SEMOB)',
    ]);
    // The CSV export carries the same trail, reviewers by name.
    const csv = await fetch(`${sys.url}/v1/violations/export.csv?vehicleId=${dev.vehicleId}`, {
      headers: { authorization: `Bearer ${sys.adminToken}` },
    }).then((res) => res.text());
    const [header, ...lines] = parse(csv, { relax_quotes: false }) as string[][];
    const row = lines.find((cells) => cells[0] === id);
    const column = (name: string) => row?.[header?.indexOf(name) ?? -1];
    expect(column('lastDecision')).toBe('confirm');
    expect(column('lastReviewer')).toBe('Regina Alves (SEMOB)');
    expect(
      column('reviewTrail')
        ?.split('\n')
        .map((line) => line.split(' — ').slice(1, 3)),
    ).toEqual([
      ['Descartada', 'Edson Prado'],
      ['Reaberta', 'Regina Alves (SEMOB)'],
      ['Confirmada', 'Regina Alves (SEMOB)'],
    ]);
  });

  it('answers 409 for a violation that is not dismissed, whatever its status, and changes nothing', async () => {
    const id = await raise();
    for (const [step, status] of [
      [null, 'open'],
      ['confirm', 'confirmed'],
      ['notify', 'notified'],
    ] as const) {
      if (step) expect((await review(id, step, 'Passo do fluxo')).status).toBe(200);
      const refused = await review(id, 'reopen', 'Reabrir sem descarte');
      expect(refused.status, status).toBe(409);
      expect(refused.body.error.code).toBe('INVALID_TRANSITION');
      const current = await api<{ status: string }>(sys, 'GET', `/v1/violations/${id}`);
      expect(current.body.status).toBe(status);
    }
    expect((await trail(id)).map((r) => r.decision)).toEqual(['confirm', 'notify']);
    expect((await review('no-such-violation', 'reopen', 'Não existe')).status).toBe(404);
  });

  it('lets only the reviewing roles reopen (403 for dispatchers and operators), with a reason', async () => {
    const id = await raise();
    expect((await review(id, 'dismiss', 'Falso positivo')).status).toBe(200);
    for (const role of ['dispatcher', 'operator'] as const) {
      const refused = await review(id, 'reopen', 'Quero de volta', tokens[role]);
      expect(refused.status, role).toBe(403);
    }
    expect((await review(id, 'reopen', '', tokens.enforcement)).status).toBe(400);
    expect((await review(id, 'reopen', 'Novo laudo', tokens.enforcement)).body.status).toBe('open');
    // The admin token is no user: its decisions name it `admin`, with no registry name.
    expect((await review(id, 'dismiss', 'Descarte administrativo')).status).toBe(200);
    const reviews = await trail(id);
    expect(reviews.map((r) => [r.decision, r.reviewer, r.reviewerName])).toEqual([
      ['dismiss', 'admin', null],
      ['reopen', 'u-enforcement', 'Edson Prado'],
      ['dismiss', 'admin', null],
    ]);
  });
});
