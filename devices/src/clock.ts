/**
 * Where the simulator reads the time. Tests and scenarios inject a clock they move by hand, so a
 * simulated hour runs in milliseconds and a scenario can be set on a chosen weekday and minute.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  set(epochMs: number): void {
    this.current = epochMs;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
