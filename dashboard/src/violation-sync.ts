import { type ApiClient, ApiError, UnauthorizedError } from './api-client.js';
import type { ViolationFilters, ViolationItem } from './api-types.js';
import { toLiveViolation, toViolationItem } from './violation-guards.js';
import type { ViolationStore } from './violation-store.js';

/** The feed shows this many rows; it is also the page fetched for each filter. */
export const feedPageSize = 200;
/**
 * Open violations are all loaded (they mark vehicles and make the counter), up to this many: a
 * backlog larger than that is a review problem no map can solve, and the counter says "at least".
 */
const maxOpenLoaded = 10_000;
const retryDelayMs = 15_000;

export type SyncState =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'ready'; openTruncated: boolean }
  | { kind: 'failed'; message: string };

export interface ViolationSyncOptions {
  store: ViolationStore;
  /** Told whenever loading starts, ends or fails, for the panel's status line. */
  onState: (state: SyncState) => void;
  /** A request was refused for the token: the session decides what to do. */
  onUnauthorized: () => void;
}

/**
 * Keeps the violation store in step with the API: the open violations and the newest page of the
 * feed's filters on sign-in and after every reconnect (pushes missed while disconnected are not
 * replayed), a new page when the filters change, and `violation` pushes in between.
 */
export class ViolationSync {
  private api: ApiClient | null = null;
  private filters: ViolationFilters = {};
  /** Bumped by every full load (sign-in, reconnect): an answer to an older one is stale. */
  private generation = 0;
  /** Bumped by every filter change: only the page of the current filters is merged. */
  private pageGeneration = 0;
  private reloading = false;
  private retryTimer: number | undefined;

  constructor(private readonly options: ViolationSyncOptions) {}

  get client(): ApiClient | null {
    return this.api;
  }

  /** A token was accepted: forget what another token could see and load afresh. */
  start(api: ApiClient): void {
    this.api = api;
    this.options.store.clear();
    this.reload();
  }

  stop(): void {
    this.api = null;
    this.generation += 1;
    this.reloading = false;
    window.clearTimeout(this.retryTimer);
    this.options.store.clear();
    this.options.onState({ kind: 'idle' });
  }

  /** After a reconnect. */
  resync(): void {
    this.reload();
  }

  /** A pushed `violation`; anything the feed cannot file is dropped (see violation-guards.ts). */
  applyLive(payload: unknown): void {
    if (this.api === null) return;
    const violation = toLiveViolation(payload);
    if (violation) this.options.store.applyLive(violation);
  }

  /** Fetches the newest page for the filters; the store already holds everything else the feed shows. */
  setFilters(filters: ViolationFilters): void {
    this.filters = { ...filters };
    const api = this.api;
    if (api === null) return;
    // A full load in flight asked for the old filters' page: start it over with the new ones.
    if (this.reloading) {
      this.reload();
      return;
    }
    const generation = this.generation;
    const pageGeneration = ++this.pageGeneration;
    const since = this.options.store.mark();
    api.listViolations(this.filters, feedPageSize).then(
      (page) => {
        if (generation !== this.generation || pageGeneration !== this.pageGeneration) return;
        this.options.store.merge(valid(page), since);
      },
      (error: unknown) => this.failed(generation, error),
    );
  }

  private reload(): void {
    const api = this.api;
    if (api === null) return;
    window.clearTimeout(this.retryTimer);
    const generation = ++this.generation;
    this.reloading = true;
    const since = this.options.store.mark();
    this.options.onState({ kind: 'loading' });
    Promise.all([
      api.listAllViolations({ status: 'open' }, maxOpenLoaded),
      api.listViolations(this.filters, feedPageSize),
    ]).then(
      ([open, page]) => {
        if (generation !== this.generation) return;
        this.reloading = false;
        this.options.store.replace([...valid(open.items), ...valid(page)], since);
        this.options.onState({ kind: 'ready', openTruncated: open.truncated });
      },
      (error: unknown) => this.failed(generation, error),
    );
  }

  private failed(generation: number, error: unknown): void {
    if (generation !== this.generation) return;
    this.reloading = false;
    // If the token is really gone the session signs out, which stops this sync and its retry.
    if (error instanceof UnauthorizedError) this.options.onUnauthorized();
    this.options.onState({ kind: 'failed', message: describe(error) });
    // A control-room screen is often left alone: try again rather than wait for someone to notice.
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.reload(), retryDelayMs);
  }
}

function valid(items: readonly unknown[]): ViolationItem[] {
  return items.flatMap((item) => {
    const violation = toViolationItem(item);
    return violation ? [violation] : [];
  });
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'the request timed out';
  if (error instanceof Error) return error.message;
  return String(error);
}
