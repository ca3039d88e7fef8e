import type { Queryable } from '@vigia/db';

/** A dispatch as stored (`dispatches` table). */
export interface DispatchRow {
  id: string;
  ts: string;
  radio_operator_id: string;
  vehicle_id: string;
  pickup_lat: number | null;
  pickup_lon: number | null;
  reference: string | null;
}

/**
 * A dispatch as reported (`POST /v1/dispatches`) or made (an accepted booking offer): what is
 * stored, and what the rule pipeline judges (`RulePipeline.onDispatches`).
 */
export interface Dispatch {
  id: string;
  ts: Date;
  radioOperatorId: string;
  vehicleId: string;
  lat: number | null;
  lon: number | null;
  tripId: string | null;
}

/** The row a dispatch is stored as. */
export function dispatchRow(d: Dispatch): DispatchRow {
  return {
    id: d.id,
    ts: d.ts.toISOString(),
    radio_operator_id: d.radioOperatorId,
    vehicle_id: d.vehicleId,
    pickup_lat: d.lat,
    pickup_lon: d.lon,
    reference: d.tripId,
  };
}

/** What the scope check needs to know of a vehicle named in a dispatch. */
export interface DispatchVehicle {
  id: string;
  pack: string;
  operatorId: string | null;
}

/**
 * The SQL of dispatches: the vehicles one names, and the insert. On the database or inside a
 * caller's transaction (the booking service stores an accepted offer's dispatch with the acceptance).
 */
export class DispatchStore {
  constructor(private readonly db: Queryable) {}

  /** The registered vehicles among `ids` (retired ones too: a dispatch may predate the retirement). */
  async vehicles(ids: readonly string[]): Promise<Map<string, DispatchVehicle>> {
    const { rows } = await this.db.query<DispatchVehicle>(
      'SELECT id, pack, operator_id AS "operatorId" FROM vehicles WHERE id = ANY($1::text[])',
      [[...new Set(ids)]],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /**
   * Which of `vehicleIds` the current operators `operatorIds` have declared (Belém Art. 44 I:
   * a radio operator declares the vehicles it serves), whether or not they are registered.
   */
  async declaredBy(operatorIds: readonly string[], vehicleIds: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT DISTINCT v AS id FROM operators o, unnest(o.declared_vehicle_ids) AS v
       WHERE o.id = ANY($1::text[]) AND o.retired_at IS NULL AND v = ANY($2::text[])`,
      [[...operatorIds], [...new Set(vehicleIds)]],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** The stored dispatches among `ids`, with what identifies them. */
  async existing(
    ids: readonly string[],
  ): Promise<Map<string, Pick<DispatchRow, 'radio_operator_id' | 'vehicle_id' | 'ts'>>> {
    const { rows } = await this.db.query<{
      id: string;
      radio_operator_id: string;
      vehicle_id: string;
      ts: Date | string;
    }>('SELECT id, radio_operator_id, vehicle_id, ts FROM dispatches WHERE id = ANY($1::text[])', [[...new Set(ids)]]);
    return new Map(
      rows.map((r) => [
        r.id,
        { radio_operator_id: r.radio_operator_id, vehicle_id: r.vehicle_id, ts: new Date(r.ts).toISOString() },
      ]),
    );
  }

  /** Stores the dispatches; returns the ids that were new (a re-sent id is stored once). */
  async insert(rows: readonly DispatchRow[]): Promise<Set<string>> {
    const { rows: inserted } = await this.db.query<{ id: string }>(
      `INSERT INTO dispatches (id, ts, radio_operator_id, vehicle_id, pickup_lat, pickup_lon, reference)
       SELECT id, ts, radio_operator_id, vehicle_id, pickup_lat, pickup_lon, reference
       FROM jsonb_populate_recordset(NULL::dispatches, $1::jsonb)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [JSON.stringify(rows)],
    );
    return new Set(inserted.map((r) => r.id));
  }
}
