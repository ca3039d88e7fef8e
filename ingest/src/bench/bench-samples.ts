/**
 * The benchmark's telemetry: taxis of the registered bench fleet (`BENCH-<n>` devices in vehicles
 * `v<n>`, pack df-taxi), hired and moving, one sample a second per device. Shared by the HTTP load
 * generator (request bodies) and the bare COPY (the same rows as text), so the two load the same
 * kind of rows.
 */

/** One record of `POST /v1/telemetry` as the bench sends it. */
export interface BenchSample {
  deviceId: string;
  ts: string;
  lat: number;
  lon: number;
  speedKmh: number;
  headingDeg: number;
  ignition: boolean;
  passengers: number;
  meter: { state: 'hired'; tariff: 1; fareCents: number; tripId: string };
  tacho: { speedKmh: number; driverId: string };
}

export const benchDeviceIdentifier = (d: number) => `BENCH-${d}`;

/**
 * `count` samples spread over `devices` devices in turn, sample `i` for device `i % devices`, one
 * second apart per device from `dayStartMs`. Every scenario uses a day of its own, so no
 * scenario's rows duplicate another's and each one's rows can be counted by their day.
 */
export function makeSamples(count: number, devices: number, dayStartMs: number): BenchSample[] {
  return Array.from({ length: count }, (_, i) => {
    const d = i % devices;
    const step = Math.floor(i / devices);
    return {
      deviceId: benchDeviceIdentifier(d),
      ts: new Date(dayStartMs + step * 1000).toISOString(),
      lat: -15.79 + step * 1e-5,
      lon: -47.88 + d * 1e-3,
      speedKmh: 40,
      headingDeg: 90,
      ignition: true,
      passengers: 2,
      meter: { state: 'hired', tariff: 1, fareCents: 500 + step, tripId: `t-${d}` },
      tacho: { speedKmh: 39, driverId: `D-${d}` },
    };
  });
}

/** The device index in a bench identifier (`BENCH-17` → 17). */
const deviceIndex = (s: BenchSample) => s.deviceId.slice('BENCH-'.length);

/** The column list of `copyLine`, for `COPY telemetry (…) FROM STDIN`. */
export const COPY_COLUMNS = `ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, heading_deg, accuracy_m,
  ignition, door_open, passengers, children_under7, boardings, alightings, meter_state, meter_tariff,
  meter_fare_cents, meter_trip_id, tacho_speed_kmh, tacho_driver_id, dist_m, dt_s`;

/** A sample as a line of COPY's text format, in the columns of COPY_COLUMNS, stored as ingest would. */
export function copyLine(s: BenchSample, receivedAt: string): string {
  const d = deviceIndex(s);
  return `${s.ts}\td${d}\tv${d}\t${receivedAt}\t${s.lat}\t${s.lon}\t${s.speedKmh}\t${s.headingDeg}\t\\N\tt\t\\N\t${s.passengers}\t\\N\t\\N\t\\N\thired\t1\t${s.meter.fareCents}\t${s.meter.tripId}\t${s.tacho.speedKmh}\t${s.tacho.driverId}\t0\t0\n`;
}
