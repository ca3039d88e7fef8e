import type { LiveViolation, ViolationFilters, ViolationItem } from './api-types.js';

interface Entry {
  item: ViolationItem;
  startedMs: number;
  /** When this entry was last written, on the store's own counter (see `replace`). */
  writtenAt: number;
}

/** What changed in one notification: the feed highlights the violations that were just raised. */
export interface ViolationChange {
  raised: readonly string[];
  /** Ids whose record was replaced by newer facts (live update, review, reload). */
  updated: readonly string[];
}

/**
 * The violations the dashboard knows: every open one (they mark vehicles and make the counter)
 * plus the newest page of the feed's current filters. Like the fleet store it never touches the
 * page; subscribers are told what changed and read what they draw.
 */
export class ViolationStore {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(change: ViolationChange) => void>();
  private writes = 0;
  private sorted: Entry[] | null = null;
  /** Vehicle id → ids of its open violations; rebuilt lazily, read on every popup refresh and mark redraw. */
  private openByVehicle: Map<string, string[]> | null = null;

  subscribe(listener: (change: ViolationChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: string): ViolationItem | undefined {
    return this.entries.get(id)?.item;
  }

  get size(): number {
    return this.entries.size;
  }

  /** A point on the store's write counter: pass it to `replace` to keep what is written after it. */
  mark(): number {
    return this.writes;
  }

  /**
   * Takes a fresh listing as the whole truth, except for records written after `since` (a push or
   * a review that landed while the listing was in flight is newer than the listing's snapshot).
   */
  replace(items: readonly ViolationItem[], since: number): void {
    const kept = [...this.entries.values()].filter((entry) => entry.writtenAt > since);
    this.entries.clear();
    for (const item of items) this.write(item);
    for (const entry of kept) this.entries.set(entry.item.id, entry);
    this.changed({ raised: [], updated: items.map((item) => item.id) });
  }

  /** Adds a listing (another filter's page) without forgetting anything; `since` as for `replace`. */
  merge(items: readonly ViolationItem[], since: number): void {
    const updated: string[] = [];
    for (const item of items) {
      const existing = this.entries.get(item.id);
      if (existing && existing.writtenAt > since) continue;
      this.write(item);
      updated.push(item.id);
    }
    if (updated.length > 0) this.changed({ raised: [], updated });
  }

  /** A `violation` push: `raised` adds, `updated` replaces in place (the start, hence the order, is fixed). */
  applyLive(violation: LiveViolation): void {
    const { change, ...item } = violation;
    const known = this.entries.has(item.id);
    this.write(item);
    // A `raised` for a violation already listed (pushed while the list loaded) is not news.
    this.changed(
      change === 'raised' && !known ? { raised: [item.id], updated: [] } : { raised: [], updated: [item.id] },
    );
  }

  /** The answer to a review: the record in its new status. */
  applyReviewed(item: ViolationItem): void {
    this.write(item);
    this.changed({ raised: [], updated: [item.id] });
  }

  clear(): void {
    this.entries.clear();
    this.changed({ raised: [], updated: [] });
  }

  /** Newest first (by start, like the API), matching the filters, at most `limit`. */
  list(filters: ViolationFilters, limit: number): ViolationItem[] {
    const result: ViolationItem[] = [];
    for (const entry of this.byStartDescending()) {
      if (!matches(entry.item, filters)) continue;
      result.push(entry.item);
      if (result.length >= limit) break;
    }
    return result;
  }

  openCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.item.status === 'open') count += 1;
    return count;
  }

  /** The vehicle's open violations, newest first. */
  openForVehicle(vehicleId: string): ViolationItem[] {
    const ids = this.openIndex().get(vehicleId) ?? [];
    return ids.flatMap((id) => {
      const item = this.entries.get(id)?.item;
      return item ? [item] : [];
    });
  }

  /** Vehicles with at least one open violation: the ones the map rings. */
  flaggedVehicleIds(): string[] {
    return [...this.openIndex().keys()];
  }

  private write(item: ViolationItem): void {
    this.writes += 1;
    const startedMs = Date.parse(item.startedAt);
    this.entries.set(item.id, { item, startedMs, writtenAt: this.writes });
  }

  private changed(change: ViolationChange): void {
    this.sorted = null;
    this.openByVehicle = null;
    for (const listener of this.listeners) listener(change);
  }

  private byStartDescending(): Entry[] {
    if (this.sorted === null) {
      // The API's order: start descending, then id descending for events that start together.
      this.sorted = [...this.entries.values()].sort(
        (a, b) => b.startedMs - a.startedMs || (a.item.id < b.item.id ? 1 : a.item.id > b.item.id ? -1 : 0),
      );
    }
    return this.sorted;
  }

  private openIndex(): Map<string, string[]> {
    if (this.openByVehicle === null) {
      const index = new Map<string, string[]>();
      for (const entry of this.byStartDescending()) {
        if (entry.item.status !== 'open') continue;
        const ids = index.get(entry.item.vehicleId);
        if (ids) ids.push(entry.item.id);
        else index.set(entry.item.vehicleId, [entry.item.id]);
      }
      this.openByVehicle = index;
    }
    return this.openByVehicle;
  }
}

export function matches(item: ViolationItem, filters: ViolationFilters): boolean {
  return (
    (filters.pack === undefined || item.pack === filters.pack) &&
    (filters.status === undefined || item.status === filters.status) &&
    (filters.confidence === undefined || item.confidence === filters.confidence)
  );
}
