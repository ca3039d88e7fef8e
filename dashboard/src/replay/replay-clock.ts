/** The replay speeds offered: real time up to a minute per second. */
export const replaySpeeds = [1, 5, 15, 60] as const;
export type ReplaySpeed = (typeof replaySpeeds)[number];

/**
 * The replay's own clock over [from, to]: the slider, the marker and the chart cursor all follow
 * it, so they never disagree. Playing advances it by the wall time elapsed × speed on each frame;
 * it stops at the end.
 */
export class ReplayClock {
  from = 0;
  to = 0;
  t = 0;
  speed: ReplaySpeed = 1;
  private frame: number | null = null;
  private lastFrameAt = 0;
  private readonly listeners = new Set<() => void>();

  get playing(): boolean {
    return this.frame !== null;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  reset(from: number, to: number, t = from): void {
    this.pause();
    this.from = from;
    this.to = to;
    this.t = Math.min(Math.max(t, from), to);
    this.emit();
  }

  seek(t: number): void {
    this.t = Math.min(Math.max(t, this.from), this.to);
    this.emit();
  }

  setSpeed(speed: ReplaySpeed): void {
    this.speed = speed;
    this.emit();
  }

  play(): void {
    if (this.playing || this.to <= this.from) return;
    // Played to the end: play again from the start.
    if (this.t >= this.to) this.t = this.from;
    this.lastFrameAt = performance.now();
    this.frame = requestAnimationFrame((now) => this.tick(now));
    this.emit();
  }

  pause(): void {
    if (this.frame === null) return;
    cancelAnimationFrame(this.frame);
    this.frame = null;
    this.emit();
  }

  private tick(now: number): void {
    this.t = Math.min(this.to, this.t + (now - this.lastFrameAt) * this.speed);
    this.lastFrameAt = now;
    if (this.t >= this.to) {
      this.frame = null;
    } else {
      this.frame = requestAnimationFrame((next) => this.tick(next));
    }
    this.emit();
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
