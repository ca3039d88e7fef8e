import { describe, expect, it } from 'vitest';
import { CheckpointPacer } from '../src/rules/checkpoint-pacer.js';

describe('checkpoint pacing', () => {
  it('checkpoints every interval while a checkpoint is cheap', () => {
    const pacer = new CheckpointPacer(5000, 0.05, 0);
    expect(pacer.due(4999)).toBe(false);
    expect(pacer.due(5000)).toBe(true);
    expect(pacer.done(5000, 20)).toBe(5000);
    expect(pacer.delayMs(6000)).toBe(4000);
    expect(pacer.due(9999)).toBe(false);
    expect(pacer.due(10_000)).toBe(true);
  });

  it('spaces checkpoints out so that writing them takes at most the share of the time', () => {
    const pacer = new CheckpointPacer(5000, 0.05, 0);
    // A round of 900 ms (20 000 vehicles): the next no sooner than 18 s after this one started.
    expect(pacer.done(5000, 900)).toBe(18_000);
    expect(pacer.due(22_999)).toBe(false);
    expect(pacer.due(23_000)).toBe(true);
    // The state shrank: back to the interval.
    expect(pacer.done(23_000, 10)).toBe(5000);
    expect(pacer.due(28_000)).toBe(true);
  });
});
