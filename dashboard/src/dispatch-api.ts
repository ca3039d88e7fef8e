import type { ApiClient } from './api-client.js';
import type { OperatorItem, Page, StandItem, StopItem } from './api-types.js';
import {
  type Booking,
  type BookingCandidates,
  type BookingRequest,
  type BookingStatus,
  closedStatuses,
  type StandQueueItem,
  toBooking,
  toBookingCandidates,
} from './dispatch-types.js';

/** The dispatch routes of API.md, over the dashboard's client (its token, timeouts and error contract). */

/** The operators the caller dispatches for: a dispatcher reads only its own (the registry scopes them). */
export interface DispatchOperator extends OperatorItem {
  declaredVehicleIds?: string[] | null;
}

/** Finished bookings shown beside the open ones: the latest few, for the "what happened" glance. */
const closedPageSize = 30;
const openPageSize = 500;

export function listOperators(client: ApiClient): Promise<DispatchOperator[]> {
  return client.listAll<DispatchOperator>('/v1/operators');
}

/**
 * What the console shows: every booking still open (pending to on-board) and the latest closed
 * ones. One request per open status keeps each page small and complete.
 */
export async function loadBookings(client: ApiClient): Promise<Booking[]> {
  const open: BookingStatus[] = ['pending', 'offered', 'accepted', 'arrived', 'on-board'];
  const pages = await Promise.all([
    ...open.map((status) => client.getJson<Page<unknown>>(`/v1/bookings?status=${status}&limit=${openPageSize}`)),
    ...closedStatuses.map((status) =>
      client.getJson<Page<unknown>>(`/v1/bookings?status=${status}&limit=${closedPageSize}`),
    ),
  ]);
  return pages.flatMap((page) => page.items.map(toBooking).filter((booking) => booking !== null));
}

export async function getBooking(client: ApiClient, id: string): Promise<Booking | null> {
  return toBooking(await client.getJson<unknown>(`/v1/bookings/${encodeURIComponent(id)}`));
}

export async function createBooking(client: ApiClient, request: BookingRequest): Promise<Booking | null> {
  return toBooking(await client.sendJson<unknown>('POST', '/v1/bookings', request));
}

export async function cancelBooking(client: ApiClient, id: string): Promise<Booking | null> {
  return toBooking(await client.sendJson<unknown>('POST', `/v1/bookings/${encodeURIComponent(id)}/cancel`, {}));
}

export async function assignBooking(client: ApiClient, id: string, vehicleId: string): Promise<Booking | null> {
  return toBooking(
    await client.sendJson<unknown>('POST', `/v1/bookings/${encodeURIComponent(id)}/assign`, { vehicleId }),
  );
}

/** The taxis the server would offer the booking to, in its order, with its ETA (`limit` ≤ 50). */
export async function bookingCandidates(client: ApiClient, id: string, limit: number): Promise<BookingCandidates> {
  const answer = toBookingCandidates(
    await client.getJson<unknown>(`/v1/bookings/${encodeURIComponent(id)}/candidates?limit=${limit}`),
  );
  if (answer === null) throw new Error('unexpected answer');
  return answer;
}

export async function standQueue(client: ApiClient, standId: string): Promise<StandQueueItem[]> {
  const body = await client.getJson<{ items: StandQueueItem[] }>(`/v1/stands/${encodeURIComponent(standId)}/queue`);
  return body.items;
}

/** A place a booking can start from: a stop or a stand, found by name (`q=`, case and accents ignored). */
export interface PlaceMatch {
  kind: 'stop' | 'stand';
  id: string;
  name: string;
  lat: number;
  lon: number;
}

export async function searchPlaces(client: ApiClient, text: string, limit: number): Promise<PlaceMatch[]> {
  const q = encodeURIComponent(text);
  const [stands, stops] = await Promise.all([
    client.getJson<Page<StandItem>>(`/v1/stands?q=${q}&limit=${limit}`),
    client.getJson<Page<StopItem>>(`/v1/stops?q=${q}&limit=${limit}`),
  ]);
  // Stands first: a taxi booking at a stand is the common case, and its queue has priority.
  return [
    ...stands.items.map((stand) => ({ kind: 'stand' as const, id: stand.id, name: stand.name, ...standCentre(stand) })),
    ...stops.items.map((stop) => ({
      kind: 'stop' as const,
      id: stop.id,
      name: stop.name,
      lat: stop.lat,
      lon: stop.lon,
    })),
  ];
}

export function listStands(client: ApiClient): Promise<StandItem[]> {
  return client.listAll<StandItem>('/v1/stands');
}

/** A stand's point, or the mean of its polygon's outer ring (stands are a few dozen metres across). */
export function standCentre(stand: Pick<StandItem, 'geometry'>): { lat: number; lon: number } {
  if (stand.geometry.type === 'Point') {
    const [lon = 0, lat = 0] = stand.geometry.coordinates;
    return { lat, lon };
  }
  const ring = stand.geometry.coordinates[0] ?? [];
  // The ring repeats its first vertex at the end: count it once.
  const vertices = ring.length > 1 ? ring.slice(0, -1) : ring;
  let lat = 0;
  let lon = 0;
  for (const [x = 0, y = 0] of vertices) {
    lon += x;
    lat += y;
  }
  const n = Math.max(1, vertices.length);
  return { lat: lat / n, lon: lon / n };
}
