import type { RegistryRecordsInput } from './records.js';

type StopInput = NonNullable<RegistryRecordsInput['stops']>[number];

/** Split one CSV record (RFC 4180 quoting: `"a, b"`, doubled quotes inside quotes). */
export function splitCsvRecord(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      if (quoted && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else quoted = !quoted;
    } else if (c === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * Stops from the text of a GTFS `stops.txt` (columns found by header name; a byte-order mark
 * and CRLF line ends are accepted). Rows without a valid position, and stations
 * (`location_type` 1) whose platforms are listed separately, are skipped. Pure: the caller reads
 * the file. Fields with embedded line breaks are not supported (GTFS stop names have none).
 */
export function parseGtfsStops(text: string, source: string, validFrom?: Date): StopInput[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = splitCsvRecord(lines[0] ?? '').map((h) => h.trim());
  const col = (name: string): number => header.indexOf(name);
  const [iId, iName, iLat, iLon, iType] = [
    col('stop_id'),
    col('stop_name'),
    col('stop_lat'),
    col('stop_lon'),
    col('location_type'),
  ];
  if (iId < 0 || iLat < 0 || iLon < 0) throw new Error('stops.txt needs stop_id, stop_lat and stop_lon columns');
  const stops: StopInput[] = [];
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const f = splitCsvRecord(line);
    const lat = Number(f[iLat]);
    const lon = Number(f[iLon]);
    const id = f[iId]?.trim() ?? '';
    if (!id || !Number.isFinite(lat) || !Number.isFinite(lon) || (lat === 0 && lon === 0)) continue;
    if (iType >= 0 && f[iType]?.trim() === '1') continue;
    stops.push({ id, name: iName >= 0 ? (f[iName] ?? '') : '', lat, lon, source, ...(validFrom ? { validFrom } : {}) });
  }
  return stops;
}
