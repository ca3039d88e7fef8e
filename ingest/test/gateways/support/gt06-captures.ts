import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The GT06 frames captured from real trackers in Brazil (shared/data/gt06_brazil_captures, see
 * shared/data/SOURCES.md): three server logs, one row per TCP read, and the author's decoded
 * values for one of them. The shared data lives beside the project, not in it (it carries no
 * licence to copy): without it the tests that need it are skipped, saying why.
 */
export const CAPTURES_DIR = fileURLToPath(new URL('../../../../../shared/data/gt06_brazil_captures/', import.meta.url));
export const capturesAvailable = existsSync(CAPTURES_DIR);
if (!capturesAvailable) console.warn(`Skipping the GT06 captures: ${CAPTURES_DIR} is absent (shared data not mounted)`);

/** One TCP read as the server logged it: often one packet, sometimes several (a device re-sending). */
export interface CapturedRead {
  file: string;
  /** Row number in the file, header = 1. */
  line: number;
  /** Server time of the read, as logged (Brasília time, UTC−3). */
  at: string;
  bytes: Buffer;
  /** Where the logs say (869412074480093.csv only): a new value is a new TCP connection. */
  source?: string;
}

export const CAPTURE_FILES = {
  withSources: '869412074480093.csv',
  commands: '865209071843271.csv',
  third: '0865209077296813.csv',
  decoded: '869412074480093_decoded.csv',
} as const;

/** RFC 4180 enough for these files: quoted fields without embedded newlines. */
export function parseCsv(text: string): Record<string, string>[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
  const split = (line: string): string[] => {
    const out: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') {
          field += '"';
          i++;
        } else if (c === '"') quoted = false;
        else field += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') {
        out.push(field);
        field = '';
      } else field += c;
    }
    out.push(field);
    return out;
  };
  const [header, ...rows] = lines.map(split);
  return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
}

export function readCaptures(file: string): CapturedRead[] {
  const rows = parseCsv(readFileSync(`${CAPTURES_DIR}${file}`, 'utf8'));
  return rows.map((r, i) => {
    const hex = r.hex_data ?? r.lmsmensagem ?? '';
    const source = r.lmsiporigem ? `${r.lmsiporigem}:${r.lmsportaorigem}` : undefined;
    return {
      file,
      line: i + 2,
      at: r['Data/Hora Inclusão'] ?? r.lmsdatahorainc ?? '',
      bytes: Buffer.from(hex, 'hex'),
      ...(source ? { source } : {}),
    };
  });
}

export function readDecoded(): Record<string, string>[] {
  return parseCsv(readFileSync(`${CAPTURES_DIR}${CAPTURE_FILES.decoded}`, 'utf8'));
}
