import { describe, expect, it } from 'vitest';
import { nextStatus } from '../src/dispatch/booking-progress.js';

/** The moves a booking in progress makes on one fleet update (booking-progress.ts), without a database. */
describe('booking progress from one fleet update', () => {
  const pickup = { lat: -15.7942, lon: -47.8822 };
  const at = (metresNorth: number, meterState: 'free' | 'hired' | 'stopped' | 'off' | null = 'free') => ({
    lat: pickup.lat + metresNorth / 111_195,
    lon: pickup.lon,
    meterState,
  });

  it('arrives within the radius, not outside it', () => {
    expect(nextStatus({ status: 'accepted', ...pickup }, at(49), 50)).toEqual({ from: ['accepted'], to: 'arrived' });
    expect(nextStatus({ status: 'accepted', ...pickup }, at(51), 50)).toBeNull();
    // Arrived already: staying near changes nothing.
    expect(nextStatus({ status: 'arrived', ...pickup }, at(10), 50)).toBeNull();
  });

  it('boards when the meter goes hired or stopped, also straight from accepted (picked up just outside the radius)', () => {
    for (const status of ['accepted', 'arrived'] as const) {
      for (const meter of ['hired', 'stopped'] as const) {
        expect(nextStatus({ status, ...pickup }, at(80, meter), 50)).toEqual({
          from: ['accepted', 'arrived'],
          to: 'on-board',
        });
      }
    }
  });

  it('completes when the meter is free again, and only then', () => {
    expect(nextStatus({ status: 'on-board', ...pickup }, at(3000, 'free'), 50)).toEqual({
      from: ['on-board'],
      to: 'completed',
    });
    for (const meter of ['hired', 'stopped', 'off', null] as const) {
      expect(nextStatus({ status: 'on-board', ...pickup }, at(3000, meter), 50)).toBeNull();
    }
  });
});
