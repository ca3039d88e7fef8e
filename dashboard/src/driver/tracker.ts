import { type ApiClient, ApiError, UnauthorizedError } from '../api-client.js';

export type MeterState = 'free' | 'hired';

/** One record of `POST /v1/telemetry` as the phone sends it. */
export interface TrackerRecord {
  deviceId: string;
  ts: string;
  lat: number;
  lon: number;
  speedKmh?: number;
  headingDeg?: number;
  accuracyM?: number;
  meter: { state: MeterState };
}

export type TrackerStatus =
  | { kind: 'off' }
  | { kind: 'waiting-fix' }
  | { kind: 'on'; pending: number }
  | { kind: 'denied' }
  | { kind: 'insecure' }
  | { kind: 'refused'; message: string };

export interface TrackerOptions {
  onStatus(status: TrackerStatus): void;
  /** The token was refused while sending: the page asks for another. */
  onUnauthorized(): void;
}

const queueKey = 'vigia.driverTrackerQueue';
const settingsKey = 'vigia.driverTracker';
/** A day of samples every 3 s is 28 800; a phone offline longer than this keeps the newest. */
const maxQueued = 20_000;
/** The API takes up to 50 000 records a request; smaller batches keep each retry cheap on a weak link. */
const batchSize = 500;
const flushIntervalMs = 5000;
/** Phones report about once a second; one sample per few seconds is what the rules need. */
const minSampleGapMs = 3000;

/**
 * The phone as the vehicle's tracker: watches the browser's geolocation and sends each position,
 * with the meter state the driver sets (Livre / Ocupado), to `POST /v1/telemetry` as the device
 * whose token the page holds. Records wait in a queue kept in localStorage while the phone is
 * offline (or the page reloads) and go out, oldest first, once the network is back. Records the
 * API refuses for good (4xx) are dropped, not retried forever.
 */
export class Tracker {
  private watchId: number | null = null;
  private queue: TrackerRecord[] = loadQueue();
  private sending = false;
  private lastSampleMs = 0;
  private lastPosition: GeolocationPosition | null = null;
  private identifier: string | null = null;
  private meter: MeterState;
  private enabled: boolean;
  private status: TrackerStatus = { kind: 'off' };
  /** The client of the page's current token; nothing is sent before there is one. */
  private api: ApiClient | null = null;

  constructor(private readonly opts: TrackerOptions) {
    const settings = loadSettings();
    this.meter = settings.meter;
    this.enabled = settings.enabled;
    // Known from the last connection: a phone that starts in a tunnel tracks before the channel is up.
    this.identifier = settings.identifier;
    if (this.enabled && this.identifier !== null) this.start();
    window.setInterval(() => void this.flush(), flushIntervalMs);
    window.addEventListener('online', () => void this.flush());
  }

  setApi(api: ApiClient | null): void {
    this.api = api;
    if (api) void this.flush();
  }

  get meterState(): MeterState {
    return this.meter;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /**
   * The device identifier records carry (from the channel's `hello`); the tracker starts once
   * known, stops when the token is dropped. Queued records of another device are refused by the
   * API under the next token and dropped then.
   */
  setIdentifier(identifier: string | null): void {
    if (identifier === null) this.stop();
    this.identifier = identifier;
    this.save();
    if (this.enabled && identifier !== null) this.start();
  }

  private save(): void {
    saveSettings({ enabled: this.enabled, meter: this.meter, identifier: this.identifier });
  }

  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.save();
    if (enabled) this.start();
    else this.stop();
  }

  /** A meter change is sent at once, from the last known position. */
  setMeter(meter: MeterState): void {
    this.meter = meter;
    this.save();
    if (this.enabled && this.lastPosition) {
      this.record(this.lastPosition, true);
      void this.flush();
    }
  }

  private start(): void {
    if (this.watchId !== null || this.identifier === null) return;
    if (!window.isSecureContext || !('geolocation' in navigator)) {
      this.setStatus({ kind: window.isSecureContext ? 'denied' : 'insecure' });
      return;
    }
    this.setStatus({ kind: 'waiting-fix' });
    this.watchId = navigator.geolocation.watchPosition(
      (position) => {
        this.lastPosition = position;
        this.record(position, false);
      },
      (error) => {
        if (error.code === error.PERMISSION_DENIED) {
          this.stop();
          this.setStatus({ kind: 'denied' });
        }
      },
      { enableHighAccuracy: true, maximumAge: 5000 },
    );
  }

