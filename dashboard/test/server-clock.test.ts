import { afterEach, describe, expect, it, vi } from 'vitest';
import { offsetRange, ServerClock } from '../src/server-clock.js';

/** The browser's correction of its clock from API responses' `Date` headers. */

const t0 = Date.parse('2026-12-02T10:00:00.000Z');
const withDate = (ms: number) => new Response(null, { headers: { date: new Date(ms).toUTCString() } });

/** Sends at `sentAt`, lets the response arrive at `receivedAt` (the browser's clock), and observes it. */
function exchange(clock: ServerClock, sentAt: number, receivedAt: number, serverMs: number): void {
  vi.setSystemTime(receivedAt);
  clock.observe(withDate(serverMs), sentAt);
}

describe('ServerClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stays on a correct browser clock when a response arrives seconds late', () => {
    vi.useFakeTimers();
    const clock = new ServerClock();
    // Written by the server as the request arrived, read by the page 3.4 s later (a busy workstation).
    exchange(clock, t0 + 200, t0 + 3600, t0 + 250);
    expect(clock.now()).toBe(t0 + 3600);
  });

  it('corrects a workstation a minute slow, to within the exchange’s uncertainty, and keeps that', () => {
    vi.useFakeTimers();
    const clock = new ServerClock();
    const skewMs = 60_000;
    exchange(clock, t0, t0 + 400, t0 + skewMs + 150);
    const corrected = clock.now() - (t0 + 400);
    expect(Math.abs(corrected - skewMs)).toBeLessThanOrEqual(700);
    // A later response that the correction already explains (however late) leaves it alone:
    // the countdowns do not jump.
    exchange(clock, t0 + 5000, t0 + 9000, t0 + skewMs + 5100);
    expect(clock.now() - (t0 + 9000)).toBe(corrected);
    // One that proves it wrong (the workstation's clock was set right meanwhile) moves it.
    exchange(clock, t0 + 20_000, t0 + 20_100, t0 + 20_050);
    expect(clock.now()).toBe(t0 + 20_100);
  });

  it('gives the offsets one response allows, the header being truncated to the second', () => {
    expect(offsetRange(t0, t0 - 300, t0 + 200)).toEqual({ lowMs: -200, highMs: 1300 });
  });
});
