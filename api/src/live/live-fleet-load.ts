import { type FleetUpdate, fleetUpdateSchema } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import { z } from 'zod';

/** A row of the query below: the update's fields, the time as the driver returns it. */
const liveRowSchema = fleetUpdateSchema.extend({ ts: z.date().transform((ts) => ts.toISOString()) });

/**
 * Every vehicle's newest stored sample (`vehicle_live`) as the update `/live` pushes for it, retired
 * vehicles left out: what the live hub reads when the bus resumes after an outage, to make up for
 * the `fleet` messages it may have missed. Checked against the bus's own schema, so what it pushes
 * has the shape the ingest publishes.
 */
export async function loadFleetUpdates(db: Queryable): Promise<FleetUpdate[]> {
  const { rows } = await db.query<unknown>(
    `SELECT v.id AS "vehicleId", v.plate, v.operator_id AS "operatorId", v.pack, v.service_type AS "serviceType",
            l.ts, l.lat, l.lon, l.speed_kmh AS "speedKmh", l.heading_deg AS "headingDeg",
            l.meter_state AS "meterState", l.meter_tariff AS "tariff", l.passengers, l.door_open AS "doorOpen",
            l.ignition
       FROM vehicle_live l JOIN vehicles v ON v.id = l.vehicle_id
      WHERE v.retired_at IS NULL`,
  );
  return rows.map((row) => liveRowSchema.parse(row));
}
