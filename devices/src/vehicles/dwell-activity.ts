import type { Activity, VehicleState } from './vehicle-state.js';

export interface TimedAction {
  /** Seconds after the dwell starts. */
  atS: number;
  apply(state: VehicleState): void;
}

/**
 * Standing still for a fixed time, with things happening at set moments (the door opens,
 * passengers board, the meter is started, the engine is switched off).
 */
export class DwellActivity implements Activity {
  private elapsedS = 0;
  private nextAction = 0;
  private readonly actions: TimedAction[];

  constructor(
    readonly kind: string,
    private readonly durationS: number,
    actions: TimedAction[] = [],
  ) {
    this.actions = [...actions].sort((a, b) => a.atS - b.atS);
  }

  get done(): boolean {
    return this.elapsedS >= this.durationS && this.nextAction >= this.actions.length;
  }

  step(state: VehicleState, _nowMs: number, dtS: number): number {
    state.speedMs = 0;
    const used = Math.min(dtS, Math.max(0, this.durationS - this.elapsedS));
    this.elapsedS += used;
    while (this.nextAction < this.actions.length && (this.actions[this.nextAction]?.atS ?? 0) <= this.elapsedS) {
      this.actions[this.nextAction]?.apply(state);
      this.nextAction++;
    }
    return used;
  }
}
