import { addressMessages as t } from './address-messages.js';
import type { ApiClient } from './api-client.js';
import { element, valueElement } from './dom.js';
import { distanceLabel } from './field-geo.js';
import { bboxContains, servedAreaAt } from './served-areas.js';
import { isRecord } from './violation-guards.js';

/**
 * Addresses for the popups (issue 11 item 2): where a point is, in two lines, the street and the
 * registered place first, the coordinates second, from `GET /v1/places/reverse`
 * (api/src/places/README.md: the same street data the offline map draws).
 *
 * Lookups are cached by the point rounded to 4 decimals (about 11 m, what a GPS fix is good for),
 * and the rounded point is what is asked, so a cached answer is exactly the one for its key; a
 * lookup already on its way is shared, not sent again. A failed lookup is not cached: the next
 * call asks again.
 */

/** `GET /v1/places/reverse`'s answer. */
export interface ReverseAnswer {
  street: { name: string | null; class: string; distanceM: number } | null;
  place: { kind: 'stop' | 'stand' | 'zone'; id: string; name: string; distanceM: number } | null;
}

/** What a popup shows of a point: `first` the street (and place), `second` the coordinates. */
export interface AddressLines {
  first: string;
  second: string;
  /** The API's answer; null when the lookup failed (`first` then says the address is unavailable). */
  answer: ReverseAnswer | null;
}

/** What a lookup needs of the API client. */
export type PlacesClient = Pick<ApiClient, 'getJson'>;

const decimals = 4;
/** Enough for every point on screen and a vehicle followed for a while; the oldest go first. */
const maxCached = 500;
/** A street nearer than this is the one the point is on; farther, the line says how far. */
const onStreetM = 25;

const cache = new Map<string, Promise<ReverseAnswer>>();

function isReverseAnswer(value: unknown): value is ReverseAnswer {
  if (!isRecord(value)) return false;
  const { street, place } = value;
  const streetOk =
    street === null ||
    (isRecord(street) &&
      (street.name === null || typeof street.name === 'string') &&
      typeof street.class === 'string' &&
      typeof street.distanceM === 'number');
  const placeOk =
    place === null ||
    (isRecord(place) &&
      ['stop', 'stand', 'zone'].includes(String(place.kind)) &&
      typeof place.id === 'string' &&
      typeof place.name === 'string' &&
      typeof place.distanceM === 'number');
  return streetOk && placeOk;
}

function lookup(client: PlacesClient, lat: number, lon: number): Promise<ReverseAnswer> {
  const qLat = lat.toFixed(decimals);
  const qLon = lon.toFixed(decimals);
  const key = `${qLat},${qLon}`;
  const cached = cache.get(key);
  if (cached) {
    // Recently used: to the back of the eviction order.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const request = client
    .getJson<unknown>(`/v1/places/reverse?${new URLSearchParams({ lat: qLat, lon: qLon })}`)
    .then((body) => {
      if (!isReverseAnswer(body)) throw new Error('Unexpected answer from /v1/places/reverse');
      return body;
    });
  cache.set(key, request);
  request.catch(() => {
    if (cache.get(key) === request) cache.delete(key);
  });
  for (const oldest of cache.keys()) {
    if (cache.size <= maxCached) break;
    cache.delete(oldest);
  }
  return request;
}

/** No street: where the map's data has none (Belém, outside the covered centres), say so rather than "none near". */
function noStreetText(lat: number, lon: number): string {
  const area = servedAreaAt(lon, lat);
  if (area === null || (area.streetCoverage !== null && bboxContains(area.streetCoverage, lon, lat))) return t.noStreet;
  return t.noStreetData(area.label);
}

/** The first line: the street (how far, when not on it) and the registered place. */
export function firstLine(answer: ReverseAnswer, lat: number, lon: number): string {
  const { street, place } = answer;
  let streetText = street === null ? noStreetText(lat, lon) : (street.name ?? t.unnamedStreet);
  if (street !== null && street.distanceM >= onStreetM)
    streetText = t.streetAt(streetText, distanceLabel(street.distanceM));
  const placeText =
    place === null
      ? null
      : t.place(
          place.name,
          t.placeKinds[place.kind] ?? place.kind,
          place.distanceM >= 5 ? distanceLabel(place.distanceM) : null,
        );
  return t.line(streetText, placeText);
}

/** Where (lat, lon) is, as two lines to show; never rejects (a failed lookup says so in `first`). */
export async function describePlace(client: PlacesClient, lat: number, lon: number): Promise<AddressLines> {
  const second = t.coordinates(lat, lon);
  try {
    const answer = await lookup(client, lat, lon);
    return { first: firstLine(answer, lat, lon), second, answer };
  } catch {
    return { first: t.unavailable, second, answer: null };
  }
}

/**
 * The two lines in the page: built once, then `show` a point (again and again, as a vehicle
 * moves). The coordinates change at once; the first line when its lookup answers, unless another
 * point was shown meanwhile. Asking again for the same rounded point does nothing.
 */
export class AddressView {
  readonly element: HTMLElement;
  private readonly first: HTMLElement;
  private readonly second: HTMLElement;
  private shownKey: string | null = null;

  constructor(className?: string) {
    this.element = element('div', className ? `address-lines ${className}` : 'address-lines');
    this.element.title = t.source;
    this.first = element('div', 'address-lines__street', t.looking);
    // Coordinates are data: the same in every language.
    this.second = valueElement('div', 'address-lines__coordinates', '');
    this.element.append(this.first, this.second);
  }

  show(client: PlacesClient | null, lat: number, lon: number): void {
    this.second.textContent = t.coordinates(lat, lon);
    const key = `${lat.toFixed(decimals)},${lon.toFixed(decimals)}`;
    if (key === this.shownKey) return;
    this.shownKey = key;
    if (client === null) {
      this.first.textContent = t.unavailable;
      return;
    }
    this.first.textContent = t.looking;
    this.element.dataset.state = 'loading';
    void describePlace(client, lat, lon).then((lines) => {
      if (this.shownKey !== key) return;
      this.first.textContent = lines.first;
      this.element.dataset.state = lines.answer ? 'ready' : 'failed';
      // A failed lookup is tried again the next time the point is shown.
      if (!lines.answer) this.shownKey = null;
    });
  }
}

/** Rows waiting to be seen, with their lookup; one observer for every list. */
const pendingLines = new WeakMap<Element, () => void>();
let observer: IntersectionObserver | null = null;

function watch(node: Element, onSeen: () => void): void {
  observer ??= new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      observer?.unobserve(entry.target);
      pendingLines.get(entry.target)?.();
      pendingLines.delete(entry.target);
    }
  });
  pendingLines.set(node, onSeen);
  observer.observe(node);
}

/**
 * The first line alone (street and place), for a row of a list: it looks itself up only once
 * scrolled into view, so a feed of hundreds of rows asks for the few on screen. Empty until then
 * (and never `display: none`, which an IntersectionObserver never sees intersect).
 */
export function lazyStreetLine(
  client: () => PlacesClient | null,
  lat: number,
  lon: number,
  className: string,
): HTMLElement {
  const line = element('span', `address-line ${className}`);
  line.title = t.coordinates(lat, lon);
  const lookUp = (): void => {
    const api = client();
    // Not signed in yet: look again in a moment, while the row is still on screen.
    if (api === null) {
      window.setTimeout(() => watch(line, lookUp), 1000);
      return;
    }
    void describePlace(api, lat, lon).then((lines) => {
      line.textContent = lines.first;
    });
  };
  watch(line, lookUp);
  return line;
}
