// Derives zones.geojson's airport areas from OpenFlights' airports.dat (in the shared reference
// data beside the repository, which a clone does not have: the derived file is committed, this
// script only re-derives it). Each airport area is a 16-sided polygon of AIRPORT_RADIUS_M around
// the airport's reference point: the area where a DF taxi trip starting or ending counts as an
// airport trip (Art. 45 III d, Bandeira II allowed). Usage: node devices/data/demo-registry/derive-zones.mjs [airports.dat]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const AIRPORT_RADIUS_M = 1500;
const SIDES = 16;
const airports = [
  { icao: 'SBBR', id: 'demo-zone-airport-bsb', pack: 'df-taxi', name: 'Aeroporto Internacional de Brasília (BSB)' },
  { icao: 'SBBE', id: 'demo-zone-airport-bel', pack: 'belem-taxi', name: 'Aeroporto Internacional de Belém (BEL)' },
];

const file =
  process.argv[2] ?? fileURLToPath(new URL('../../../../shared/data/airports_brazil/airports.dat', import.meta.url));
const rows = readFileSync(file, 'utf8')
  .split('\n')
  .map((line) => line.match(/("[^"]*"|[^,]+)/g)?.map((cell) => cell.replace(/^"|"$/g, '')) ?? []);

const polygon = (lat, lon) => {
  const ring = [];
  for (let i = 0; i <= SIDES; i++) {
    const a = ((i % SIDES) / SIDES) * 2 * Math.PI;
    const dLat = (AIRPORT_RADIUS_M * Math.cos(a)) / 111_320;
    const dLon = (AIRPORT_RADIUS_M * Math.sin(a)) / (111_320 * Math.cos((lat * Math.PI) / 180));
    ring.push([Number((lon + dLon).toFixed(6)), Number((lat + dLat).toFixed(6))]);
  }
  return { type: 'Polygon', coordinates: [ring.reverse()] };
};

const target = fileURLToPath(new URL('zones.geojson', import.meta.url));
const collection = JSON.parse(readFileSync(target, 'utf8'));
const others = collection.features.filter((f) => f.properties.kind !== 'airport');
const derived = airports.map((a) => {
  const row = rows.find((r) => r[5] === a.icao);
  if (!row) throw new Error(`${a.icao} is not in ${file}`);
  const [lat, lon] = [Number(row[6]), Number(row[7])];
  return {
    type: 'Feature',
    properties: {
      id: a.id,
      pack: a.pack,
      kind: 'airport',
      name: a.name,
      source: `OpenFlights airports.dat (${a.icao} reference point ${lat.toFixed(5)}, ${lon.toFixed(5)}), ${AIRPORT_RADIUS_M} m around it`,
    },
    geometry: polygon(lat, lon),
  };
});
collection.features = [...derived, ...others];
writeFileSync(target, `${JSON.stringify(collection, null, 2)}\n`);
console.log(`${derived.length} airport zones written to ${target}`);
