import type { Telemetry } from '@vigia/core';
import { zonedInstant } from '../../src/time/local-time.js';

/** A full telemetry record with every optional reading null unless given. */
export function sample(overrides: Partial<Telemetry> & Pick<Telemetry, 'ts' | 'lat' | 'lon'>): Telemetry {
  return {
    deviceId: 'dev-1',
    vehicleId: 'veh-1',
    receivedAt: overrides.ts,
    speedKmh: null,
    headingDeg: null,
    accuracyM: 5,
    ignition: null,
    doorOpen: null,
    passengers: null,
    childrenUnder7: null,
    boardings: null,
    alightings: null,
    meterState: null,
    meterTariff: null,
    meterFareCents: null,
    meterTripId: null,
    tachoSpeedKmh: null,
    tachoDriverId: null,
    ...overrides,
  };
}

const M_PER_DEG = 111_195;

/** The point `metres` away from (lat, lon) on heading `headingDeg` (0 = north, 90 = east). */
export function offset(lat: number, lon: number, metres: number, headingDeg: number): { lat: number; lon: number } {
  const h = (headingDeg * Math.PI) / 180;
  return {
    lat: lat + (metres * Math.cos(h)) / M_PER_DEG,
    lon: lon + (metres * Math.sin(h)) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)),
  };
}

export type SampleFields = Partial<Omit<Telemetry, 'ts' | 'lat' | 'lon' | 'speedKmh'>>;

/**
 * Builds a deterministic trace sample by sample: `drive` moves along a heading at a constant
 * speed, `stay` stands still. Every sample carries the current `fields` (meter, passengers ...).
 */
export class Trace {
  readonly samples: Telemetry[] = [];
  private ms: number;
  private lat: number;
  private lon: number;
  private fields: SampleFields;

  constructor(start: { at: Date; lat: number; lon: number; fields?: SampleFields }) {
    this.ms = start.at.getTime();
    this.lat = start.lat;
    this.lon = start.lon;
    this.fields = { ...start.fields };
  }

  /** Change the readings carried from now on. */
  set(fields: SampleFields): this {
    this.fields = { ...this.fields, ...fields };
    return this;
  }

  /** One sample at the current time and place (no time passes). */
  emit(extra: SampleFields & { speedKmh?: number | null } = {}): this {
    this.samples.push(
      sample({
        ...this.fields,
        speedKmh: 0,
        ...extra,
        ts: new Date(this.ms),
        lat: this.lat,
        lon: this.lon,
      }),
    );
    return this;
  }

  /** Drive for `seconds` at `speedKmh`, one sample every `every` seconds (first one after `every`). */
  drive(seconds: number, speedKmh: number, headingDeg = 90, every = 5, extra: SampleFields = {}): this {
    for (let t = every; t <= seconds + 1e-9; t += every) {
      const p = offset(this.lat, this.lon, (speedKmh / 3.6) * every, headingDeg);
      this.lat = p.lat;
      this.lon = p.lon;
      this.ms += every * 1000;
      this.emit({ speedKmh, ...extra });
    }
    return this;
  }

  /** Stand still for `seconds`, one sample every `every` seconds. */
  stay(seconds: number, every = 5, extra: SampleFields = {}): this {
    for (let t = every; t <= seconds + 1e-9; t += every) {
      this.ms += every * 1000;
      this.emit({ speedKmh: 0, ...extra });
    }
    return this;
  }

  /** Jump to a place (no sample). */
  moveTo(lat: number, lon: number): this {
    this.lat = lat;
    this.lon = lon;
    return this;
  }

  /** Let time pass without samples. */
  wait(seconds: number): this {
    this.ms += seconds * 1000;
    return this;
  }

  get now(): Date {
    return new Date(this.ms);
  }

  get position(): { lat: number; lon: number } {
    return { lat: this.lat, lon: this.lon };
  }
}

export const SAO_PAULO = 'America/Sao_Paulo';
export const BELEM = 'America/Belem';

/** The instant a wall clock in `tz` reads `date time`. */
export const at = (tz: string, date: string, time: string): Date => zonedInstant(tz, date, time);
