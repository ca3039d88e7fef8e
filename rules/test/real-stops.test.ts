import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRuleEngine } from '../src/engine/rule-engine.js';
import { parseGtfsStops } from '../src/registry/gtfs-stops.js';
import { createInMemoryRegistry } from '../src/registry/in-memory-registry.js';
import { latest, num, only, run } from './helpers/events.js';
import { baseOperators, bus } from './helpers/fixtures.js';
import { at, offset, SAO_PAULO, Trace } from './helpers/trace.js';

// SPTrans GTFS stops.txt (feed of 2026-01-31; see ../shared/data/SOURCES.md): read in place, never copied.
const here = dirname(fileURLToPath(import.meta.url));
const STOPS = resolve(here, '../../../shared/data/sptrans_gtfs/stops.txt');
const available = existsSync(STOPS);
if (!available) console.log(`real-stops.test: skipped, ${STOPS} is absent (shared data not mounted)`);

describe.skipIf(!available)('real data: SPTrans GTFS stops (22 000 stops)', () => {
  const stops = available ? parseGtfsStops(readFileSync(STOPS, 'utf8'), 'sptrans-gtfs-2026-01-31') : [];
  const registry = createInMemoryRegistry({ operators: baseOperators, vehicles: [bus('bus-1')], stops });
  // Stop 18848 "Clínicas" (-23.554022, -46.671108) in the feed.
  const clinicas = stops.find((s) => s.id === '18848');

  const dwellAt = (lat: number, lon: number) => {
    const approach = offset(lat, lon, 300, 270);
    const t = new Trace({
      at: at(SAO_PAULO, '2026-03-04', '08:00:00'),
      lat: approach.lat,
      lon: approach.lon,
      fields: { vehicleId: 'bus-1', passengers: 20, boardings: 0, doorOpen: false, tachoSpeedKmh: 30 },
    });
    t.drive(25, 30)
      .wait(5)
      .moveTo(lat, lon)
      .emit({ speedKmh: 0 })
      .stay(30, 5, { doorOpen: true, boardings: 4, passengers: 24 });
    t.drive(20, 30, 90, 5, { doorOpen: false, boardings: 0 });
    return t.samples;
  };

  it('loads the whole feed into the spatial index', () => {
    expect(stops.length).toBeGreaterThan(22_000);
    expect(clinicas?.name).toBe('Clínicas');
    expect(stops.every((s) => Number.isFinite(s.lat) && s.lat < -23 && s.lat > -24.1)).toBe(true);
  });

  it('a boarding dwell beside a real stop fires; the same dwell 60 m from every stop does not', () => {
    if (!clinicas) throw new Error('stop 18848 missing from the feed');
    const beside = offset(clinicas.lat, clinicas.lon, 8, 180);
    const v = only(
      run(createRuleEngine({ registry }), dwellAt(beside.lat, beside.lon)),
      'FRET_BOARDING_AT_REGULAR_STOP',
    );
    expect(v.place?.id).toBe('18848');
    expect(num(v, 'distanceToStopM')).toBeCloseTo(8, 0);
    expect(v.measured.stopSource).toBe('sptrans-gtfs-2026-01-31');

    // Walk away from Clínicas until the nearest stop of the whole feed is ≥ 60 m away.
    let away = offset(clinicas.lat, clinicas.lon, 60, 0);
    for (
      let heading = 0;
      heading < 360 && registry.stopsWithin(away.lat, away.lon, 59.5, 0).length > 0;
      heading += 15
    ) {
      away = offset(clinicas.lat, clinicas.lon, 60, heading);
    }
    expect(registry.stopsWithin(away.lat, away.lon, 59.5, 0)).toHaveLength(0);
    expect(
      latest(run(createRuleEngine({ registry }), dwellAt(away.lat, away.lon)), 'FRET_BOARDING_AT_REGULAR_STOP'),
    ).toHaveLength(0);
  });
});
