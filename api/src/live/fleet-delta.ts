import type { FleetUpdate } from '@vigia/core';
import { type FleetDeltaField, fleetDeltaFields } from './live-protocol.js';

/** One vehicle in a `fleet-delta` push: its id, its sample's time, and the fields that changed. */
export type FleetDeltaRow = { id: string; t: number } & Partial<Pick<FleetUpdate, FleetDeltaField>>;

/** A `fleet-delta` push: `t` of each row is milliseconds after `base` (epoch ms). */
export interface FleetDelta {
  base: number;
  rows: FleetDeltaRow[];
}

/**
 * What one socket was last sent of each vehicle, so that the next push carries only what changed:
 * a moving taxi's row is its id, time, position, speed and heading, not its plate, pack, operator
 * and meter again. Held for the socket's life (at most its scope's fleet); a new socket starts
 * from nothing, so a reconnecting client gets every field again.
 */
export class FleetDeltaEncoder {
  private readonly sent = new Map<string, FleetUpdate>();

  /** What this socket was last sent of the vehicle, if anything. */
  lastSent(vehicleId: string): FleetUpdate | undefined {
    return this.sent.get(vehicleId);
  }

  /** The rows of these updates; one no newer than, or identical to, what was sent is left out. */
  encode(updates: Iterable<FleetUpdate>): FleetDelta | null {
    const rows: FleetDeltaRow[] = [];
    let base = Number.POSITIVE_INFINITY;
    const times: number[] = [];
    for (const update of updates) {
      const before = this.sent.get(update.vehicleId);
      const t = Date.parse(update.ts);
      if (before !== undefined && (before === update || Date.parse(before.ts) > t)) continue;
      const row = rowOf(update, before, t);
      if (row === null) continue;
      this.sent.set(update.vehicleId, update);
      rows.push(row);
      times.push(t);
      if (t < base) base = t;
    }
    if (rows.length === 0) return null;
    rows.forEach((row, index) => {
      row.t = (times[index] as number) - base;
    });
    return { base, rows };
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
