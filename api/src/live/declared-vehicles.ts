import type { Queryable } from '@vigia/db';

/**
 * The vehicles these operators declared (`operators.declared_vehicle_ids`: a Belém radio
 * operator's taxis, Art. 42–44, which belong to other cooperatives), for the live hub's rooms.
 */
export function declaredVehiclesOf(db: Queryable): (operatorIds: readonly string[]) => Promise<string[]> {
  return async (operatorIds) => {
    const { rows } = await db.query<{ id: string }>(
      `SELECT DISTINCT unnest(declared_vehicle_ids) AS id FROM operators
        WHERE id = ANY($1::text[]) AND retired_at IS NULL`,
      [operatorIds],
    );
    return rows.map((row) => row.id);
  };
}
