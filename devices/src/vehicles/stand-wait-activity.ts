import type { TaxiStand } from './taxi-stand.js';
import type { Activity, VehicleState } from './vehicle-state.js';

export type StandWaitOutcome = 'passenger' | 'gave-up' | 'dispatched';

/** A free taxi waiting in a stand's queue until a passenger takes it, or it gives up. */
export class StandWaitActivity implements Activity {
  readonly kind = 'stand-wait';
  outcome: StandWaitOutcome | undefined;
  private joined = false;

  constructor(
    readonly stand: TaxiStand,
    private readonly vehicleId: string,
    /** Leave the queue at this time whatever happens (patience, or the end of the shift). */
    private readonly leaveAtMs: number,
  ) {}

  get done(): boolean {
    return this.outcome !== undefined;
  }

  /** Leave the queue now: the radio sent the taxi to a booking. */
  leaveForBooking(): void {
    if (this.outcome !== undefined) return;
    this.stand.leave(this.vehicleId);
    this.outcome = 'dispatched';
  }

  step(state: VehicleState, nowMs: number, dtS: number): number {
    state.speedMs = 0;
    if (!this.joined) {
      this.stand.join(this.vehicleId, nowMs);
      this.joined = true;
    }
    const end = nowMs + dtS * 1000;
    if (this.stand.takePassenger(this.vehicleId, end)) {
      this.outcome = 'passenger';
    } else if (end >= this.leaveAtMs) {
      this.stand.leave(this.vehicleId);
      this.outcome = 'gave-up';
    }
    return dtS;
  }
}
