import type { MeterState, Pack } from '@vigia/core';
import { localTime } from './local-time.js';

export type TaxiPack = Extract<Pack, 'df-taxi' | 'belem-taxi'>;
export type Tariff = 1 | 2;

/**
 * A taximeter tariff table, in cents of BRL. The simulated meters charge like real ones: the
 * bandeirada when the trip starts, then distance at the current bandeira's per-km rate while the
 * taxi moves faster than the transition speed, and waiting time (hora parada) while it is slower
 * or standing in traffic — whichever earns more at that speed, which is what the transition
 * speed (hourly rate ÷ per-km rate) expresses.
 */
export interface TariffTable {
  /** Bandeirada: what the meter shows when the trip starts. */
  flagDropCents: number;
  /** Per kilometre at Bandeira I; Bandeira II is 50 % more (DF Art. 45 III; Belém uses the same ratio). */
  perKmBandeira1Cents: number;
  /** Hora parada: per hour of waiting or slow traffic. */
  waitingPerHourCents: number;
  /** Where the figures come from. */
  source: string;
}

/** Bandeira II: Bandeira I plus 50 % (DF Art. 45 III, Art. 48 III). */
export const BANDEIRA_2_SURCHARGE = 0.5;

/**
 * Simulation tariffs, in the order of magnitude of the tables the two cities published in the
 * 2020s. They are illustrative: the rules engine must read the table in force from its pack's
 * configuration, and so should a deployment that compares fares with real meters.
 */
export const TARIFF_TABLES: Readonly<Record<TaxiPack, TariffTable>> = {
  'df-taxi': {
    flagDropCents: 594,
    perKmBandeira1Cents: 281,
    waitingPerHourCents: 3370,
    source: 'Illustrative, in the range of the Distrito Federal taxi table (bandeirada, km rodado, hora parada).',
  },
  'belem-taxi': {
    flagDropCents: 520,
    perKmBandeira1Cents: 296,
    waitingPerHourCents: 3000,
    source: 'Illustrative, in the range of the Belém taxi table (bandeirada, km rodado, hora parada).',
  },
};

export function perKmCents(table: TariffTable, tariff: Tariff): number {
  return tariff === 2 ? table.perKmBandeira1Cents * (1 + BANDEIRA_2_SURCHARGE) : table.perKmBandeira1Cents;
}

/** The speed below which the meter charges waiting time instead of distance, m/s. */
export function transitionSpeedMs(table: TariffTable, tariff: Tariff): number {
  const kmh = table.waitingPerHourCents / perKmCents(table, tariff);
  return kmh / 3.6;
}

const TIME_ZONES: Readonly<Record<TaxiPack, string>> = {
  'df-taxi': 'America/Sao_Paulo',
  'belem-taxi': 'America/Belem',
};

/**
 * Whether local time alone allows Bandeira II, for the hours both regulations share:
 * 20:00–06:00 on weekday nights, Saturday from 12:00, all of Sunday (and so until 06:00 on
 * Monday and from 00:00 to 06:00 on Saturday, the tail of Friday night). DF: Art. 45 III a–c;
 * Belém: Art. 35 I a–b, plus any time in December (Art. 35 I d). Holidays also allow it in both
 * cities; the simulated drivers do not consult a holiday calendar and so simply keep Bandeira I
 * on holidays, which is never a violation.
 */
export function bandeira2AllowedByTime(pack: TaxiPack, epochMs: number): boolean {
  const t = localTime(epochMs, TIME_ZONES[pack]);
  if (pack === 'belem-taxi' && t.month === 12) return true;
  const daytime = t.hour >= 6 && t.hour < 20;
  if (t.weekday >= 1 && t.weekday <= 5) return !daytime;
  if (t.weekday === 6) return !(t.hour >= 6 && t.hour < 12);
  return true; // Sunday
}

/**
 * The bandeira an honest driver sets: Bandeira II whenever the hour allows it, Bandeira I
 * otherwise. The other DF conditions (airport trips, unpaved roads, signed areas, more than three
 * adult passengers) are left unused on purpose, so a Bandeira II in the demo always has a time
 * reason a reviewer can check at a glance.
 */
export function driverTariff(pack: TaxiPack, epochMs: number): Tariff {
  return bandeira2AllowedByTime(pack, epochMs) ? 2 : 1;
}

/**
 * The taximeter: state, bandeira and fare of the current trip. `stopped` is the paused meter —
 * the fare frozen while the passenger pays at the end, and now and then while a courteous driver
 * stands in a jam.
 */
export class Taximeter {
  state: MeterState = 'off';
  tariff: Tariff = 1;
  tripId: string | undefined;
  private fare = 0;

  constructor(readonly table: TariffTable) {}

  /** The fare the display shows, whole cents (the meter never rounds up). */
  get fareCents(): number {
    return Math.floor(this.fare + 1e-9);
  }

  switchOn(): void {
    this.state = 'free';
    this.tripId = undefined;
    this.fare = 0;
  }

  switchOff(): void {
    this.state = 'off';
    this.tripId = undefined;
    this.fare = 0;
  }

  hire(tripId: string, tariff: Tariff): void {
    this.state = 'hired';
    this.tripId = tripId;
    this.tariff = tariff;
    this.fare = this.table.flagDropCents;
  }

  pause(): void {
    if (this.state === 'hired') this.state = 'stopped';
  }

  resume(): void {
    if (this.state === 'stopped') this.state = 'hired';
  }

  /** End of trip: back to free, the fare cleared for the next one. */
  release(): void {
    this.switchOn();
  }

  /** Charge one simulation step: distance when moving briskly, waiting time otherwise. */
  charge(movedM: number, dtS: number, speedMs: number): void {
    if (this.state !== 'hired') return;
    if (speedMs >= transitionSpeedMs(this.table, this.tariff)) {
      this.fare += (movedM / 1000) * perKmCents(this.table, this.tariff);
    } else {
      this.fare += (dtS / 3600) * this.table.waitingPerHourCents;
    }
  }
}
