/**
 * `npm run bench:places`: the reverse lookup's street index (api/src/places/README.md). Reads the
 * bundled street data (or PLACES_STREET_DATA_DIR), prints the time to read and validate the files
 * and to build the segment index, then times BENCH_PLACES_LOOKUPS lookups (default 100 000) at
 * random points over each covered city's extract, within PLACES_STREET_MAX_M (default 150 m):
 * the mean and the p50/p99 of batches of 1 000, and the share that found a street.
 * A script that prints figures, not a test.
 */
import { seededRandom } from '@vigia/core';
import { z } from 'zod';
import { loadStreets } from '../places/street-data.js';

// The knobs, checked: a typo fails here instead of running with NaN.
const { BENCH_PLACES_LOOKUPS: LOOKUPS, PLACES_STREET_MAX_M: MAX_M } = z
  .object({
    BENCH_PLACES_LOOKUPS: z.coerce.number().int().positive().default(100_000),
    PLACES_STREET_MAX_M: z.coerce.number().positive().default(150),
  })
  .parse(process.env);
const BATCH = 1_000;

/** The extracts' boxes (dashboard/public/basemap/SOURCES.md), `[minLon, minLat, maxLon, maxLat]`. */
const AREAS = [
  { name: 'São Paulo (named streets)', box: [-46.671, -23.583, -46.597, -23.517] },
  { name: 'Brasília (unnamed lines)', box: [-47.938, -15.845, -47.852, -15.777] },
] as const;

/** CPU milliseconds this process spent since `since` (user + system): what a busy machine's wall clock hides. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const loadCpu = process.cpuUsage();
const streets = await loadStreets(process.env.PLACES_STREET_DATA_DIR);
console.log(
  `street data: ${streets.files.join(', ')}: ${streets.index.segmentCount} segments; ` +
    `read and validated in ${streets.readMs.toFixed(0)} ms, index built in ${streets.buildMs.toFixed(0)} ms ` +
    `(wall clock; ${cpuMs(loadCpu).toFixed(0)} ms of CPU for both)`,
);

const random = seededRandom(11);
for (const area of AREAS) {
  const [minLon, minLat, maxLon, maxLat] = area.box;
  const points = Array.from({ length: LOOKUPS }, () => [
    minLat + random() * (maxLat - minLat),
    minLon + random() * (maxLon - minLon),
  ]);
  const batches: number[] = [];
  let found = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let b = 0; b < LOOKUPS; b += BATCH) {
    const t = performance.now();
    for (let i = b; i < Math.min(b + BATCH, LOOKUPS); i++) {
      const [lat = 0, lon = 0] = points[i] ?? [];
      if (streets.index.nearest(lat, lon, MAX_M)) found++;
    }
    batches.push(((performance.now() - t) * 1000) / BATCH);
  }
  const totalMs = performance.now() - started;
  const totalCpuMs = cpuMs(cpu);
  batches.sort((x, y) => x - y);
  const pct = (p: number) => batches[Math.min(batches.length - 1, Math.floor(p * batches.length))] ?? 0;
  console.log(
    `${area.name}: ${LOOKUPS} lookups in ${totalMs.toFixed(0)} ms, mean ${((totalMs * 1000) / LOOKUPS).toFixed(1)} µs; ` +
      `per lookup by batch of ${BATCH}: p50 ${pct(0.5).toFixed(1)} µs, p99 ${pct(0.99).toFixed(1)} µs; ` +
      `a street within ${MAX_M} m for ${((100 * found) / LOOKUPS).toFixed(1)} %; ` +
      `CPU ${((totalCpuMs * 1000) / LOOKUPS).toFixed(1)} µs per lookup`,
  );
}
