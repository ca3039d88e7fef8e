import { haversineM } from '@vigia/ingest';
import { describe, expect, it } from 'vitest';
import type { LiveViolation, ViolationItem } from '../src/api-types.js';
import { measuredRows } from '../src/measured-values.js';
import { circlePolygon } from '../src/place-geometry.js';
import { feedTimeLabel, localDateTimeLabel, penaltyLabel, recidivismLabel } from '../src/violation-format.js';
import { toLiveViolation, toViolationItem } from '../src/violation-guards.js';
import { ViolationStore } from '../src/violation-store.js';

/** The dashboard's violation logic that needs no page: the store's bookkeeping, the guards, the wording. */

function violation(id: string, startedAt: string, extra: Partial<ViolationItem> = {}): ViolationItem {
  return {
    id,
    ruleId: 'DF_BANDEIRA2_MISUSE',
    pack: 'df-taxi',
    legalBasis: ['Art. 45 III'],
    description: 'Bandeira II fora das condições permitidas',
    descriptionEn: 'Tariff 2 where none of its conditions held',
    vehicleId: 'veh-1',
    plate: 'JKL1A23',
    operatorId: 'coop',
    driverId: null,
    startedAt,
    endedAt: null,
    detectedAt: startedAt,
    lat: -15.79,
    lon: -47.88,
    place: null,
    confidence: 'confirmed',
    measured: {},
    penalty: { group: 'C' },
    recidivism: { count: 0, windowDays: 730 },
    status: 'open',
    ...extra,
  };
}

const live = (item: ViolationItem, change: LiveViolation['change']): LiveViolation => ({ ...item, change });

describe('ViolationStore', () => {
  it('lists newest first by start, then by id like the API, with filters and a limit', () => {
    const store = new ViolationStore();
    store.replace(
      [
        violation('vio_a', '2026-12-01T10:00:00Z'),
        violation('vio_c', '2026-12-01T12:00:00Z', { pack: 'belem-taxi' }),
        violation('vio_b', '2026-12-01T12:00:00Z', { status: 'dismissed' }),
        violation('vio_d', '2026-12-01T09:00:00Z', { confidence: 'suspected' }),
      ],
      store.mark(),
    );
    expect(store.list({}, 10).map((v) => v.id)).toEqual(['vio_c', 'vio_b', 'vio_a', 'vio_d']);
    expect(store.list({}, 2).map((v) => v.id)).toEqual(['vio_c', 'vio_b']);
    expect(store.list({ pack: 'df-taxi', status: 'open' }, 10).map((v) => v.id)).toEqual(['vio_a', 'vio_d']);
    expect(store.list({ confidence: 'suspected' }, 10).map((v) => v.id)).toEqual(['vio_d']);
  });

  it('tells a raised violation from an update, and a repeated raise is not news', () => {
    const store = new ViolationStore();
    const changes: Array<{ raised: readonly string[]; updated: readonly string[] }> = [];
    store.subscribe((change) => changes.push(change));
    const first = violation('vio_a', '2026-12-01T10:00:00Z');
    store.applyLive(live(first, 'raised'));
    store.applyLive(live({ ...first, measured: { stretchM: 900 } }, 'updated'));
    store.applyLive(live(first, 'raised'));
    expect(changes).toEqual([
      { raised: ['vio_a'], updated: [] },
      { raised: [], updated: ['vio_a'] },
      { raised: [], updated: ['vio_a'] },
    ]);
    expect(store.size).toBe(1);
  });

  it('keeps what was pushed while a listing was in flight', () => {
    const store = new ViolationStore();
    store.replace([violation('vio_old', '2026-12-01T08:00:00Z')], store.mark());
    const since = store.mark();
    // Pushed after the listing was asked for: the listing cannot know it.
    store.applyLive(live(violation('vio_new', '2026-12-01T11:00:00Z'), 'raised'));
    store.applyLive(live(violation('vio_old', '2026-12-01T08:00:00Z', { status: 'confirmed' }), 'updated'));
    store.replace([violation('vio_old', '2026-12-01T08:00:00Z'), violation('vio_x', '2026-12-01T09:00:00Z')], since);
    expect(store.list({}, 10).map((v) => [v.id, v.status])).toEqual([
      ['vio_new', 'open'],
      ['vio_x', 'open'],
      ['vio_old', 'confirmed'],
    ]);
    // A listing asked for after the push is the newer truth.
    store.replace([violation('vio_x', '2026-12-01T09:00:00Z')], store.mark());
    expect(store.list({}, 10).map((v) => v.id)).toEqual(['vio_x']);
  });

  it('flags a vehicle while it has an open violation, and stops once it is reviewed', () => {
    const store = new ViolationStore();
    store.replace(
      [
        violation('vio_a', '2026-12-01T10:00:00Z'),
        violation('vio_b', '2026-12-01T11:00:00Z'),
        violation('vio_c', '2026-12-01T12:00:00Z', { vehicleId: 'veh-2', status: 'notified' }),
      ],
      store.mark(),
    );
    expect(store.flaggedVehicleIds()).toEqual(['veh-1']);
    expect(store.openForVehicle('veh-1').map((v) => v.id)).toEqual(['vio_b', 'vio_a']);
    expect(store.openCount()).toBe(2);
    store.applyReviewed(violation('vio_b', '2026-12-01T11:00:00Z', { status: 'confirmed' }));
    store.applyReviewed(violation('vio_a', '2026-12-01T10:00:00Z', { status: 'dismissed' }));
    expect(store.flaggedVehicleIds()).toEqual([]);
    expect(store.openForVehicle('veh-1')).toEqual([]);
    expect(store.openCount()).toBe(0);
  });
});

