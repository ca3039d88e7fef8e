import type { MeterState, Pack, Tariff } from './api-types.js';
import { fleetMessages as m } from './fleet-messages.js';

export function packLabel(pack: Pack): string {
  return m.packs[pack] ?? pack;
}

export function meterLabel(meterState: MeterState | null, tariff: Tariff | null): string {
  if (meterState === null) return '—';
  const state = m.meter[meterState] ?? meterState;
  if (tariff === null || meterState === 'free' || meterState === 'off') return state;
  return m.meterWithTariff(state, tariff === 2 ? 2 : 1);
}

export function speedLabel(speedKmh: number | null): string {
  return speedKmh === null ? '—' : m.speed(Math.round(speedKmh));
}

/**
 * Passenger counts and capacities never include the driver (a car whose CRLV lotação is 5 is a
 * taxi of capacity 4): every label of a count says so.
 */
export const passengersTerm = m.passengersTerm;

export function passengersLabel(passengers: number | null, capacity: number | null): string {
  if (passengers === null) return '—';
  return capacity ? `${passengers} / ${capacity}` : String(passengers);
}

export { agoLabel } from './legal-time.js';
