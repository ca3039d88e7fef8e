import { endianness } from 'node:os';
import type { FleetUpdate } from '@vigia/core';
import { type FleetDeltaField, fleetDeltaFields, movesRecordFields } from './live-protocol.js';

const bigEndian = endianness() === 'BE';

/**
 * One vehicle in a `fleet-delta` push: its id, its sample's time, and the fields that changed;
 * `i`, on a packed socket, is the vehicle's index there (what `moves` records refer to).
 */
export type FleetDeltaRow = { id: string; t: number; i?: number } & Partial<Pick<FleetUpdate, FleetDeltaField>>;

/** A `fleet-delta` push: `t` of each row is milliseconds after `base` (epoch ms). */
export interface FleetDelta {
  base: number;
  rows: FleetDeltaRow[];
  /** Packed sockets only, when some vehicles only moved: see `movesRecordFields` (live-protocol.ts). */
  moves?: Buffer;
}

/**
 * The row fields a `moves` record carries (the record's index `i` stands for the row's `id`): a
 * row changing nothing else can travel as one.
 */
const movedOnly = new Set<string>(['id', ...movesRecordFields.filter((field) => field !== 'i')]);
const recordLength = movesRecordFields.length;

/**
 * What one socket was last sent of each vehicle, so that the next push carries only what changed:
 * a moving taxi's row is its id, time, position, speed and heading, not its plate, pack, operator
 * and meter again. Held for the socket's life (at most its scope's fleet); a new socket starts
 * from nothing, so a reconnecting client gets every field again.
 */
export class FleetDeltaEncoder {
  private readonly sent = new Map<string, FleetUpdate>();
  /** Packed only: each vehicle's index on this socket, given in its first row. */
  private readonly indexOf = new Map<string, number>();

  /** `packed`: vehicles that only moved go in the binary `moves` instead of a row each. */
  constructor(private readonly packed = false) {}

  /** What this socket was last sent of the vehicle, if anything. */
  lastSent(vehicleId: string): FleetUpdate | undefined {
    return this.sent.get(vehicleId);
  }

  /** The rows of these updates; one no newer than, or identical to, what was sent is left out. */
  encode(updates: Iterable<FleetUpdate>): FleetDelta | null {
    const rows: FleetDeltaRow[] = [];
    const rowTimes: number[] = [];
    const moved: FleetUpdate[] = [];
    const moveTimes: number[] = [];
    let base = Number.POSITIVE_INFINITY;
    for (const update of updates) {
      const before = this.sent.get(update.vehicleId);
      const t = Date.parse(update.ts);
      if (before !== undefined && (before === update || Date.parse(before.ts) > t)) continue;
      const row = rowOf(update, before, t);
      if (row === null) continue;
      this.sent.set(update.vehicleId, update);
      if (t < base) base = t;
      if (this.packed && before !== undefined && Object.keys(row).every((key) => movedOnly.has(key))) {
        moved.push(update);
        moveTimes.push(t);
        continue;
      }
      if (this.packed) row.i = this.indexFor(update.vehicleId);
      rows.push(row);
      rowTimes.push(t);
    }
    if (rows.length === 0 && moved.length === 0) return null;
    rows.forEach((row, index) => {
      row.t = (rowTimes[index] as number) - base;
    });
    if (moved.length === 0) return { base, rows };
    const records = new Float64Array(moved.length * recordLength);
    moved.forEach((update, index) => {
      const o = index * recordLength;
      records[o] = this.indexFor(update.vehicleId);
      records[o + 1] = (moveTimes[index] as number) - base;
      records[o + 2] = update.lat;
      records[o + 3] = update.lon;
      records[o + 4] = update.speedKmh ?? Number.NaN;
      records[o + 5] = update.headingDeg ?? Number.NaN;
    });
    const moves = Buffer.from(records.buffer, records.byteOffset, records.byteLength);
    // The contract says little-endian (api/API.md); a typed array has the platform's order.
    if (bigEndian) moves.swap64();
    return { base, rows, moves };
  }

  private indexFor(vehicleId: string): number {
    let index = this.indexOf.get(vehicleId);
    if (index === undefined) {
      index = this.indexOf.size;
      this.indexOf.set(vehicleId, index);
    }
    return index;
  }
}

/** Null when nothing changed at all (the same sample again). */
function rowOf(update: FleetUpdate, before: FleetUpdate | undefined, t: number): FleetDeltaRow | null {
  const row: FleetDeltaRow = { id: update.vehicleId, t };
  let changed = before === undefined || Date.parse(before.ts) !== t;
  for (const field of fleetDeltaFields) {
    if (before !== undefined && before[field] === update[field]) continue;
    // Each field keeps its own type; TypeScript cannot follow that through a loop over keys.
    (row as Record<string, unknown>)[field] = update[field];
    changed = true;
  }
  return changed ? row : null;
}
