import type { MeterState, ServiceType, Tariff } from './api-types.js';
import { fleetMessages as m } from './fleet-messages.js';

/**
 * What a marker means to the person watching the map. The order is the legend's order and the
 * drawing order (later statuses are drawn on top), so hired taxis are never hidden under idle ones.
 */
export const vehicleStatuses = ['offline', 'other', 'free', 'hired-1', 'hired-2', 'charter'] as const;
export type VehicleStatus = (typeof vehicleStatuses)[number];

export interface StatusStyle {
  label: string;
  description: string;
  color: string;
  /** Marker radius in pixels at city zoom; the map scales it with zoom. */
  radiusPx: number;
}

/** Colours are chosen to stay apart for the common colour-vision deficiencies and from the base map. */
export const statusStyles: Record<VehicleStatus, StatusStyle> = {
  free: { ...m.statuses.free, color: '#16a34a', radiusPx: 6 },
  'hired-1': { ...m.statuses['hired-1'], color: '#2563eb', radiusPx: 6 },
  'hired-2': { ...m.statuses['hired-2'], color: '#ea580c', radiusPx: 6 },
  charter: { ...m.statuses.charter, color: '#9333ea', radiusPx: 8 },
  other: { ...m.statuses.other, color: '#0f766e', radiusPx: 5 },
  offline: { ...m.statuses.offline, color: '#9ca3af', radiusPx: 5 },
};

export interface StatusInput {
  serviceType: ServiceType;
  meterState: MeterState | null;
  tariff: Tariff | null;
  /** Epoch ms of the last sample, or null when the vehicle has never reported. */
  lastSeenMs: number | null;
}

export function classifyVehicle(input: StatusInput, nowMs: number, offlineAfterS: number): VehicleStatus {
  if (input.lastSeenMs === null || nowMs - input.lastSeenMs > offlineAfterS * 1000) return 'offline';
  if (input.serviceType === 'fretamento-continuo' || input.serviceType === 'fretamento-eventual') return 'charter';
  if (input.serviceType !== 'taxi') return 'other';
  switch (input.meterState) {
    // `stopped` is the meter paused during a hired trip (waiting time): the taxi is still taken.
    case 'hired':
    case 'stopped':
      // A hired meter that does not report its tariff is most likely on the ordinary one.
      return input.tariff === 2 ? 'hired-2' : 'hired-1';
    case 'free':
      return 'free';
    // A taxi whose meter is off, or whose device has no meter link, is not available for hire.
    default:
      return 'other';
  }
}
