import type { Telemetry } from '@vigia/core';

/**
 * A stored-shape telemetry record for tests that give records to the writer or the store
 * directly: who, when and where are the caller's; every other reading is a hired taxi's at 30 km/h
 * unless `over` says otherwise.
 */
export function telemetryRecord(
  fields: Pick<Telemetry, 'deviceId' | 'vehicleId' | 'ts' | 'lat' | 'lon'> & Partial<Telemetry>,
): Telemetry {
  return {
    receivedAt: new Date(),
    speedKmh: 30,
    headingDeg: 90,
    accuracyM: null,
    ignition: true,
    doorOpen: null,
    passengers: 1,
    childrenUnder7: null,
    boardings: null,
    alightings: null,
    meterState: 'hired',
    meterTariff: 1,
    meterFareCents: 500,
    meterTripId: 'trip-1',
    tachoSpeedKmh: null,
    tachoDriverId: null,
    ...fields,
  };
}
