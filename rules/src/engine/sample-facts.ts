import type { Pack, Telemetry } from '@vigia/core';
import type { HolidayCalendar } from '../calendar/holiday-calendar.js';
import type { OperatorRecord, VehicleRecord } from '../registry/records.js';
import type { RegistryView } from '../registry/registry-view.js';
import type { LocalDateTime } from '../time/local-time.js';
import type { GeneralConfig } from './general-config.js';
import type { OccupancyReading } from './occupancy.js';

/**
 * What the engine derives once per accepted sample and hands to every rule of the vehicle's
 * pack. Interval quantities (`dtS`, `segmentM`) describe the interval from the previous
 * accepted sample to this one; after a gap longer than `general.maxGapS` there is no previous
 * sample (`prev` null, `gapBefore` true) and every dwell, stretch or run must start afresh —
 * nothing is interpolated across missing telemetry.
 *
 * The engine rewrites one facts object per pack for every sample (and the pack adds its signals
 * to it): a rule reads it during its step and keeps values it read, never the object itself.
 */
export interface SampleFacts {
  readonly sample: Telemetry;
  /** `sample.ts` in epoch ms. */
  readonly ms: number;
  readonly prev: Telemetry | null;
  readonly gapBefore: boolean;
  /**
   * Samples of this vehicle that arrived late (older than an accepted one) and were dropped since
   * the previous accepted sample. The trace around here is incomplete: an ongoing event may only
   * be suspected from now on, and a trip with late drops is not priced.
   */
  readonly lateDropped: number;
  readonly dtS: number;
  /** Metres from the previous sample (0 while both samples are stationary, to ignore GPS jitter). */
  readonly segmentM: number;
  /** GPS speed; derived from positions when the device sends none (`speedDerived`). */
  readonly speedKmh: number | null;
  readonly speedDerived: boolean;
  /** Speed above `general.movingSpeedKmh`. */
  readonly moving: boolean;
  /** Was the vehicle moving over the interval ending at this sample (judged at its start)? */
  readonly movingBefore: boolean;
  /**
   * The passenger count every rule reads: the occupancy sensor gated by the door (a change while
   * the doors stayed closed is sensor noise; with no door reading a count must hold
   * `general.occupancySettleS`). See engine/occupancy.ts. Never read `sample.passengers` directly.
   */
  readonly occupancy: OccupancyReading;
  readonly local: LocalDateTime;
  readonly vehicle: VehicleRecord | null;
  readonly operator: OperatorRecord | null;
  readonly registry: RegistryView;
  readonly calendar: HolidayCalendar;
  readonly pack: Pack;
  readonly timeZone: string;
  readonly general: GeneralConfig;
}

/** The engine and the packs fill a facts object in place; rules see it read-only. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
