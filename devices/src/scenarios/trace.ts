import { type LatLon, offsetM } from '../geo.js';
import type { SampleInput } from './types.js';

type Fields = Omit<SampleInput, 'deviceId' | 'ts' | 'lat' | 'lon' | 'speedKmh' | 'headingDeg'>;

/**
 * A timed sample script for one device: a cursor (time, position, sensor fields) that emits one
 * sample every `stepS` seconds while it stays or drives. Positions come from the simulator's geo
 * helpers (flat offsets in metres), so distances are what the rules will measure.
 */
export class Trace {
  readonly samples: SampleInput[] = [];
  private fields: Fields;
  private headingDeg = 0;

  constructor(
    readonly deviceId: string,
    private ms: number,
    private pos: LatLon,
    fields: Fields = {},
    private readonly stepS = 5,
  ) {
    this.fields = { accuracyM: 5, ignition: true, ...fields };
  }

  get atMs(): number {
    return this.ms;
  }

  get position(): LatLon {
    return this.pos;
  }

  /** Changes sensor fields from the next sample on (`meter`/`tacho` are replaced whole). */
  set(fields: Fields): this {
    this.fields = { ...this.fields, ...fields };
    return this;
  }

  /** Removes sensor fields (e.g. the tachograph going silent). */
  unset(...keys: (keyof Fields)[]): this {
    const next = { ...this.fields };
    for (const k of keys) delete next[k];
    this.fields = next;
    return this;
  }

  /** One sample now, at `speedKmh`. */
  emit(speedKmh = 0, extra: Fields = {}): this {
    this.samples.push({
      deviceId: this.deviceId,
      ts: new Date(this.ms).toISOString(),
      lat: Number(this.pos.lat.toFixed(7)),
      lon: Number(this.pos.lon.toFixed(7)),
      speedKmh,
      headingDeg: Math.round(this.headingDeg),
      ...this.fields,
      ...extra,
    });
    return this;
  }

  /** Stands still for `seconds`, one sample per step (the first one step from now). */
  stay(seconds: number, extra: Fields = {}): this {
    for (let s = this.stepS; s <= seconds; s += this.stepS) {
      this.ms += this.stepS * 1000;
      this.emit(0, extra);
    }
    return this;
  }

  /** Drives `seconds` at `speedKmh` towards `bearingDeg` (0 = north, 90 = east). */
  drive(seconds: number, speedKmh: number, bearingDeg: number, extra: Fields = {}): this {
    this.headingDeg = bearingDeg;
    const stepM = (speedKmh / 3.6) * this.stepS;
    const rad = (bearingDeg * Math.PI) / 180;
    for (let s = this.stepS; s <= seconds; s += this.stepS) {
      this.ms += this.stepS * 1000;
      this.pos = offsetM(this.pos, stepM * Math.cos(rad), stepM * Math.sin(rad));
      this.emit(speedKmh, extra);
    }
    return this;
  }

  /**
   * Drives exactly `metres` towards `bearingDeg` in whole steps, at about `speedKmh` (the speed
   * reported is the one that covers the distance in those steps).
   */
  driveMetres(metres: number, speedKmh: number, bearingDeg: number, extra: Fields = {}): this {
    const steps = Math.max(1, Math.round(metres / (speedKmh / 3.6) / this.stepS));
    const exactKmh = Number(((metres / (steps * this.stepS)) * 3.6).toFixed(2));
    return this.drive(steps * this.stepS, exactKmh, bearingDeg, extra);
  }

  /**
   * Stands still for `seconds` while the GPS fixes wander around the true position: each fix
   * `radiusM` off it in a turning direction (consecutive fixes up to 2 × radius apart), with the
   * reported `accuracyM` and a small Doppler speed — a receiver in a taxi waiting (*hora parada*).
   */
  wander(seconds: number, radiusM: number, accuracyM: number, speedKmh = 2, extra: Fields = {}): this {
    const centre = this.pos;
    for (let s = this.stepS, k = 0; s <= seconds; s += this.stepS, k++) {
      this.ms += this.stepS * 1000;
      const rad = (((k * 137) % 360) * Math.PI) / 180;
      this.pos = offsetM(centre, radiusM * Math.cos(rad), radiusM * Math.sin(rad));
      this.emit(speedKmh, { accuracyM, ...extra });
    }
    this.pos = centre;
    return this;
  }

  /** Jumps the clock without sending (the device was off). */
  wait(seconds: number): this {
    this.ms += seconds * 1000;
    return this;
  }
}

/** The samples of several traces in time order (what healthy devices deliver); ties keep trace order. */
export function inTimeOrder(...traces: Trace[]): SampleInput[] {
  return traces
    .flatMap((t, ti) => t.samples.map((s, si) => ({ s, ti, si })))
    .sort((a, b) => Date.parse(a.s.ts) - Date.parse(b.s.ts) || a.ti - b.ti || a.si - b.si)
    .map((x) => x.s);
}
