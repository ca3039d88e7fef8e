import type { GeoJSONSource, Map as MapLibreMap } from 'maplibre-gl';
import type { Place } from '../dispatch-types.js';
import { element } from '../dom.js';
import { createMap } from '../map-view.js';
import { driverMessages as m } from './driver-messages.js';
import type { DriverBooking } from './driver-types.js';
import { placeText } from './offer-card.js';

const pickupSourceId = 'driver-pickup';
/** Keep in step with driver.css (`--pickup`): the browser test looks for this colour on the canvas. */
export const pickupColour = '#16a34a';
const pickupZoom = 15;

/** The booking being served: its status, the pickup on a map, and what the dispatcher noted. */
export class BookingPanel {
  private map: MapLibreMap | null = null;
  private mapLoaded: Promise<void> = Promise.resolve();
  private booking: DriverBooking | null = null;

  constructor(
    private readonly nodes: { root: HTMLElement; status: HTMLElement; details: HTMLElement; map: HTMLElement },
    private readonly opts: { styleUrl: string; onStyleFallback(url: string): void; onDone(): void },
  ) {}

  get current(): DriverBooking | null {
    return this.booking;
  }

  get mapInstance(): MapLibreMap | null {
    return this.map;
  }

  show(booking: DriverBooking): void {
    this.booking = booking;
    const { root, status, details } = this.nodes;
    root.hidden = false;
    root.dataset.status = booking.status;
    status.textContent =
      booking.status in m.bookingStatus
        ? m.bookingStatus[booking.status as keyof typeof m.bookingStatus]
        : booking.status;

    const list = element('dl', 'driver-booking__facts');
    const fact = (label: string, value: string) => {
      const wrap = element('div', 'driver-booking__fact');
      wrap.append(element('dt', undefined, label), element('dd', undefined, value));
      list.append(wrap);
    };
    fact(m.pickup, placeText(booking.pickup));
    if (booking.dropoff) fact(m.dropoff, placeText(booking.dropoff));
    if (booking.passengers) fact(m.passengers(booking.passengers), '');
    if (booking.notes) fact(m.notes, booking.notes);
    const children: HTMLElement[] = [list];
    if (booking.status === 'completed' || booking.status === 'cancelled') {
      const done = element('button', 'driver-button driver-button--plain', m.bookingDone);
      done.type = 'button';
      done.addEventListener('click', () => this.opts.onDone());
      children.push(done);
    }
    details.replaceChildren(...children);
    this.showPickup(booking.pickup);
  }

  hide(): void {
    this.booking = null;
    this.nodes.root.hidden = true;
  }

  /** The map is made the first time a booking is shown: a waiting driver's phone draws nothing. */
  private showPickup(pickup: Place): void {
    if (this.map === null) {
      const view = createMap({
        container: this.nodes.map,
        styleUrl: this.opts.styleUrl,
        onStyleFallback: this.opts.onStyleFallback,
      });
      this.map = view.map;
      this.mapLoaded = view.loaded.then(() => {
        view.map.addSource(pickupSourceId, { type: 'geojson', data: emptyCollection() });
        view.map.addLayer({
          id: `${pickupSourceId}-halo`,
          type: 'circle',
          source: pickupSourceId,
          paint: { 'circle-radius': 22, 'circle-color': pickupColour, 'circle-opacity': 0.25 },
        });
        view.map.addLayer({
          id: pickupSourceId,
          type: 'circle',
          source: pickupSourceId,
          paint: {
            'circle-radius': 10,
            'circle-color': pickupColour,
            'circle-stroke-color': '#ffffff',
            'circle-stroke-width': 3,
          },
        });
      });
    }
    const map = this.map;
    // The section was hidden until now: the canvas takes its size from the laid-out container.
    map.resize();
    map.jumpTo({ center: [pickup.lon, pickup.lat], zoom: pickupZoom });
    void this.mapLoaded.then(() => {
      const source = map.getSource<GeoJSONSource>(pickupSourceId);
      source?.setData({
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [pickup.lon, pickup.lat] } },
        ],
      });
    });
  }
}

function emptyCollection(): GeoJSON.FeatureCollection {
  return { type: 'FeatureCollection', features: [] };
}
