import type { FleetUpdate } from '@vigia/core';
import { type FleetDelta, FleetDeltaEncoder } from './fleet-delta.js';
import type { Viewport } from './live-protocol.js';

/** `[west, south, east, north]` in degrees. */
export type Area = readonly [number, number, number, number];

/**
 * The viewport's bbox grown by `margin` of its width and height on each side (clamped to the
 * globe), so that a vehicle about to enter the view is already drawn and a small pan needs no
 * round trip.
 */
export function areaOf(viewport: Viewport, margin: number): Area {
  const [west, south, east, north] = viewport.bbox;
  const dx = (east - west) * margin;
  const dy = (north - south) * margin;
  return [Math.max(-180, west - dx), Math.max(-90, south - dy), Math.min(180, east + dx), Math.min(90, north + dy)];
}

export function inArea(area: Area, lat: number, lon: number): boolean {
  return lon >= area[0] && lon <= area[2] && lat >= area[1] && lat <= area[3];
}

export interface ViewportFollowerOptions {
  /** LIVE_VIEWPORT_MARGIN: the area is the view plus this share of its size on each side. */
  margin: number;
  /** LIVE_OUTSIDE_REFRESH_MS: a vehicle outside the area waits at most this long before it is sent. */
  outsideRefreshMs: number;
}

/** How many slices the outside refresh is cut into: each push sends the slices whose turn has come. */
const SLOTS = 256;

/** A vehicle's slice: fixed per vehicle, spread evenly over the fleet. */
function slotOf(vehicleId: string): number {
  let hash = 2166136261;
  for (let i = 0; i < vehicleId.length; i++) hash = Math.imul(hash ^ vehicleId.charCodeAt(i), 16777619);
  return (hash >>> 0) % SLOTS;
}

/**
 * One socket's viewport subscription: decides, at each push, which of its scope's updates it gets
 * now and encodes them as a delta. Inside the area: at once. A vehicle leaving the area: at once
 * too (its last position, outside, so the map does not keep it in view). Outside: held, newest
 * sample only, and sent when its slice's turn comes; the slices take turns over
 * `outsideRefreshMs`, so no vehicle waits longer and every push carries about the same share of
 * them (waiting a fixed time from the first held sample would bunch a fleet that reports in step
 * into bursts). The client still counts and judges those vehicles (offline after
 * OFFLINE_AFTER_S), only later and with fewer bytes.
 */
export class ViewportFollower {
  private readonly encoder: FleetDeltaEncoder;
  /** Outside the area and not sent yet, by slice: each vehicle's newest update. */
  private readonly held = Array.from({ length: SLOTS }, () => new Map<string, FleetUpdate>());
  /** The last slice turn sent (a count of `outsideRefreshMs / SLOTS` periods since the epoch). */
  private lastTurn: number | null = null;
  private area: Area;

  constructor(
    viewport: Viewport,
    private readonly options: ViewportFollowerOptions,
  ) {
    this.area = areaOf(viewport, options.margin);
    // The subscription's first viewport decides: indexes given in rows must stay valid for its life.
    this.encoder = new FleetDeltaEncoder(viewport.packed === true);
  }

  /**
   * A new view: the vehicles of the scope now in the area (`known`: this process's newest update of
   * each vehicle), as far as the socket was not sent them already. Returns the delta and how many
   * vehicles of the scope are in the area.
   */
  move(viewport: Viewport, known: Iterable<FleetUpdate>): { delta: FleetDelta | null; inView: number } {
    this.area = areaOf(viewport, this.options.margin);
    const entering: FleetUpdate[] = [];
    for (const update of known) {
      if (!inArea(this.area, update.lat, update.lon)) continue;
      entering.push(update);
      this.held[slotOf(update.vehicleId)]?.delete(update.vehicleId);
    }
    return { delta: this.encoder.encode(entering), inView: entering.length };
  }

  /** The push at `nowMs` of this batch of updates, all in the socket's scope. */
  take(updates: readonly FleetUpdate[], nowMs: number): FleetDelta | null {
    const now: FleetUpdate[] = [];
    for (const update of updates) {
      const slot = this.held[slotOf(update.vehicleId)] as Map<string, FleetUpdate>;
      if (this.isWanted(update)) {
        now.push(update);
        slot.delete(update.vehicleId);
      } else {
        slot.set(update.vehicleId, update);
      }
    }
    const turn = Math.floor(nowMs / (this.options.outsideRefreshMs / SLOTS));
    // Every slice whose turn came since the last push (all of them after a long pause).
    const from = this.lastTurn === null ? turn : Math.max(this.lastTurn + 1, turn - SLOTS + 1);
    for (let t = from; t <= turn; t++) this.drain(t % SLOTS, now);
    this.lastTurn = turn;
    return this.encoder.encode(now);
  }

  /** Everything still held, for a socket going back to the whole feed. */
  release(): FleetDelta | null {
    const rest: FleetUpdate[] = [];
    for (let slot = 0; slot < SLOTS; slot++) this.drain(slot, rest);
    return this.encoder.encode(rest);
  }

  private drain(slot: number, into: FleetUpdate[]): void {
    const held = this.held[slot] as Map<string, FleetUpdate>;
    for (const update of held.values()) into.push(update);
    held.clear();
  }

  /** In the area now, or the socket last saw it there (it is leaving). */
  private isWanted(update: FleetUpdate): boolean {
    if (inArea(this.area, update.lat, update.lon)) return true;
    const seen = this.encoder.lastSent(update.vehicleId);
    return seen !== undefined && inArea(this.area, seen.lat, seen.lon);
  }
}
