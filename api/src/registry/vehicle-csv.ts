import { csvRows } from './csv-rows.js';
import type { ImportLimits } from './import-limits.js';

/**
 * The vehicle CSV import: a header row with the API's field names (camelCase), one vehicle per
 * row. `driverIds` holds ids separated by `;`. Empty cells are absent fields. Numbers and booleans
 * are converted here so the same zod schema as `POST /v1/vehicles` judges every row. The CSV is
 * read as it streams in, within `ImportLimits`.
 */
const numericFields = new Set(['capacity', 'manufactureYear', 'modelYear']);
/** `true`/`false` (any case) become booleans; anything else is left for the schema to reject. */
const booleanFields = new Set(['tachographLinked', 'specialTariffService']);

export async function vehiclesFromCsv(
  text: AsyncIterable<Uint8Array | string>,
  limits: ImportLimits,
): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for await (const row of csvRows(text, limits, { name: 'The CSV' })) {
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
    records.push(out);
  }
  return records;
}