describe('violation guards', () => {
  it('accepts a push as the pipeline sends it', () => {
    const payload = { ...violation('vio_a', '2026-12-01T10:00:00.000Z'), change: 'raised' };
    expect(toLiveViolation(JSON.parse(JSON.stringify(payload)))).toEqual(payload);
  });

  it('drops what the feed cannot file and normalises what it can', () => {
    const base = { ...violation('vio_a', '2026-12-01T10:00:00Z'), change: 'updated' };
    expect(toLiveViolation({ ...base, id: undefined })).toBeNull();
    expect(toLiveViolation({ ...base, change: 'deleted' })).toBeNull();
    expect(toLiveViolation({ ...base, startedAt: 'yesterday' })).toBeNull();
    expect(toLiveViolation({ ...base, status: 'archived' })).toBeNull();
    expect(toLiveViolation({ ...base, pack: 'rio-taxi' })).toBeNull();
    const loose = toViolationItem({
      ...base,
      legalBasis: ['Art. 45 III', 7],
      confidence: undefined,
      measured: null,
      place: { kind: 'stop', id: 'stop-1' },
      lat: 'x',
    });
    expect(loose).toMatchObject({
      legalBasis: ['Art. 45 III'],
      confidence: 'suspected',
      measured: {},
      place: { kind: 'stop', id: 'stop-1', name: 'stop-1' },
      lat: null,
    });
  });
});

describe('measured values', () => {
  it('reads the unit off the key and words the label', () => {
    const rows = measuredRows(
      {
        distanceToStopM: 11.14,
        dwellS: 42,
        speedKmh: 87.5,
        overchargeCents: 1250,
        passengers: 7,
        tariff: 2,
        doorOpened: true,
        B1FareBrl: 3.5,
        lostGPS: true,
      },
      'df-taxi',
    );
    expect(rows.map((row) => [row.label, row.value])).toEqual([
      ['Distance to stop (m)', '11,1 m'],
      ['Dwell (s)', '42 s'],
      ['Speed (km/h)', '87,5 km/h'],
      ['Overcharge (R$)', 'R$\u00a012,50'],
      ['Passageiros (sem o motorista)', '7'],
      ['Tarifa (bandeira)', 'Bandeira II'],
      ['Door opened', 'Sim'],
      ['B1 fare (R$)', 'R$\u00a03,50'],
      // An acronym's last capital is not a unit: no "(s)" for GPS.
      ['Lost GPS', 'Sim'],
    ]);
  });

  it('shows a queue snapshot as nested rows and instants in the pack’s time zone', () => {
    const [queue] = measuredRows(
      { queue: [{ vehicleId: 'veh-9', enteredAt: '2026-12-01T15:00:00Z', waitedS: 95 }] },
      'belem-taxi',
    );
    expect(queue?.label).toBe('Queue');
    const first = Array.isArray(queue?.value) ? queue.value[0] : undefined;
    expect(first?.label).toBe('1');
    const fields = Array.isArray(first?.value) ? first.value.map((row) => [row.label, row.value]) : [];
    expect(fields[0]).toEqual(['Vehicle id', 'veh-9']);
    // 15:00 UTC is 12:00 in Belém (UTC−3, no daylight saving).
    expect(fields[1]?.[0]).toBe('Entered at');
    expect(fields[1]?.[1]).toContain('12:00:00');
    expect(fields[2]).toEqual(['Waited (s)', '95 s']);
  });
});

// The interface's default language is Brazilian Portuguese: numbers, words and clocks read as in pt-BR.
describe('violation wording', () => {
  it('states times on the clock of the pack’s regulation, not the browser’s', () => {
    // A Tuesday afternoon in Brasília: 17:30 UTC is 14:30 local.
    const iso = '2026-12-01T17:30:00Z';
    expect(feedTimeLabel(iso, 'df-taxi', Date.parse('2026-12-01T20:00:00Z'))).toContain('14:30:00');
    expect(localDateTimeLabel(iso, 'df-taxi')).toMatch(/14:30:00 \(horário de Brasília \(UTC−3\)\)/);
    // The next local day there: the date is shown too.
    expect(feedTimeLabel(iso, 'df-taxi', Date.parse('2026-12-02T12:00:00Z'))).toMatch(/01.+14:30:00/);
  });

  it('words the penalty and recidivism from the parts a pack gives', () => {
    expect(penaltyLabel({ units: 25, unit: 'ORTN', amountBrl: 885.5, apprehension: true })).toBe(
      '25 ORTN · R$\u00a0885,50 · apreensão do veículo',
    );
    expect(penaltyLabel({ group: 'III', units: 40, unit: 'IPCA-E' })).toBe('Grupo III · 40 IPCA-E');
    expect(penaltyLabel({})).toBe('—');
    expect(recidivismLabel({ count: 2, windowDays: 365 })).toBe('2 anterior(es) em 365 dias');
    expect(recidivismLabel({ count: 0, windowDays: 730 })).toBe('Nenhuma infração anterior em 730 dias');
  });
});

describe('circlePolygon', () => {
  it('draws the rule’s radius on the ground, closed, at the packs’ latitudes', () => {
    for (const [lon, lat] of [
      [-46.654, -23.5629],
      [-48.49, -1.42],
    ] as const) {
      const polygon = circlePolygon([lon, lat], 30);
      const ring = polygon.coordinates[0] ?? [];
      expect(ring).toHaveLength(65);
      expect(ring[0]).toEqual(ring.at(-1));
      for (const [x = 0, y = 0] of ring) expect(haversineM(lat, lon, y, x)).toBeCloseTo(30, 1);
    }
  });
});
