import type { Bus, FleetUpdate } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import { haversineM } from '@vigia/rules';
import { around } from 'geokdbush';
import KDBush from 'kdbush';
import type { Logger } from 'pino';
import type { CandidateSearch, LatLon, LiveTaxi, NearestFreeOptions } from './dispatch-ports.js';
import { loadLiveTaxis } from './eta-store.js';

export interface LiveFleetIndexOptions {
  /** OFFLINE_AFTER_S: a taxi without a position for this long is not offered anything. */
  readonly offlineAfterS: number;
  /**
   * How old the spatial index may grow while positions change before it is rebuilt, in
   * milliseconds (default 250). Every hit is checked against the taxi's current state, so a taxi
   * that went hired or offline is never returned whatever the index's age, and taxis that became
   * free since the build are measured one by one beside the tree; only a few metres of movement
   * wait for the next rebuild. 0: rebuild before every search after a change.
   */
  readonly maxIndexAgeMs?: number;
  readonly now?: () => number;
  /** Where a failed reload after a bus outage is reported (none: not reported). */
  readonly log?: Pick<Logger, 'warn'>;
}

export interface LiveFleetIndexStats {
  readonly taxis: number;
  readonly indexed: number;
  readonly rebuilds: number;
  /** Milliseconds the last rebuild took. */
  readonly lastRebuildMs: number;
}

/** A vehicle set at most 1/SCAN_RATIO of the fleet is searched by measuring each of its taxis. */
const SCAN_RATIO = 8;

/** Free for hire: meter `free`, or no meter data (phone-only cooperatives). */
export const isFree = (taxi: LiveTaxi): boolean => taxi.meterState === null || taxi.meterState === 'free';

/**
 * The live taxis (vehicles of service type `taxi`), each as its last fleet update left it, with a
 * k-d tree (kdbush) over the free ones for nearest-first search by great-circle distance
 * (geokdbush). Fed by the bus `fleet` messages, which every API process receives, so each process
 * holds the whole fleet (20 000 taxis take a few MB); loaded from `vehicle_live` at start and
 * again when the bus resumes after an outage (`bus-resumed`).
 *
 * Why a tree rebuilt now and then rather than H3 buckets kept up to date: positions arrive tens of
 * thousands a minute and searches a few a second, so the tree is rebuilt only when positions
 * changed, at most every maxIndexAgeMs (a few milliseconds for 10 000 free taxis, see `npm run
 * bench:dispatch`), and kdbush's nearest-first walk needs no ring-size tuning when the operator's
 * fleet is sparse. A started index rebuilds on a timer; one built by hand (tests) in the search.
 */
