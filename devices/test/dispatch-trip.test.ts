import type { TelemetryInput } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { chooseDropoff, choosePickup, STAND_CLEARANCE_M } from '../src/dispatch/pickups.js';
import { Fleet, type SimTaxi } from '../src/fleet/fleet.js';
import { buildRoster } from '../src/fleet/roster.js';
import { distanceM } from '../src/geo.js';
import { Random } from '../src/random.js';
import { StandWaitActivity } from '../src/vehicles/stand-wait-activity.js';

/**
 * A simulated taxi sent to a booking (TaxiBehaviour.acceptBooking): it drives to the pickup on the
 * network and stops there (within the API's 50 m arrival radius), meter free and no street hail
 * on the way; the meter goes hired once the passenger is in, and free again at the destination.
 */

const STEP_MS = 2000;
/** A Wednesday, 14:00 in Brasília and Belém: most drivers are on shift. */
const START = Date.parse('2026-11-25T17:00:00Z');
const roster = buildRoster(24, START);

interface Run {
  samples: TelemetryInput[];
  /** Index of the first sample at the pickup with the car standing. */
  arrivedAt: number;
}

/** Drive `taxi` until its booking is over (or `limitMs`), one sample per step. */
function follow(fleet: Fleet, taxi: SimTaxi, fromMs: number, limitMs: number): TelemetryInput[] {
  const samples: TelemetryInput[] = [];
  for (let t = fromMs + STEP_MS; t <= fromMs + limitMs; t += STEP_MS) {
    fleet.advanceTo(t);
    samples.push(taxi.vehicle.report(t));
    if (taxi.behaviour.bookingId === undefined && samples.some((s) => s.meter?.state === 'hired')) break;
  }
  return samples;
}

function freeTaxis(fleet: Fleet, pack: 'df-taxi' | 'belem-taxi', nowMs: number): SimTaxi[] {
  return roster.entries
    .filter((e) => e.vehicle.pack === pack)
    .flatMap((e) => {
      const taxi = fleet.taxi(e.vehicle.id);
      return taxi?.behaviour.canTakeBooking(nowMs) ? [taxi] : [];
    });
}

function trip(fleet: Fleet, taxi: SimTaxi, pickup: { lat: number; lon: number }): Run {
  const samples = follow(fleet, taxi, START, 40 * 60_000);
  const arrivedAt = samples.findIndex((s) => s.speedKmh === 0 && distanceM(s, pickup) <= 50);
  return { samples, arrivedAt };
}

