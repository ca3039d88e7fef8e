import { AppError } from '@vigia/core';
import { parse } from 'csv-parse/sync';
import { unzipSync } from 'fflate';
import { featureCollectionSchema } from './geojson.js';

/**
 * Turning imported files into registry records. Each importer only reshapes: the collection's
 * zod schema then judges every record, exactly as for `POST /v1/<collection>`.
 */

export interface SkippedRow {
  line: number;
  reason: string;
}

/** Finds stops.txt in a GTFS zip (at the top or in one folder). */
export function stopsTxtFromZip(zip: Uint8Array): string {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, { filter: (f) => /(^|\/)stops\.txt$/.test(f.name) });
  } catch (err) {
    throw new AppError('MALFORMED_ZIP', `The zip cannot be read: ${(err as Error).message}`, 400);
  }
  const entry = Object.values(files)[0];
  if (!entry) throw new AppError('GTFS_STOPS_MISSING', 'The GTFS zip has no stops.txt', 400);
  return new TextDecoder().decode(entry);
}

/**
 * GTFS stops.txt → stop records. Only boarding points are kept: `location_type` empty or 0
 * (stop or platform); stations, entrances and nodes are skipped and reported.
 */
export function stopsFromGtfs(
  text: string,
  source: string,
): { records: Record<string, unknown>[]; lines: number[]; skipped: SkippedRow[] } {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true, relax_quotes: true });
  } catch (err) {
    throw new AppError('MALFORMED_CSV', `stops.txt cannot be read: ${(err as Error).message}`, 400);
  }
  const first = rows[0];
  if (first && !['stop_id', 'stop_lat', 'stop_lon'].every((c) => c in first)) {
    throw new AppError('GTFS_COLUMNS_MISSING', 'stops.txt needs the columns stop_id, stop_lat and stop_lon', 400);
  }
  const records: Record<string, unknown>[] = [];
  const lines: number[] = [];
  const skipped: SkippedRow[] = [];
  rows.forEach((row, i) => {
    const line = i + 2;
    const locationType = row.location_type ?? '';
    if (locationType !== '' && locationType !== '0') {
      skipped.push({ line, reason: `location_type ${locationType} is not a boarding point` });
      return;
    }
    const lat = Number(row.stop_lat);
    const lon = Number(row.stop_lon);
    if (!row.stop_id || !Number.isFinite(lat) || !Number.isFinite(lon) || row.stop_lat === '' || row.stop_lon === '') {
      skipped.push({ line, reason: 'no stop_id or coordinates' });
      return;
    }
    records.push({ id: row.stop_id, name: row.stop_name || row.stop_id, lat, lon, source });
    lines.push(line);
  });
  return { records, lines, skipped };
}

/** A GeoJSON FeatureCollection → records: properties are fields, the geometry is `geometry`, a feature id is the id. */
export function recordsFromFeatures(body: unknown, defaults: Record<string, unknown>): Record<string, unknown>[] {
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
