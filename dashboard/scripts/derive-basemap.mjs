// Derives the offline map's street extracts (public/basemap/*-roads.geojson) from the OpenStreetMap
// extracts gathered beside the repository. The output keeps the source schema (LineString features,
// `properties { name, class }`) so the map style and the api's reverse lookup read it unchanged.
//
//   npm run derive:basemap -w @vigia/dashboard [-- <source dir>]
//
// The source directory defaults to ../shared/data/basemap (relative to the repository root); a
// clone does not have it, which is why the derived files are committed. See public/basemap/SOURCES.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const dashboardDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repositoryDir = resolve(dashboardDir, '..');
const sourceDir = resolve(process.argv[2] ?? join(repositoryDir, '..', 'shared', 'data', 'basemap'));
const outputDir = join(dashboardDir, 'public', 'basemap');

const cities = ['sao-paulo', 'brasilia'];
const roadClasses = ['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'residential', 'unknown'];
/** 5 decimals is about 1 m on the ground: finer than any street is drawn or looked up. */
const decimals = 5;
/**
 * Unnamed lines shorter than this are dropped. In Brasília (no tags at all) these are parking-aisle
 * stubs and path ends of a few metres that add vertices but no visible street; every named line stays.
 */
const minUnnamedLengthM = 15;

const position = z.tuple([z.number(), z.number()]).rest(z.number());
const sourceSchema = z.object({
  type: z.literal('FeatureCollection'),
  features: z.array(
    z.object({
      type: z.literal('Feature'),
      properties: z.object({ name: z.string().nullable(), class: z.enum(roadClasses) }),
      geometry: z.object({ type: z.literal('LineString'), coordinates: z.array(position).min(2) }),
    }),
  ),
});

function round(value) {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** Rounds every vertex and drops the consecutive duplicates rounding creates. */
function trimLine(coordinates) {
  const out = [];
  for (const [lon, lat] of coordinates) {
    const point = [round(lon), round(lat)];
    const previous = out.at(-1);
    if (!previous || previous[0] !== point[0] || previous[1] !== point[1]) out.push(point);
  }
  return out;
}

function lengthM(coordinates) {
  let total = 0;
  for (let i = 1; i < coordinates.length; i++) {
    const [lon1, lat1] = coordinates[i - 1];
    const [lon2, lat2] = coordinates[i];
    const meanLat = (((lat1 + lat2) / 2) * Math.PI) / 180;
    const dx = ((lon2 - lon1) * Math.PI * 6_371_008 * Math.cos(meanLat)) / 180;
    const dy = ((lat2 - lat1) * Math.PI * 6_371_008) / 180;
    total += Math.hypot(dx, dy);
  }
  return total;
}

if (!existsSync(sourceDir)) {
  console.error(`derive-basemap: source directory ${sourceDir} not found; pass it as the first argument.`);
  process.exit(1);
}

for (const city of cities) {
  const sourcePath = join(sourceDir, `${city}-roads.geojson`);
  const source = sourceSchema.parse(JSON.parse(readFileSync(sourcePath, 'utf8')));
  const features = [];
  let droppedShort = 0;
  for (const feature of source.features) {
    const coordinates = trimLine(feature.geometry.coordinates);
    if (coordinates.length < 2) {
      droppedShort++;
      continue;
    }
    if (feature.properties.name === null && lengthM(coordinates) < minUnnamedLengthM) {
      droppedShort++;
      continue;
    }
    features.push({
      type: 'Feature',
      properties: { name: feature.properties.name, class: feature.properties.class },
      geometry: { type: 'LineString', coordinates },
    });
  }
  const collection = {
    type: 'FeatureCollection',
    attribution: '© OpenStreetMap contributors (ODbL 1.0)',
    features,
  };
  const outputPath = join(outputDir, `${city}-roads.geojson`);
  // One feature per line: compact, yet a diff of a regenerated file stays readable.
  const body = `{"type":"FeatureCollection","attribution":${JSON.stringify(collection.attribution)},"features":[\n${features
    .map((feature) => JSON.stringify(feature))
    .join(',\n')}\n]}\n`;
  writeFileSync(outputPath, body);
  console.log(
    `${city}: ${source.features.length} source lines → ${features.length} kept (${droppedShort} unnamed under ${minUnnamedLengthM} m or degenerate dropped), ${Buffer.byteLength(body)} bytes → ${outputPath}`,
  );
}
