import { Readable } from 'node:stream';
import { AppError } from '@vigia/core';
import { CsvError, parse } from 'csv-parse';
import { type ImportLimits, importTooLarge } from './import-limits.js';

/**
 * The rows of an imported CSV, parsed while the text streams in (csv-parse's streaming API):
 * the text's bytes and the data rows are counted as they come and the read fails with 413
 * `IMPORT_TOO_LARGE` when either passes its limit. A row (or an unclosed quote swallowing the
 * rest of the file) longer than `MAX_ROW_CHARS` fails as well: no registry record comes near.
 */
const MAX_ROW_CHARS = 64 * 1024;

export interface CsvRowOptions {
  /** Accept quotes inside unquoted fields (GTFS producers write them). */
  relaxQuotes?: boolean;
  /** Which file the MALFORMED_CSV message names, e.g. `stops.txt`. */
  name: string;
}

export async function* csvRows(
  text: AsyncIterable<Uint8Array | string>,
  limits: ImportLimits,
  options: CsvRowOptions,
): AsyncGenerator<Record<string, string>> {
  async function* counted() {
    let bytes = 0;
    for await (const chunk of text) {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (bytes > limits.maxCsvBytes) throw importTooLarge(limits, 'maxCsvBytes');
      yield typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      // Inflating and parsing chain through promises, which never let the event loop reach its
      // I/O on their own: one turn per chunk keeps other requests (`/health`) answered.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  // One chunk read ahead at most: the source is pulled only as fast as rows are parsed.
  const input = Readable.from(counted(), { highWaterMark: 1 });
  const parser = parse({
    columns: true,
    skip_empty_lines: true,
    trim: true,
    bom: true,
    relax_quotes: options.relaxQuotes ?? false,
    max_record_size: MAX_ROW_CHARS,
  });
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  let rows = 0;
  try {
    for await (const row of parser as AsyncIterable<Record<string, string>>) {
      rows++;
      if (rows > limits.maxRows) throw importTooLarge(limits, 'maxRows');
      yield row;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof CsvError && err.code === 'CSV_MAX_RECORD_SIZE') {
      throw new AppError(
        'IMPORT_TOO_LARGE',
        `A row of ${options.name} is longer than ${MAX_ROW_CHARS} characters`,
        413,
      );
    }
    throw new AppError('MALFORMED_CSV', `${options.name} cannot be read: ${(err as Error).message}`, 400);
  } finally {
    input.destroy();
    parser.destroy();
  }
}
