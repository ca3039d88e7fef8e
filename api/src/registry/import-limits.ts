import { AppError, type Config } from '@vigia/core';

/**
 * The bounds every import is read within. Imports are the only requests whose body can be
 * large, and a zip can inflate a thousandfold: each bound is checked while the body streams in,
 * so a request is refused (413 `IMPORT_TOO_LARGE`) the moment it passes one, with at most one
 * small slice of it in memory. The message names the variable that raises the bound.
 */
export interface ImportLimits {
  /** Bytes of an import body as sent (a GTFS zip, a CSV): `IMPORT_MAX_BODY_BYTES`. */
  maxBodyBytes: number;
  /** Uncompressed bytes of the CSV an import reads (a CSV body, stops.txt inflated): `IMPORT_MAX_CSV_BYTES`. */
  maxCsvBytes: number;
  /** Data rows of a CSV, features of a GeoJSON FeatureCollection: `IMPORT_MAX_ROWS`. */
  maxRows: number;
  /** Entries of a zip, read in order until the one needed: `IMPORT_MAX_ZIP_ENTRIES`. */
  maxZipEntries: number;
  /** Bytes of a GeoJSON import body (parsed whole, so kept smaller): `IMPORT_MAX_GEOJSON_BYTES`. */
  maxGeoJsonBytes: number;
  /** Imports running at once; the others wait their turn: `IMPORT_MAX_CONCURRENT`. */
  maxConcurrent: number;
}

type SizeLimit = Exclude<keyof ImportLimits, 'maxConcurrent'>;

export function importLimitsFrom(config: Config): ImportLimits {
  return {
    maxBodyBytes: config.IMPORT_MAX_BODY_BYTES,
    maxCsvBytes: config.IMPORT_MAX_CSV_BYTES,
    maxRows: config.IMPORT_MAX_ROWS,
    maxZipEntries: config.IMPORT_MAX_ZIP_ENTRIES,
    maxGeoJsonBytes: config.IMPORT_MAX_GEOJSON_BYTES,
    maxConcurrent: config.IMPORT_MAX_CONCURRENT,
  };
}

/** What each limit is called in messages, and the variable that sets it. */
const described = {
  maxBodyBytes: ['bytes in the request body', 'IMPORT_MAX_BODY_BYTES'],
  maxCsvBytes: ['bytes of CSV (uncompressed)', 'IMPORT_MAX_CSV_BYTES'],
  maxRows: ['rows or features', 'IMPORT_MAX_ROWS'],
  maxZipEntries: ['entries in the zip', 'IMPORT_MAX_ZIP_ENTRIES'],
  maxGeoJsonBytes: ['bytes of GeoJSON', 'IMPORT_MAX_GEOJSON_BYTES'],
} as const satisfies Record<SizeLimit, readonly [string, string]>;

export function importTooLarge(limits: ImportLimits, limit: SizeLimit): AppError {
  const [what, variable] = described[limit];
  return new AppError(
    'IMPORT_TOO_LARGE',
    `The import passes the limit of ${limits[limit]} ${what} (${variable})`,
    413,
    { limit: variable, value: limits[limit] },
  );
}
