import type { Row } from './collection.js';

/** The `live` part of a vehicle (shared/API.md "Live state"), joined from vehicle_live. */
export const liveJoin = {
  select: `l.ts AS "liveTs", l.lat AS "liveLat", l.lon AS "liveLon", l.speed_kmh AS "liveSpeedKmh",
    l.heading_deg AS "liveHeadingDeg", l.meter_state AS "liveMeterState", l.meter_tariff AS "liveTariff",
    l.passengers AS "livePassengers", l.door_open AS "liveDoorOpen", l.ignition AS "liveIgnition"`,
  join: 'LEFT JOIN vehicle_live l ON l.vehicle_id = t.id',
};

export interface VehicleLive {
  ts: string;
  lat: number;
  lon: number;
  speedKmh: number | null;
  headingDeg: number | null;
  meterState: string | null;
  tariff: number | null;
  passengers: number | null;
  doorOpen: boolean | null;
  ignition: boolean | null;
  online: boolean;
}

export function withLive(row: Row, offlineAfterS: number, now = Date.now()): Row {
  const {
    liveTs,
    liveLat,
    liveLon,
    liveSpeedKmh,
    liveHeadingDeg,
    liveMeterState,
    liveTariff,
    livePassengers,
    liveDoorOpen,
    liveIgnition,
    ...vehicle
  } = row;
  if (!(liveTs instanceof Date)) return { ...vehicle, live: null };
  const live: VehicleLive = {
    ts: liveTs.toISOString(),
    lat: liveLat as number,
    lon: liveLon as number,
    speedKmh: liveSpeedKmh as number | null,
    headingDeg: liveHeadingDeg as number | null,
    meterState: liveMeterState as string | null,
    tariff: liveTariff as number | null,
    passengers: livePassengers as number | null,
    doorOpen: liveDoorOpen as boolean | null,
    ignition: liveIgnition as boolean | null,
    online: now - liveTs.getTime() <= offlineAfterS * 1000,
  };
  return { ...vehicle, live };
}
