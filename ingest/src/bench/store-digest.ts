/**
 * What a run of telemetry_store() left in a database, as one digest per table: two databases fed
 * the same batches, one with a candidate change to the function, must hold the same rows (a
 * change that makes the statement cheaper must not change a single stored value, the aggregates'
 * floating-point sums included, which depend on the order their rows are added in).
 */
import type pg from 'pg';

/** Each table, its columns (vehicle_live without updated_at, which is the clock's) and its key order. */
const TABLES = [
  ['telemetry', '*', 'device_id, ts'],
  [
    'vehicle_live',
    'vehicle_id, device_id, ts, lat, lon, speed_kmh, heading_deg, meter_state, meter_tariff, passengers, door_open, ignition',
    'vehicle_id',
  ],
  ['vehicle_hourly', '*', 'vehicle_id, bucket'],
  ['vehicle_daily', '*', 'vehicle_id, day'],
  ['pack_hourly', '*', 'pack, bucket'],
  ['pack_daily', '*', 'pack, day'],
] as const;

/** Table → `<rows>:<md5 of every row's text in key order>`. */
export async function storedDigest(client: pg.Client): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  for (const [table, columns, order] of TABLES) {
    const { rows } = await client.query<{ n: number; h: string }>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, ';' ORDER BY ${order}), '')) AS h
       FROM (SELECT ${columns} FROM ${table}) x`,
    );
    digests.set(table, `${rows[0]?.n}:${rows[0]?.h}`);
  }
  return digests;
}

/** The tables whose digests differ (empty: the same rows in both). */
export function differingTables(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...a.keys()].filter((table) => a.get(table) !== b.get(table));
}
