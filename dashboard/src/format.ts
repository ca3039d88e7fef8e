import type { MeterState, Pack, Tariff } from './api-types.js';

const packLabels: Record<Pack, string> = {
  'df-taxi': 'Taxi · Distrito Federal',
  'belem-taxi': 'Taxi · Belém',
  'sp-fretamento': 'Charter · São Paulo',
};

export function packLabel(pack: Pack): string {
  return packLabels[pack] ?? pack;
}

const meterLabels: Record<MeterState, string> = {
  free: 'Free',
  hired: 'Hired',
  stopped: 'Hired, paused',
  off: 'Off',
};

export function meterLabel(meterState: MeterState | null, tariff: Tariff | null): string {
  if (meterState === null) return '—';
  const state = meterLabels[meterState] ?? meterState;
  if (tariff === null || meterState === 'free' || meterState === 'off') return state;
  return `${state} · Bandeira ${tariff === 2 ? 'II' : 'I'}`;
}

export function speedLabel(speedKmh: number | null): string {
  return speedKmh === null ? '—' : `${Math.round(speedKmh)} km/h`;
}

/**
 * Passenger counts and capacities never include the driver (a car whose CRLV lotação is 5 is a
 * taxi of capacity 4): every label of a count says so.
 */
export const passengersTerm = 'Passengers (driver excluded)';

export function passengersLabel(passengers: number | null, capacity: number | null): string {
  if (passengers === null) return '—';
  return capacity ? `${passengers} / ${capacity}` : String(passengers);
}

/** Local wall-clock time, with the date only when it is not today (a vehicle silent since yesterday). */
export function clockLabel(epochMs: number, nowMs: number): string {
  const at = new Date(epochMs);
  const sameDay = at.toDateString() === new Date(nowMs).toDateString();
  return sameDay
    ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : at.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

export function agoLabel(epochMs: number, nowMs: number): string {
  // Device clocks run slightly ahead at times; "in the future" would only confuse.
  const seconds = Math.max(0, Math.round((nowMs - epochMs) / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}
