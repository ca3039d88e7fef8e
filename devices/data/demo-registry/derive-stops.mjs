// Derives sp-regular-stops.json: real SPTrans regular-service bus stops (GTFS stops.txt, in the
// shared reference data beside the repository, which a clone does not have: the derived file is
// committed, this script only re-derives it) that lie on the simulated charter lines' itineraries,
// where a charter bus of the demo can pull over and board passengers (FRET_BOARDING_AT_REGULAR_STOP,
// FRET_REGULAR_SERVICE_PATTERN). Per line and direction: stops within MAX_OFF_ROUTE_M of the
// itinerary, at least MIN_SPACING_M apart along it and MIN_FROM_PLACE_M from the line's declared
// places, at most PER_LINE of them. Needs the built devices package (npm run build).
// Usage: node devices/data/demo-registry/derive-stops.mjs [stops.txt]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseGtfsStops } from '@vigia/rules';
import { CITIES, cityGraph } from '../../dist/network/cities.js';
import { itineraryPolyline, resolveCharterLine } from '../../dist/vehicles/charter-line.js';

const MAX_OFF_ROUTE_M = 12;
const MIN_SPACING_M = 500;
const MIN_FROM_PLACE_M = 300;
const PER_LINE = 4;

const file =
  process.argv[2] ?? fileURLToPath(new URL('../../../../shared/data/sptrans_gtfs/stops.txt', import.meta.url));
const gtfs = parseGtfsStops(readFileSync(file, 'utf8'), 'sptrans-gtfs');

const metres = (a, b) => {
  const k = Math.cos((((a.lat + b.lat) / 2) * Math.PI) / 180);
  return Math.hypot((a.lat - b.lat) * 111_320, (a.lon - b.lon) * 111_320 * k);
};
/** Distance of p from segment a–b and the position along it (0..1), in a local flat frame. */
const toSegment = (p, a, b) => {
  const k = Math.cos((p.lat * Math.PI) / 180) * 111_320;
  const [ax, ay, bx, by, px, py] = [a.lon * k, a.lat * 111_320, b.lon * k, b.lat * 111_320, p.lon * k, p.lat * 111_320];
  const [dx, dy] = [bx - ax, by - ay];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2));
  return { d: Math.hypot(px - (ax + t * dx), py - (ay + t * dy)), t, len: Math.sqrt(len2) };
};

const graph = cityGraph('sp-fretamento');
const chosen = new Map();
for (const def of CITIES['sp-fretamento'].charterLines ?? []) {
  const line = resolveCharterLine(graph, def);
  const places = line.places.morning.map((p) => graph.node(p.node));
  const route = itineraryPolyline(line, 'morning');
  const candidates = [];
  let along = 0;
  for (let i = 1; i < route.length; i++) {
    const [a, b] = [route[i - 1], route[i]];
    for (const stop of gtfs) {
      if (Math.abs(stop.lat - a.lat) > 0.01 || Math.abs(stop.lon - a.lon) > 0.01) continue;
      const { d, t, len } = toSegment(stop, a, b);
      if (d <= MAX_OFF_ROUTE_M && places.every((p) => metres(p, stop) >= MIN_FROM_PLACE_M))
        candidates.push({ stop, s: along + t * len, d });
    }
    along += toSegment(a, a, b).len;
  }
  candidates.sort((x, y) => x.s - y.s);
  let taken = 0;
  let lastS = Number.NEGATIVE_INFINITY;
  for (const c of candidates) {
    if (taken >= PER_LINE) break;
    if (c.s - lastS < MIN_SPACING_M || chosen.has(c.stop.id)) continue;
    chosen.set(c.stop.id, { ...c.stop, line: def.id });
    lastS = c.s;
    taken++;
  }
  console.log(`${def.id}: ${candidates.length} stops on the itinerary, ${taken} kept`);
}

const stops = [...chosen.values()].map(({ id, name, lat, lon }) => ({
  id: `sptrans-${id}`,
  name,
  lat,
  lon,
  source: 'sptrans-gtfs-2026-01-31',
}));
const target = fileURLToPath(new URL('sp-regular-stops.json', import.meta.url));
writeFileSync(
  target,
  `${JSON.stringify({ source: 'SPTrans GTFS stops.txt, feed of 2026-01-31 (official SPTrans open data), stops on the simulated charter lines (derive-stops.mjs)', stops }, null, 2)}\n`,
);
console.log(`${stops.length} stops written to ${target}`);