  private stop(): void {
    if (this.watchId !== null) navigator.geolocation.clearWatch(this.watchId);
    this.watchId = null;
    this.setStatus({ kind: 'off' });
  }

  private record(position: GeolocationPosition, force: boolean): void {
    if (this.identifier === null) return;
    const now = Date.now();
    if (!force && now - this.lastSampleMs < minSampleGapMs) return;
    this.lastSampleMs = now;
    const { coords } = position;
    const record: TrackerRecord = {
      deviceId: this.identifier,
      // A forced record (meter change) is stamped now: the change happened now, at the last position.
      ts: new Date(force ? now : position.timestamp).toISOString(),
      lat: coords.latitude,
      lon: coords.longitude,
      meter: { state: this.meter },
    };
    if (coords.speed !== null && Number.isFinite(coords.speed)) record.speedKmh = Math.min(400, coords.speed * 3.6);
    if (coords.heading !== null && Number.isFinite(coords.heading)) record.headingDeg = coords.heading;
    if (Number.isFinite(coords.accuracy)) record.accuracyM = Math.min(100_000, coords.accuracy);
    this.queue.push(record);
    if (this.queue.length > maxQueued) this.queue.splice(0, this.queue.length - maxQueued);
    saveQueue(this.queue);
    this.setStatus({ kind: 'on', pending: this.queue.length });
  }

  async flush(): Promise<void> {
    const api = this.api;
    if (api === null || this.sending || this.queue.length === 0 || !navigator.onLine) return;
    this.sending = true;
    const batch = this.queue.slice(0, batchSize);
    try {
      await api.sendJson('POST', '/v1/telemetry', batch);
      this.drop(batch.length);
      if (this.enabled) this.setStatus({ kind: 'on', pending: this.queue.length });
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        this.opts.onUnauthorized();
      } else if (
        error instanceof ApiError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 408 &&
        error.status !== 429
      ) {
        // Refused as a whole (malformed, not this device's): resending would be refused again.
        this.drop(batch.length);
        this.setStatus({ kind: 'refused', message: error.message });
      }
      // Anything else (no network, 5xx, 503 overloaded) keeps the batch for the next round.
    } finally {
      this.sending = false;
    }
  }

  private drop(count: number): void {
    this.queue.splice(0, count);
    saveQueue(this.queue);
  }

  private setStatus(status: TrackerStatus): void {
    this.status = status;
    this.opts.onStatus(status);
  }

  get currentStatus(): TrackerStatus {
    return this.status;
  }
}

function loadQueue(): TrackerRecord[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(queueKey) ?? '[]');
    return Array.isArray(parsed) ? (parsed as TrackerRecord[]) : [];
  } catch {
    return [];
  }
}

function saveQueue(queue: readonly TrackerRecord[]): void {
  try {
    window.localStorage.setItem(queueKey, JSON.stringify(queue));
  } catch {
    // Storage full or disabled: the queue still lives in memory for this page's lifetime.
  }
}

interface TrackerSettings {
  enabled: boolean;
  meter: MeterState;
  identifier: string | null;
}

function loadSettings(): TrackerSettings {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(settingsKey) ?? '{}');
    if (typeof parsed === 'object' && parsed !== null) {
      const record = parsed as { enabled?: unknown; meter?: unknown; identifier?: unknown };
      return {
        enabled: record.enabled === true,
        meter: record.meter === 'hired' ? 'hired' : 'free',
        identifier: typeof record.identifier === 'string' ? record.identifier : null,
      };
    }
  } catch {
    // Fall through to the defaults.
  }
  return { enabled: false, meter: 'free', identifier: null };
}

function saveSettings(settings: TrackerSettings): void {
  try {
    window.localStorage.setItem(settingsKey, JSON.stringify(settings));
  } catch {
    // Not kept across reloads; works for this page's lifetime.
  }
}
