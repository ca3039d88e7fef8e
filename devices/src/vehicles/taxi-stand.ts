import type { SnappedPlace } from '../network/graph.js';
import type { Random } from '../random.js';

interface QueuedTaxi {
  vehicleId: string;
  enteredAtMs: number;
}

/**
 * A taxi stand's queue. Taxis join at the back and only the one at the head takes the next
 * passenger, as DF Art. 37 m and n require, so in normal operation the fleet never jumps the
 * queue (DF_STAND_QUEUE_JUMP, BEL_STAND_QUEUE_JUMP) nor waits at a full stand (BEL_STAND_OVERFLOW):
 * a taxi that finds the stand full goes to another.
 *
 * Passengers turn up as a Poisson process; one who finds no taxi waits for the next to arrive.
 */
export class TaxiStand {
  private readonly queue: QueuedTaxi[] = [];
  private nextPassengerMs: number;
  private readonly meanGapMs: number;

  constructor(
    readonly place: SnappedPlace,
    private readonly rng: Random,
    startMs: number,
  ) {
    // Busier stands (more places) see passengers more often: one per ~50 min per place.
    this.meanGapMs = (3_000_000 / Math.max(1, place.standPlaces ?? 4)) * rng.range(0.8, 1.2);
    this.nextPassengerMs = startMs + rng.exponential(this.meanGapMs);
  }

  get places(): number {
    return this.place.standPlaces ?? 4;
  }

  get waiting(): number {
    return this.queue.length;
  }

  hasRoom(): boolean {
    return this.queue.length < this.places;
  }

  join(vehicleId: string, nowMs: number): void {
    if (!this.queue.some((q) => q.vehicleId === vehicleId)) this.queue.push({ vehicleId, enteredAtMs: nowMs });
  }

  leave(vehicleId: string): void {
    const i = this.queue.findIndex((q) => q.vehicleId === vehicleId);
    if (i >= 0) this.queue.splice(i, 1);
  }

  /**
   * The head of the queue takes the waiting passenger, if one has turned up by `nowMs`. Returns
   * whether `vehicleId` got a passenger (and so left the queue).
   */
  takePassenger(vehicleId: string, nowMs: number): boolean {
    if (this.queue[0]?.vehicleId !== vehicleId || nowMs < this.nextPassengerMs) return false;
    this.queue.shift();
    this.nextPassengerMs = nowMs + this.rng.exponential(this.meanGapMs);
    return true;
  }
}
