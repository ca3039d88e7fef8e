import { AppError } from '@vigia/core';
import { csvRows } from './csv-rows.js';
import { featureCollectionSchema } from './geojson.js';
import { type ImportLimits, importTooLarge } from './import-limits.js';
import { zipEntry } from './zip-entry.js';

/**
 * Turning imported files into registry records. Each importer only reshapes: the collection's
 * zod schema then judges every record, exactly as for `POST /v1/<collection>`. Files are read
 * as streams within `ImportLimits` (see import-limits.ts).
 */

export interface SkippedRow {
  line: number;
  reason: string;
}

/** The bytes of stops.txt in a streamed GTFS zip (at the top or in one folder), inflated as they arrive. */
export function stopsTxtFromZip(zip: AsyncIterable<Buffer>, limits: ImportLimits): AsyncGenerator<Uint8Array> {
  return zipEntry(
    zip,
    (name) => /(^|\/)stops\.txt$/.test(name),
    limits,
    () => new AppError('GTFS_STOPS_MISSING', 'The GTFS zip has no stops.txt', 400),
  );
}

/**
 * GTFS stops.txt → stop records. Only boarding points are kept: `location_type` empty or 0
 * (stop or platform); stations, entrances and nodes are skipped and reported.
 */
export async function stopsFromGtfs(
  text: AsyncIterable<Uint8Array | string>,
  source: string,
  limits: ImportLimits,
): Promise<{ records: Record<string, unknown>[]; lines: number[]; skipped: SkippedRow[] }> {
  const records: Record<string, unknown>[] = [];
  const lines: number[] = [];
  const skipped: SkippedRow[] = [];
  let line = 1;
  for await (const row of csvRows(text, limits, { name: 'stops.txt', relaxQuotes: true })) {
    line++;
    if (line === 2 && !['stop_id', 'stop_lat', 'stop_lon'].every((c) => c in row)) {
      throw new AppError('GTFS_COLUMNS_MISSING', 'stops.txt needs the columns stop_id, stop_lat and stop_lon', 400);
    }
    const locationType = row.location_type ?? '';
    if (locationType !== '' && locationType !== '0') {
      skipped.push({ line, reason: `location_type ${locationType} is not a boarding point` });
      continue;
    }
    const lat = Number(row.stop_lat);
    const lon = Number(row.stop_lon);
    if (!row.stop_id || !Number.isFinite(lat) || !Number.isFinite(lon) || row.stop_lat === '' || row.stop_lon === '') {
      skipped.push({ line, reason: 'no stop_id or coordinates' });
      continue;
    }
    records.push({ id: row.stop_id, name: row.stop_name || row.stop_id, lat, lon, source });
    lines.push(line);
  }
  return { records, lines, skipped };
}

/**
 * A GeoJSON FeatureCollection → records: properties are fields, the geometry is `geometry`, a
 * feature id is the id. The features are counted before any is validated.
 */
export function recordsFromFeatures(
  body: unknown,
  defaults: Record<string, unknown>,
  limits: ImportLimits,
): Record<string, unknown>[] {
  const features = (body as { features?: unknown } | null)?.features;
  if (Array.isArray(features) && features.length > limits.maxRows) throw importTooLarge(limits, 'maxRows');
  const parsed = featureCollectionSchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError('MALFORMED_GEOJSON', 'Expected a GeoJSON FeatureCollection', 400, parsed.error.issues);
  }
  return parsed.data.features.map((f) => ({
    ...defaults,
    ...(f.id !== undefined ? { id: String(f.id) } : {}),
    ...(f.properties ?? {}),
    geometry: f.geometry,
  }));
}
