import type { Booking, FleetUpdate } from '@vigia/core';

/**
 * A taxi's position as the bus carries it (`fleet` messages): a free DF taxi of operator `coop`,
 * stopped at `at`, sampled now; `fields` say what differs. Kept apart from support.ts so the
 * dispatch unit tests do not load a whole system to build one.
 */
export function fleetUpdate(
  vehicleId: string,
  at: { lat: number; lon: number },
  fields: Partial<FleetUpdate> = {},
): FleetUpdate {
  return {
    vehicleId,
    plate: `P-${vehicleId}`,
    operatorId: 'coop',
    pack: 'df-taxi',
    serviceType: 'taxi',
    ts: new Date().toISOString(),
    lat: at.lat,
    lon: at.lon,
    speedKmh: 0,
    headingDeg: null,
    meterState: 'free',
    tariff: null,
    passengers: null,
    doorOpen: null,
    ignition: true,
    ...fields,
  };
}

/** A booking as the bus carries it: a pending booking of `operatorId` in Belém, made now; `fields` say what differs. */
export function busBooking(id: string, operatorId: string, fields: Partial<Booking> = {}): Booking {
  const now = new Date().toISOString();
  return {
    id,
    operatorId,
    pack: 'belem-taxi',
    mode: 'auto',
    status: 'pending',
    pickup: { lat: -1.4526, lon: -48.5036, address: 'Ver-o-Peso' },
    dropoff: null,
    passengers: 1,
    notes: null,
    standId: null,
    vehicleId: null,
    offers: [],
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    acceptedAt: null,
    arrivedAt: null,
    onBoardAt: null,
    completedAt: null,
    cancelledAt: null,
    cancelReason: null,
    expiredAt: null,
    ...fields,
  };
}

/**
 * `vehicleId` at second `second` of a fixed minute, a little further north each second: positions
 * whose order (by time) is the argument's, equal whenever built with the same arguments.
 */
export const positionAtSecond = (vehicleId: string, second: number): FleetUpdate =>
  fleetUpdate(
    vehicleId,
    { lat: -15.79 + second / 10_000, lon: -47.88 },
    { ts: new Date(Date.UTC(2026, 11, 2, 6, 0, second)).toISOString() },
  );