export class LiveFleetIndex implements CandidateSearch {
  private readonly taxis = new Map<string, LiveTaxi>();
  private tree: KDBush | undefined;
  private treeIds: string[] = [];
  private inTree = new Set<string>();
  /** Free taxis that were not in the tree when it was built (became free or came online since). */
  private fresh = new Set<string>();
  private builtAtMs = Number.NEGATIVE_INFINITY;
  private dirty = true;
  private rebuilds = 0;
  private lastRebuildMs = 0;
  private readonly maxIndexAgeMs: number;
  private readonly now: () => number;
  private unsubscribe: () => void = () => {};
  /** Set by start(): rebuilds run on a timer after changes, not in the search that finds the tree stale. */
  private background = false;
  private rebuildTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: LiveFleetIndexOptions) {
    this.maxIndexAgeMs = opts.maxIndexAgeMs ?? 250;
    this.now = opts.now ?? Date.now;
  }

  /** Subscribes to the bus first (so nothing published meanwhile is lost), then loads `vehicle_live`. */
  static async start(db: Queryable, bus: Bus, opts: LiveFleetIndexOptions): Promise<LiveFleetIndex> {
    const index = new LiveFleetIndex(opts);
    index.background = true;
    index.unsubscribe = bus.subscribe((message) => {
      if (message.type === 'fleet') index.apply(message.updates);
      // Fleet updates were lost while the bus was away: `vehicle_live` has them. `put` keeps the
      // newer of two positions, so updates heard during the read are not undone by it.
      if (message.type === 'bus-resumed') {
        loadLiveTaxis(db).then(
          (taxis) => {
            for (const taxi of taxis) index.put(taxi);
          },
          (err: unknown) =>
            opts.log?.warn({ err, code: 'LIVE_FLEET_RELOAD_FAILED' }, 'live taxis not reloaded after a bus outage'),
        );
      }
    });
    try {
      for (const taxi of await loadLiveTaxis(db)) index.put(taxi);
    } catch (err) {
      index.stop();
      throw err;
    }
    return index;
  }

  /** Stops following the bus (the state is kept as it was). */
  stop(): void {
    this.unsubscribe();
    this.unsubscribe = () => {};
    this.background = false;
    if (this.rebuildTimer) clearTimeout(this.rebuildTimer);
    this.rebuildTimer = undefined;
  }

  /** Takes fleet updates (newest sample per vehicle wins); vehicles that are not taxis are ignored. */
  apply(updates: readonly FleetUpdate[]): void {
    for (const u of updates) {
      if (u.serviceType !== 'taxi') {
        if (this.taxis.delete(u.vehicleId)) this.markDirty();
        continue;
      }
      this.put({
        vehicleId: u.vehicleId,
        plate: u.plate,
        pack: u.pack,
        operatorId: u.operatorId,
        lat: u.lat,
        lon: u.lon,
        tsMs: Date.parse(u.ts),
        speedKmh: u.speedKmh,
        meterState: u.meterState,
      });
    }
  }

  /** Records a taxi's state unless an older one than what is known. */
  put(taxi: LiveTaxi): void {
    const known = this.taxis.get(taxi.vehicleId);
    if (known && known.tsMs > taxi.tsMs) return;
    this.taxis.set(taxi.vehicleId, taxi);
    if (isFree(taxi) && !this.inTree.has(taxi.vehicleId)) this.fresh.add(taxi.vehicleId);
    this.markDirty();
  }

  get(vehicleId: string): LiveTaxi | undefined {
    return this.taxis.get(vehicleId);
  }

  isOnline(taxi: LiveTaxi, nowMs = this.now()): boolean {
    return nowMs - taxi.tsMs <= this.opts.offlineAfterS * 1000;
  }

  /** Free and online now: the state a taxi must be in to be offered a booking. */
  isAvailable(taxi: LiveTaxi, nowMs = this.now()): boolean {
    return isFree(taxi) && this.isOnline(taxi, nowMs);
  }

  nearestFree(point: LatLon, opts: NearestFreeOptions): LiveTaxi[] {
    if (opts.limit <= 0) return [];
    const nowMs = opts.nowMs ?? this.now();
    const wanted = opts.vehicleIds;
    // One cooperative's taxis among a city's: measuring each is cheaper than walking the tree
    // past everyone else's (a hundred distances against thousands of nodes), and exact.
    if (wanted && wanted.size * SCAN_RATIO <= this.taxis.size)
      return this.scan(point, wanted, opts.limit, opts.maxDistanceM, nowMs);
    const tree = this.currentTree(nowMs);
    const ids = this.treeIds;
    // The tree holds positions as of its build: each hit is judged on the taxi's current state.
    const hits = tree
      ? around(tree, point.lon, point.lat, opts.limit, opts.maxDistanceM / 1000, (i) => {
          const id = ids[i] as string;
          if (wanted && !wanted.has(id)) return false;
          const taxi = this.taxis.get(id);
          return taxi !== undefined && this.isAvailable(taxi, nowMs);
        })
      : [];
    const found: { taxi: LiveTaxi; d: number }[] = [];
    const measure = (taxi: LiveTaxi) => {
      const d = haversineM(point.lat, point.lon, taxi.lat, taxi.lon);
      if (d <= opts.maxDistanceM) found.push({ taxi, d });
    };
    for (const i of hits) measure(this.taxis.get(ids[i] as string) as LiveTaxi);
    // And the taxis free since the build, measured one by one: never missing from a search,
    // however recent the tree (a few hundred at most between two rebuilds).
    for (const id of this.fresh) {
      if (wanted && !wanted.has(id)) continue;
      const taxi = this.taxis.get(id);
      if (taxi && this.isAvailable(taxi, nowMs)) measure(taxi);
    }
    found.sort((a, b) => a.d - b.d);
    return found.slice(0, opts.limit).map((f) => f.taxi);
  }

  private scan(
    point: LatLon,
    wanted: ReadonlySet<string>,
    limit: number,
    maxDistanceM: number,
    nowMs: number,
  ): LiveTaxi[] {
    const found: { taxi: LiveTaxi; d: number }[] = [];
    for (const id of wanted) {
      const taxi = this.taxis.get(id);
      if (!taxi || !this.isAvailable(taxi, nowMs)) continue;
      const d = haversineM(point.lat, point.lon, taxi.lat, taxi.lon);
      if (d <= maxDistanceM) found.push({ taxi, d });
    }
    found.sort((a, b) => a.d - b.d);
    return found.slice(0, limit).map((f) => f.taxi);
  }

  stats(): LiveFleetIndexStats {
    return {
      taxis: this.taxis.size,
      indexed: this.treeIds.length,
      rebuilds: this.rebuilds,
      lastRebuildMs: this.lastRebuildMs,
    };
  }

  /** Rebuilds now (the benchmark measures it; searches call it when due). */
  rebuild(nowMs = this.now()): void {
    const started = performance.now();
    const ids: string[] = [];
    const points: LiveTaxi[] = [];
    for (const taxi of this.taxis.values()) {
      if (!isFree(taxi) || !this.isOnline(taxi, nowMs)) continue;
      ids.push(taxi.vehicleId);
      points.push(taxi);
    }
    let tree: KDBush | undefined;
    if (points.length > 0) {
      tree = new KDBush(points.length);
      for (const p of points) tree.add(p.lon, p.lat);
      tree.finish();
    }
    this.tree = tree;
    this.treeIds = ids;
    this.inTree = new Set(ids);
    this.fresh.clear();
    this.builtAtMs = nowMs;
    this.dirty = false;
    this.rebuilds += 1;
    this.lastRebuildMs = performance.now() - started;
  }

  /**
   * The tree is out of date. A started index rebuilds it on a timer, at most every maxIndexAgeMs,
   * so no search pays the rebuild (2–4 ms for 10 000 free taxis): the search latency stays the walk's.
   */
  private markDirty(): void {
    this.dirty = true;
    if (!this.background || this.rebuildTimer) return;
    const waitMs = Math.max(0, this.maxIndexAgeMs - (this.now() - this.builtAtMs));
    this.rebuildTimer = setTimeout(() => {
      this.rebuildTimer = undefined;
      if (this.dirty && this.background) this.rebuild();
    }, waitMs);
    this.rebuildTimer.unref();
  }

  private currentTree(nowMs: number): KDBush | undefined {
    // Taxis going offline need no rebuild (hits are checked); taxis coming back online arrive
    // through an update, which marks the index dirty. With the timer running, a search rebuilds
    // only if the timer fell well behind (a starved event loop).
    const maxAgeMs = this.background ? 4 * this.maxIndexAgeMs : this.maxIndexAgeMs;
    if (this.dirty && nowMs - this.builtAtMs >= maxAgeMs) this.rebuild(nowMs);
    return this.tree;
  }
}
