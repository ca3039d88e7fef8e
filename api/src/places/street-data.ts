import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RoadFeature, roadsFileSchema, StreetIndex } from './street-index.js';

/**
 * The street data the dashboard's offline map draws (dashboard/public/basemap, ODbL, see its
 * SOURCES.md), from api/src or api/dist alike: the reverse lookup answers from the same streets
 * the map shows. PLACES_STREET_DATA_DIR points elsewhere (a deployment with its own extracts).
 */
export const STREET_DATA_DIR = fileURLToPath(new URL('../../../dashboard/public/basemap/', import.meta.url));

export interface LoadedStreets {
  index: StreetIndex;
  /** The files read, by name. */
  files: string[];
  /** Reading and validating the files, then building the index, in milliseconds. */
  readMs: number;
  buildMs: number;
}

const loaded = new Map<string, Promise<LoadedStreets>>();

/**
 * The street data of a directory, read once per process: the files ship with the product and do
 * not change while it runs (a test process starts many systems on the same files).
 */
export function streetsOf(dir: string = STREET_DATA_DIR): Promise<LoadedStreets> {
  let streets = loaded.get(dir);
  if (!streets) {
    streets = loadStreets(dir);
    loaded.set(dir, streets);
    // A failed read is not kept: the next start reads again.
    streets.catch(() => loaded.delete(dir));
  }
  return streets;
}

/**
 * Reads every `*-roads.geojson` of the directory (zod-validated: a malformed file fails start-up
 * with its name, rather than answer wrong streets) and indexes their segments. A missing
 * directory or one without road files gives an empty index: every lookup answers no street.
 */
export async function loadStreets(dir: string = STREET_DATA_DIR): Promise<LoadedStreets> {
  const started = performance.now();
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('-roads.geojson')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    names = [];
  }
  const features: RoadFeature[] = [];
  for (const name of names) {
    const parsed = roadsFileSchema.safeParse(JSON.parse(await readFile(join(dir, name), 'utf8')));
    if (!parsed.success) {
      throw new Error(`Street data ${join(dir, name)} is not a roads FeatureCollection: ${parsed.error.message}`);
    }
    features.push(...parsed.data.features);
  }
  const read = performance.now();
  const index = new StreetIndex(features);
  return { index, files: names, readMs: read - started, buildMs: performance.now() - read };
}
