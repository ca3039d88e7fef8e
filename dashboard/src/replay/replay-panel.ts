import { type Map as MapLibreMap, Popup } from 'maplibre-gl';
import { type ApiClient, ApiError, UnauthorizedError } from '../api-client.js';
import type { Pack } from '../api-types.js';
import { element, valueElement } from '../dom.js';
import { formatNumber, legalTime, packTimeZone, zoneName } from '../legal-time.js';
import { bboxContains, servedAreas } from '../served-areas.js';
import { ReplayClock, type ReplaySpeed, replaySpeeds } from './replay-clock.js';
import {
  type AreaReplay,
  areaPositionAt,
  loadAreaReplay,
  loadTrack,
  positionAt,
  type VehicleTrack,
} from './replay-data.js';
import { meterColour, ReplayMapLayer, type ReplayMarker, replayMarkerLayerId } from './replay-map-layer.js';
import { replayMessages as m } from './replay-messages.js';
import { ReplayTimeline } from './replay-timeline.js';
import { instantOfWallClock, wallClockOf } from './zoned-input.js';
import './replay.css';

/** The default period of a vehicle's history: the last hour. */
const defaultPeriodMs = 3_600_000;
/** The server's bound on one track (api/src/history/README.md). */
const maxPeriodMs = 24 * 3_600_000;
/** An area replay covers the quarter of an hour around the chosen moment. */
const areaHalfWindowMs = 7.5 * 60_000;
/** The server's bound on a replay's area, in degrees a side. */
const maxAreaDeg = 0.5;
/** Default moment of an area replay: an hour ago. */
const defaultAreaAgoMs = 3_600_000;

/** Which pack's clock an area follows: the served area its centre is in (Brasília's clock elsewhere). */
const areaPacks: Record<(typeof servedAreas)[number]['id'], Pack> = {
  brasilia: 'df-taxi',
  belem: 'belem-taxi',
  'sao-paulo': 'sp-fretamento',
};

export interface ReplayPanelOptions {
  map: MapLibreMap;
  /** The page's grid: the panel takes the row under the map. */
  layout: HTMLElement;
  client: () => ApiClient | null;
  /** The vehicle's plate and pack, as the fleet knows them. */
  vehicle: (id: string) => { plate: string; pack: Pack } | undefined;
  now: () => number;
  /** The live fleet is faded while the past is on the map, so the two are not confused. */
  onActiveChange: (active: boolean) => void;
  onUnauthorized: () => void;
}

type Mode = { kind: 'vehicle'; vehicleId: string; plate: string; pack: Pack } | { kind: 'area'; pack: Pack };

/**
 * History and replay under the map (issue 11 item 4): a vehicle's trail for a period with a time
 * slider, play/pause at ×1 to ×60 and the timeline; or an area's vehicles around a past moment.
 * Times are entered and shown on the pack's legal clock, with its name.
 */
export class ReplayPanel {
  private readonly root = element('section', 'replay-panel');
  private readonly title = element('h2', 'replay-panel__title');
  private readonly zone = element('span', 'replay-panel__zone');
  private readonly form = element('form', 'replay-panel__period');
  private readonly status = element('p', 'replay-panel__status');
  private readonly playButton = element('button', 'replay-panel__play', m.play);
  private readonly slider = element('input', 'replay-panel__slider');
  private readonly timeLabel = valueElement('time', 'replay-panel__time', '');
  private readonly speedSelect = element('select', 'replay-panel__speed');
  private readonly clock = new ReplayClock();
  private readonly timeline = new ReplayTimeline(this.clock);
  private layer: ReplayMapLayer | null = null;
  private mode: Mode | null = null;
  private track: VehicleTrack | null = null;
  private trackTimes: number[] = [];
  private area: AreaReplay | null = null;
  private loadSeq = 0;
  private readonly markerPopup = new Popup({ closeButton: true, closeOnClick: true, offset: 10 });