describe('a simulated taxi serving a booking', () => {
  for (const pack of ['df-taxi', 'belem-taxi'] as const) {
    it(`${pack}: drives to the pickup, waits there, carries the passenger with the meter hired, then is free`, () => {
      const fleet = new Fleet(roster, { seed: 7, startMs: START, warmUpMs: 30 * 60_000 });
      const taxi = freeTaxis(fleet, pack, START)[0];
      if (!taxi) throw new Error(`no free ${pack} taxi at the start`);
      const world = fleet.taxiWorld(pack);
      const rng = new Random('pickup');
      const chosen = choosePickup(world, rng, taxi.vehicle.state.position);
      const pickup = chosen.place;
      const dropoff = chooseDropoff(world, rng, chosen.node);
      if (!dropoff) throw new Error('no lawful destination from the pickup');
      expect(world.stands.every((s) => distanceM(pickup, world.graph.node(s.place.node)) >= STAND_CLEARANCE_M)).toBe(
        true,
      );
      expect(taxi.behaviour.acceptBooking({ bookingId: 'bk_test', pickup, dropoff, passengers: 2 }, START)).toBe(true);
      expect(taxi.behaviour.canTakeBooking(START)).toBe(false);

      const { samples, arrivedAt } = trip(fleet, taxi, pickup);
      expect(arrivedAt, 'the taxi stops within 50 m of the pickup').toBeGreaterThanOrEqual(0);
      // On the way: meter free (no street hail taken), the car reporting all along.
      const before = samples.slice(0, arrivedAt);
      expect(before.every((s) => s.meter?.state === 'free')).toBe(true);
      // Then: hired at the pickup, with the booking's party aboard.
      const hiredAt = samples.findIndex((s) => s.meter?.state === 'hired');
      expect(hiredAt).toBeGreaterThan(arrivedAt);
      const boarding = samples[hiredAt] as TelemetryInput;
      expect(distanceM(boarding, pickup)).toBeLessThanOrEqual(50);
      expect(boarding.passengers).toBe(2);
      // Carried somewhere else, then free again with nobody aboard and no booking held.
      const last = samples[samples.length - 1] as TelemetryInput;
      expect(last.meter?.state).toBe('free');
      expect(last.passengers).toBe(0);
      expect(distanceM(last, pickup)).toBeGreaterThan(1000);
      // Where the booking said the passenger was going (the car pulls away from there once free).
      const alighting = samples.findLastIndex((s) => s.meter?.state === 'stopped');
      expect(distanceM(samples[alighting] as TelemetryInput, dropoff)).toBeLessThan(50);
      expect(taxi.behaviour.bookingId).toBeUndefined();
      // No jump anywhere: cutting the cruise short brakes to a stop at a vertex, it does not teleport.
      for (let i = 1; i < samples.length; i++) {
        const a = samples[i - 1] as TelemetryInput;
        const b = samples[i] as TelemetryInput;
        expect(distanceM(a, b) / (STEP_MS / 1000), `step ${i}`).toBeLessThan(30);
      }
    });
  }

  it('a taxi waiting at a stand leaves its queue when it accepts a booking', () => {
    const fleet = new Fleet(roster, { seed: 3, startMs: START, warmUpMs: 30 * 60_000 });
    let t = START;
    let waiting: SimTaxi | undefined;
    // Find a free taxi queueing at a stand.
    for (; t < START + 30 * 60_000 && !waiting; t += STEP_MS) {
      fleet.advanceTo(t);
      waiting = freeTaxis(fleet, 'df-taxi', t).find((x) => x.vehicle.currentActivity instanceof StandWaitActivity);
    }
    if (!waiting) throw new Error('no taxi waited at a stand within 30 minutes');
    const wait = waiting.vehicle.currentActivity as StandWaitActivity;
    const queued = wait.stand.waiting;
    const pickup = choosePickup(fleet.taxiWorld('df-taxi'), new Random('stand'), waiting.vehicle.state.position).place;
    expect(waiting.behaviour.acceptBooking({ bookingId: 'bk_stand', pickup }, t)).toBe(true);
    expect(wait.outcome).toBe('dispatched');
    expect(wait.stand.waiting).toBe(queued - 1);
    fleet.advanceTo(t + STEP_MS);
    expect(waiting.vehicle.currentActivity?.kind).not.toBe('stand-wait');
  });

  it('a booking called off on the way sends the taxi back to work, meter never hired for it', () => {
    const fleet = new Fleet(roster, { seed: 11, startMs: START, warmUpMs: 30 * 60_000 });
    const taxi = freeTaxis(fleet, 'belem-taxi', START)[0];
    if (!taxi) throw new Error('no free Belém taxi at the start');
    const pickup = choosePickup(fleet.taxiWorld('belem-taxi'), new Random('cancel'), taxi.vehicle.state.position).place;
    taxi.behaviour.acceptBooking({ bookingId: 'bk_cancel', pickup }, START);
    fleet.advanceTo(START + 20_000);
    expect(taxi.behaviour.dropBooking('bk_cancel')).toBe(true);
    expect(taxi.behaviour.bookingId).toBeUndefined();
    fleet.advanceTo(START + 60_000);
    // Back to work: free for the next booking (cruising or queueing), until its next street passenger.
    expect(taxi.behaviour.canTakeBooking(START + 60_000)).toBe(true);
    expect(taxi.vehicle.meter?.state).toBe('free');
  });

  it('a taxi that is not free refuses a booking', () => {
    const fleet = new Fleet(roster, { seed: 5, startMs: START, warmUpMs: 30 * 60_000 });
    const busy = roster.entries
      .map((e) => fleet.taxi(e.vehicle.id))
      .find((x) => x !== undefined && (x.vehicle.meter?.state === 'hired' || x.vehicle.meter?.state === 'off'));
    if (!busy) throw new Error('no hired or parked taxi at the start');
    expect(busy.behaviour.canTakeBooking(START)).toBe(false);
    expect(busy.behaviour.acceptBooking({ bookingId: 'bk_busy', pickup: busy.vehicle.state.position }, START)).toBe(
      false,
    );
  });
});
