import { AppError } from '@vigia/core';
import { parse } from 'csv-parse/sync';

/**
 * The vehicle CSV import: a header row with the API's field names (camelCase), one vehicle per
 * row. `driverIds` holds ids separated by `;`. Empty cells are absent fields. Numbers and booleans
 * are converted here so the same zod schema as `POST /v1/vehicles` judges every row.
 */
const numericFields = new Set(['capacity', 'manufactureYear', 'modelYear']);
/** `true`/`false` (any case) become booleans; anything else is left for the schema to reject. */
const booleanFields = new Set(['tachographLinked', 'specialTariffService']);

export function vehiclesFromCsv(text: string): Record<string, unknown>[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (err) {
    throw new AppError('MALFORMED_CSV', `The CSV cannot be read: ${(err as Error).message}`, 400);
  }
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [field, cell] of Object.entries(row)) {
      if (cell === '') continue;
      if (numericFields.has(field)) out[field] = /^-?\d+$/.test(cell) ? Number(cell) : cell;
      else if (booleanFields.has(field))
        out[field] = /^(true|false)$/i.test(cell) ? cell.toLowerCase() === 'true' : cell;
      else if (field === 'driverIds')
        out[field] = cell
          .split(';')
          .map((s) => s.trim())
          .filter(Boolean);
      else out[field] = cell;
    }
    return out;
  });
}
