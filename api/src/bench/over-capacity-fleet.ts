/**
 * Violations raised the way the product raises them, many at once: a fleet of DF taxis registered
 * in three requests (operator, vehicles, devices), then a minute of telemetry per taxi carrying 6
 * passengers in 4 seats (DF_OVER_CAPACITY, Art. 24) through `POST /v1/telemetry` and the live
 * rules. A later minute with 3 passengers ends the violation (`violation.updated`). Shared by the
 * alert fault test and the alert latency benchmark.
 */

export interface Client {
  url: string;
  adminToken: string;
}

export interface FleetTaxi {
  vehicleId: string;
  identifier: string;
}

async function call<T>(
  client: Client,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${client.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${client.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** Registers `count` DF taxis (4 seats, papers in order) of one operator, each with a device. */
export async function registerFleet(client: Client, count: number, tag: string): Promise<FleetTaxi[]> {
  const since = new Date(Date.now() - 86_400_000).toISOString();
  const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
  const operatorId = `op-${tag}`;
  const op = await call(client, 'POST', '/v1/operators', {
    id: operatorId,
    name: `Frota ${tag}`,
    pack: 'df-taxi',
    validFrom: since,
  });
  if (op.status !== 201) throw new Error(`operator: ${JSON.stringify(op.body)}`);
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const seed = Math.floor(Math.random() * 26);
  const vehicles = await call<{ id: string }[]>(
    client,
    'POST',
    '/v1/vehicles',
    Array.from({ length: count }, (_, i) => ({
      // Mercosul plates unique within the run: a letter per tag seed, then the index.
      plate: `FLT${i % 10}${letters[(seed + Math.floor(i / 1000)) % 26]}${String(Math.floor(i / 10) % 100).padStart(2, '0')}`,
      pack: 'df-taxi',
      serviceType: 'taxi',
      capacity: 4,
      manufactureYear: new Date().getFullYear() - 2,
      operatorId,
      permitNumber: `P-${tag}-${i}`,
      permitValidUntil: day(300),
      lastInspectionDate: day(-30),
      validFrom: since,
    })),
  );
  if (vehicles.status !== 201) throw new Error(`vehicles: ${JSON.stringify(vehicles.body).slice(0, 500)}`);
  const identifiers = vehicles.body.map((_, i) => `FLEET-${tag}-${i}`);
  const devices = await call(
    client,
    'POST',
    '/v1/devices',
    vehicles.body.map((v, i) => ({ vehicleId: v.id, identifier: identifiers[i] })),
  );
  if (devices.status !== 201) throw new Error(`devices: ${JSON.stringify(devices.body).slice(0, 500)}`);
  return vehicles.body.map((v, i) => ({ vehicleId: v.id, identifier: identifiers[i] ?? '' }));
}

const sample = (taxi: FleetTaxi, t0: number, i: number, passengers: number) => ({
  deviceId: taxi.identifier,
  ts: new Date(t0 + i * 5000).toISOString(),
  lat: -15.7942 + i * 0.0004,
  lon: -47.8822,
  speedKmh: 30,
  passengers,
  meter: { state: 'hired', tariff: 1, fareCents: 600 + i * 20, tripId: `trip-${taxi.vehicleId}` },
});

/** A minute over capacity from `t0` for each taxi: one violation each (sent with the admin token). */
export async function overCapacity(client: Client, taxis: readonly FleetTaxi[], t0: number): Promise<void> {
  await send(
    client,
    taxis.flatMap((t) => Array.from({ length: 12 }, (_, i) => sample(t, t0, i, 6))),
  );
}

/** The same trips go on with 3 passengers: each violation ends (`violation.updated`). */
export async function backWithinCapacity(client: Client, taxis: readonly FleetTaxi[], t0: number): Promise<void> {
  await send(
    client,
    taxis.flatMap((t) => Array.from({ length: 4 }, (_, i) => sample(t, t0, 12 + i, 3))),
  );
}

async function send(client: Client, records: unknown[]): Promise<void> {
  const res = await call<{ accepted: number; rejected: unknown[] }>(client, 'POST', '/v1/telemetry', records);
  if (res.status !== 200 || res.body.accepted !== records.length)
    throw new Error(`telemetry: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
}
