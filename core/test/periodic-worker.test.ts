import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PeriodicWorker } from '../src/periodic-worker.js';

const log = pino({ level: 'silent' });
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** A round that waits until released, counting how many run at once. */
function gatedRounds() {
  let release: () => void = () => undefined;
  let running = 0;
  const state = { rounds: 0, maxConcurrent: 0 };
  const round = async () => {
    running++;
    state.maxConcurrent = Math.max(state.maxConcurrent, running);
    state.rounds++;
    await new Promise<void>((r) => {
      release = r;
    });
    running--;
  };
  return { state, round, release: () => release() };
}

describe('PeriodicWorker', () => {
  it('never overlaps rounds, and coalesces every request made during a round into one more round', async () => {
    const gate = gatedRounds();
    const worker = new PeriodicWorker({ name: 'test', intervalMs: 60_000, round: gate.round, log });
    const first = worker.runOnce();
    const asked = [worker.runOnce(), worker.runOnce(), worker.runOnce()];
    expect(asked[0]).toBe(asked[2]);
    await tick();
    expect(gate.state.rounds).toBe(1);
    gate.release();
    await first;
    await tick();
    expect(gate.state.rounds).toBe(2);
    gate.release();
    await Promise.all(asked);
    await tick(10);
    expect(gate.state).toEqual({ rounds: 2, maxConcurrent: 1 });
    expect(worker.health()).toMatchObject({ name: 'test', running: false, rounds: 2, failures: 0 });
  });

  it('rejects runOnce with the round error, counts it, and recovers on the next round', async () => {
    let fail = true;
    const worker = new PeriodicWorker({
      name: 'flaky',
      intervalMs: 60_000,
      log,
      round: async () => {
        if (fail) throw new Error('database away');
      },
    });
    await expect(worker.runOnce()).rejects.toThrow('database away');
    await expect(worker.runOnce()).rejects.toThrow('database away');
    expect(worker.health()).toMatchObject({ failures: 2, consecutiveFailures: 2, lastError: 'database away' });
    fail = false;
    await worker.runOnce();
    expect(worker.health()).toMatchObject({ rounds: 3, failures: 2, consecutiveFailures: 0 });
  });

  it('polls once started, goes on after a failed round, and stop() waits for the round in progress', async () => {
    let rounds = 0;
    let inRound = false;
    const worker = new PeriodicWorker({
      name: 'poll',
      intervalMs: 5,
      log,
      round: async () => {
        rounds++;
        inRound = true;
        await tick(20);
        inRound = false;
        if (rounds === 1) throw new Error('first round fails');
      },
    });
    worker.start();
    expect(worker.health().running).toBe(true);
    while (rounds < 3) await tick(5);
    await worker.stop();
    expect(inRound).toBe(false);
    const after = rounds;
    await worker.runOnce();
    await tick(40);
    expect(rounds).toBe(after);
    expect(worker.health()).toMatchObject({ running: false, failures: 1 });
  });
});
