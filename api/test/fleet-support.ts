import type { FleetUpdate } from '@vigia/core';

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