  constructor(private readonly options: ReplayPanelOptions) {
    this.root.setAttribute('aria-label', m.areaTitle);
    this.root.hidden = true;
    const header = element('header', 'replay-panel__header');
    const close = element('button', 'replay-panel__close', m.close);
    close.type = 'button';
    close.addEventListener('click', () => this.close());
    header.append(this.title, this.zone, close);

    this.playButton.type = 'button';
    this.playButton.addEventListener('click', () => (this.clock.playing ? this.clock.pause() : this.clock.play()));
    this.slider.type = 'range';
    this.slider.min = '0';
    this.slider.max = '1000';
    this.slider.step = '1';
    this.slider.setAttribute('aria-label', m.slider);
    this.slider.addEventListener('input', () => {
      this.clock.seek(this.clock.from + (Number(this.slider.value) / 1000) * (this.clock.to - this.clock.from));
    });
    this.speedSelect.setAttribute('aria-label', m.speed);
    for (const speed of replaySpeeds) {
      const option = element('option', undefined, m.speedOption(speed));
      option.value = String(speed);
      this.speedSelect.append(option);
    }
    this.speedSelect.addEventListener('change', () =>
      this.clock.setSpeed(Number(this.speedSelect.value) as ReplaySpeed),
    );
    const controls = element('div', 'replay-panel__controls');
    controls.append(this.playButton, this.slider, this.timeLabel, this.speedSelect);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.loadFromForm();
    });
    this.root.append(header, this.form, this.status, controls, this.timeline.root);
    options.layout.append(this.root);
    this.clock.subscribe(() => this.render());
    this.addAreaControl();
  }

  /** Opens a vehicle's history for the last hour. */
  openVehicle(vehicleId: string, known?: { plate: string; pack: Pack }, period?: { from: number; to: number }): void {
    const vehicle = known ?? this.options.vehicle(vehicleId);
    if (!vehicle) return;
    const to = period?.to ?? this.options.now();
    const from = period?.from ?? to - defaultPeriodMs;
    this.mode = { kind: 'vehicle', vehicleId, plate: vehicle.plate, pack: vehicle.pack };
    this.show();
    this.title.textContent = m.historyTitle(vehicle.plate);
    this.buildVehicleForm(from, to);
    void this.loadVehicle(from, to);
  }

  /** Opens the area replay of the visible map around a moment (an hour ago unless given). */
  openArea(moment = this.options.now() - defaultAreaAgoMs): void {
    const centre = this.options.map.getCenter();
    const served = servedAreas.find((a) => bboxContains(a.bounds, centre.lng, centre.lat));
    this.mode = { kind: 'area', pack: served ? areaPacks[served.id] : 'df-taxi' };
    this.show();
    this.title.textContent = m.areaTitle;
    this.buildAreaForm(moment);
    void this.loadArea(moment);
  }

  close(): void {
    this.loadSeq++;
    this.clock.pause();
    this.mode = null;
    this.track = null;
    this.area = null;
    this.layer?.clear();
    this.root.hidden = true;
    this.options.layout.classList.remove('replay-open');
    this.options.onActiveChange(false);
    this.options.map.resize();
  }

  private show(): void {
    this.clock.pause();
    this.markerPopup.remove();
    if (!this.layer) {
      this.layer = new ReplayMapLayer(this.options.map);
      this.options.map.on('click', replayMarkerLayerId, (event) => {
        const id: unknown = event.features?.[0]?.properties.id;
        if (typeof id === 'string') this.openMarker(id, event.lngLat);
      });
    }
    this.layer.clear();
    this.track = null;
    this.area = null;
    this.root.hidden = false;
    this.root.dataset.mode = this.mode?.kind ?? '';
    this.timeline.root.hidden = this.mode?.kind !== 'vehicle';
    this.options.layout.classList.add('replay-open');
    this.options.onActiveChange(true);
    this.options.map.resize();
  }

  private get pack(): Pack {
    return this.mode?.pack ?? 'df-taxi';
  }

  private input(label: string, name: string, value: number): HTMLLabelElement {
    const wrapper = element('label', 'replay-panel__field', label);
    const input = element('input');
    input.type = 'datetime-local';
    input.name = name;
    input.step = '60';
    input.value = wallClockOf(value, packTimeZone(this.pack));
    wrapper.append(input);
    return wrapper;
  }

  private submitButton(): HTMLButtonElement {
    const button = element('button', 'replay-panel__load', m.load);
    button.type = 'submit';
    return button;
  }

  private buildVehicleForm(from: number, to: number): void {
    const lastHour = element('button', 'replay-panel__last-hour', m.lastHour);
    lastHour.type = 'button';
    lastHour.addEventListener('click', () => {
      const now = this.options.now();
      this.buildVehicleForm(now - defaultPeriodMs, now);
      void this.loadVehicle(now - defaultPeriodMs, now);
    });
    this.form.replaceChildren(
      this.input(m.from, 'from', from),
      this.input(m.to, 'to', to),
      this.submitButton(),
      lastHour,
    );
    this.zone.textContent = m.zone(zoneName(this.pack, to));
  }

  private buildAreaForm(moment: number): void {
    this.form.replaceChildren(this.input(m.moment, 'moment', moment), this.submitButton());
    this.zone.textContent = m.zone(zoneName(this.pack, moment));
  }

  private async loadFromForm(): Promise<void> {
    const zone = packTimeZone(this.pack);
    const value = (name: string) =>
      instantOfWallClock((this.form.elements.namedItem(name) as HTMLInputElement).value, zone);
    if (this.mode?.kind === 'vehicle') {
      const from = value('from');
      const to = value('to');
      if (!(from < to) || to - from > maxPeriodMs) {
        this.setStatus(m.invalidPeriod);
        return;
      }
      await this.loadVehicle(from, to);
    } else if (this.mode?.kind === 'area') {
      const moment = value('moment');
      if (!Number.isFinite(moment)) {
        this.setStatus(m.invalidMoment);
        return;
      }
      await this.loadArea(moment);
    }
  }

  private async loadVehicle(from: number, to: number): Promise<void> {
    const mode = this.mode;
    const client = this.options.client();
    if (mode?.kind !== 'vehicle' || !client) return;
    const seq = ++this.loadSeq;
    this.setStatus(m.loading);
    try {
      const track = await loadTrack(client, mode.vehicleId, from, to);
      if (seq !== this.loadSeq) return;
      this.track = track;
      this.trackTimes = track.points.map((p) => p.t);
      this.layer?.showTrail(track.points);
      this.timeline.show(track);
      this.setStatus(...(track.points.length === 0 ? [m.noSamples] : this.trackSummary(track)));
      this.fitTo(track.points.map((p) => [p.lon, p.lat]));
      // The replay starts at the first position, not at an empty start of the period.
      this.clock.reset(track.from, track.to, track.points[0]?.t ?? track.from);
    } catch (error) {
      if (seq === this.loadSeq) this.fail(error);
    }
  }

  /** The status line: each part one catalogue text, the separators drawn by CSS. */
  private setStatus(...parts: string[]): void {
    this.status.replaceChildren(...parts.map((part) => element('span', 'replay-panel__status-part', part)));
  }

  private trackSummary(track: VehicleTrack): string[] {
    const parts = [m.summary(track.points.length, track.lines, track.violations.length)];
    if (track.stepS) parts.push(m.thinned(track.stepS));
    if (track.hours && track.hours.length > 0) {
      const distanceM = track.hours.reduce((sum, h) => sum + h.distanceM, 0);
      const hiredS = track.hours.reduce((sum, h) => sum + h.hiredS, 0);
      // The share of the time observed (whole hours: the aggregate's hours may reach past the period).
      const observedS = track.hours.reduce((sum, h) => sum + (h.observedS ?? Number.NaN), 0);
      parts.push(
        m.hours(
          formatNumber(distanceM / 1000, { maximumFractionDigits: 1 }),
          observedS > 0 ? formatNumber(hiredS / observedS, { style: 'percent' }) : null,
        ),
      );
    }
    return parts;
  }

  private async loadArea(moment: number): Promise<void> {
    const client = this.options.client();
    if (this.mode?.kind !== 'area' || !client) return;
    const seq = ++this.loadSeq;
    const bounds = this.options.map.getBounds();
    const centre = bounds.getCenter();
    const half = maxAreaDeg / 2;
    const bbox: [number, number, number, number] = [
      Math.max(bounds.getWest(), centre.lng - half),
      Math.max(bounds.getSouth(), centre.lat - half),
      Math.min(bounds.getEast(), centre.lng + half),
      Math.min(bounds.getNorth(), centre.lat + half),
    ];
    const clamped =
      bounds.getEast() - bounds.getWest() > maxAreaDeg || bounds.getNorth() - bounds.getSouth() > maxAreaDeg;
    this.setStatus(m.loading);
    try {
      const area = await loadAreaReplay(client, bbox, moment - areaHalfWindowMs, moment + areaHalfWindowMs);
      if (seq !== this.loadSeq) return;
      this.area = area;
      const window = `${legalTime(area.from, this.pack, 'minute')}–${legalTime(area.to, this.pack, 'minute')}`;
      this.setStatus(
        area.vehicles.length === 0 ? m.noVehicles : m.areaSummary(area.vehicles.length, window),
        ...(clamped ? [m.areaClamped] : []),
      );
      this.root.dataset.vehicles = String(area.vehicles.length);
      this.clock.reset(area.from, area.to, moment);
    } catch (error) {
      if (seq === this.loadSeq) this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (error instanceof UnauthorizedError) this.options.onUnauthorized();
    const reason = error instanceof ApiError ? (error.code ?? error.message) : String(error);
    this.setStatus(m.failed(reason));
  }

  private fitTo(positions: [number, number][]): void {
    if (positions.length === 0) return;
    let [w, s, e, n] = [180, 90, -180, -90];
    for (const [lon, lat] of positions) {
      w = Math.min(w, lon);
      e = Math.max(e, lon);
      s = Math.min(s, lat);
      n = Math.max(n, lat);
    }
    this.options.map.fitBounds(
      [
        [w, s],
        [e, n],
      ],
      { padding: 60, maxZoom: 16, duration: 0 },
    );
  }

  /** Everything that follows the clock: the slider, the time label, the play button, the markers. */
  private render(): void {
    const { from, to, t } = this.clock;
    this.slider.value = String(to > from ? Math.round(((t - from) / (to - from)) * 1000) : 0);
    this.timeLabel.textContent = legalTime(t, this.pack, 'weekday-date-time');
    this.timeLabel.dateTime = new Date(t).toISOString();
    this.playButton.textContent = this.clock.playing ? m.pause : m.play;
    this.root.dataset.playing = String(this.clock.playing);
    this.root.dataset.timeMs = String(Math.round(t));
    const markers: ReplayMarker[] = [];
    if (this.track) {
      const at = positionAt(this.track.points, this.trackTimes, t);
      if (at) {
        markers.push({
          id: this.track.vehicle.id,
          lon: at.lon,
          lat: at.lat,
          colour: meterColour(at.point.meterState, at.point.tariff),
          stale: at.inGap,
        });
        this.root.dataset.marker = `${at.lon.toFixed(6)},${at.lat.toFixed(6)}`;
      }
    } else if (this.area) {
      for (const v of this.area.vehicles) {
        const at = areaPositionAt(v, t);
        if (at)
          markers.push({
            id: v.id,
            lon: at.lon,
            lat: at.lat,
            colour: meterColour(at.meterState, null),
            stale: at.stale,
          });
      }
      this.root.dataset.markers = String(markers.length);
    }
    this.layer?.showMarkers(markers);
  }

  /**
   * A vehicle of the area replay, clicked: its plate, and its history for the hour around the
   * replay's instant (from the area straight into that vehicle's trail and timeline).
   */
  private openMarker(vehicleId: string, at: { lng: number; lat: number }): void {
    const vehicle = this.area?.vehicles.find((v) => v.id === vehicleId);
    if (!vehicle) return;
    const content = element('div', 'replay-marker-popup');
    const history = element('button', 'replay-marker-popup__history', m.openHistory);
    history.type = 'button';
    history.title = m.openHistoryTitle;
    const t = this.clock.t;
    history.addEventListener('click', () =>
      this.openVehicle(vehicle.id, vehicle, { from: t - defaultPeriodMs / 2, to: t + defaultPeriodMs / 2 }),
    );
    content.append(valueElement('strong', 'replay-marker-popup__plate', vehicle.plate), history);
    this.markerPopup.setLngLat(at).setDOMContent(content).addTo(this.options.map);
  }

  /** "Replay da área" on the map: the visible area's vehicles around a past moment. */
  private addAreaControl(): void {
    const container = element('div', 'maplibregl-ctrl maplibregl-ctrl-group replay-area-control');
    const button = element('button', 'replay-area-control__button', m.openAreaReplay);
    button.type = 'button';
    button.title = m.openAreaReplayTitle;
    button.addEventListener('click', () => this.openArea());
    container.append(button);
    this.options.map.addControl({ onAdd: () => container, onRemove: () => container.remove() }, 'top-left');
  }
}
