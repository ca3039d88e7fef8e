import { type Booking, type Bus, type FleetUpdate, LogLimiter } from '@vigia/core';
import { haversineM } from '@vigia/rules';
import type { Logger } from 'pino';
import type { ActiveBooking, ActiveStatus, BookingStore } from './booking-store.js';

/**
 * A booking after acceptance follows its taxi's telemetry (API.md: "arrival, boarding and
 * completion follow from the taxi's telemetry"): `accepted` → `arrived` within
 * DISPATCH_ARRIVAL_RADIUS_M of the pickup; → `on-board` when the meter goes hired (or stopped,
 * the meter paused mid-ride), from `accepted` too (a pickup a few metres past the radius is
 * still a pickup); → `completed` when it is free again.
 *
 * Every API process sees every fleet update and holds the bookings in progress (loaded at start
 * and when the bus resumes after an outage, kept from the bus `booking` messages), so it needs no
 * query per position. Each move is a conditional update (`WHERE status = ANY(from)`): whichever
 * process gets there first moves it and publishes it, the others' updates match nothing.
 *
 * The same updates close an open offer whose taxi stopped being free (it took a passenger at the
 * kerb, went off duty): `withdrawn`, and the booking passes on without waiting for the expiry.
 */
export interface BookingProgressOptions {
  store: BookingStore;
  bus: Bus;
  log: Logger;
  /** DISPATCH_ARRIVAL_RADIUS_M. */
  arrivalRadiusM: number;
  /** Publishes the booking after a move (the service's publish). */
  publish: (booking: Booking) => Promise<void>;
  /** Closes an open offer whose taxi is no longer free (the service's `withdrawOffer`). */
  withdraw: (offerId: string) => Promise<void>;
}

const ACTIVE = new Set<string>(['accepted', 'arrived', 'on-board']);
const occupied = (meter: FleetUpdate['meterState']) => meter === 'hired' || meter === 'stopped';

/** The move one fleet update makes, if any. */
export function nextStatus(
  b: Pick<ActiveBooking, 'status' | 'lat' | 'lon'>,
  u: Pick<FleetUpdate, 'lat' | 'lon' | 'meterState'>,
  arrivalRadiusM: number,
): { from: ActiveStatus[]; to: 'arrived' | 'on-board' | 'completed' } | null {
  if (b.status === 'on-board') return u.meterState === 'free' ? { from: ['on-board'], to: 'completed' } : null;
  if (occupied(u.meterState)) return { from: ['accepted', 'arrived'], to: 'on-board' };
  if (b.status === 'accepted' && haversineM(u.lat, u.lon, b.lat, b.lon) <= arrivalRadiusM) {
    return { from: ['accepted'], to: 'arrived' };
  }
  return null;
}

/** The bookings in progress and the open offers, as stored. */
interface StoredProgress {
  readonly active: Awaited<ReturnType<BookingStore['activeBookings']>>;
  readonly offers: Awaited<ReturnType<BookingStore['openOffers']>>;
}

export class BookingProgress {
  /** Bookings in progress by vehicle. */
  private readonly active = new Map<string, ActiveBooking>();
  /** Open offers by vehicle: offer id. */
  private readonly offered = new Map<string, string>();
  /**
   * The newest sample time judged per vehicle that had an offer or a booking. Updates can arrive
   * older than one already judged (two ingest processes sending one vehicle's samples, positions
   * re-published after a Redis outage), and a stale "free" meter would complete a ride in
   * progress. One short string per taxi that was ever sent: bounded by the fleet.
   */
  private readonly judgedUpTo = new Map<string, string>();
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private readonly logLimiter = new LogLimiter();
  /** Set while `resync` reads: the `booking` messages heard meanwhile, to apply again after it. */
  private heardDuringResync: Booking[] | undefined;

  constructor(private readonly opts: BookingProgressOptions) {}

  /** Subscribes first (nothing published meanwhile is lost), then loads the bookings in progress. */
  async start(): Promise<void> {
    this.unsubscribe = this.opts.bus.subscribe((message) => {
      if (message.type === 'booking') this.track(message.booking);
      if (message.type === 'fleet') this.enqueue(message.updates);
      if (message.type === 'bus-resumed') this.resync();
    });
    await this.load();
  }

  /**
   * The bookings in progress and open offers as stored. What a `booking` message said since the
   * subscription is kept (it is at least as new as the read); an entry read just before a message
   * closed it may come back, which costs one conditional update that matches nothing.
   */
  private async load(): Promise<void> {
    this.fill(await this.readStored());
  }

  private async readStored(): Promise<StoredProgress> {
    const active = await this.opts.store.activeBookings();
    const offers = await this.opts.store.openOffers({ limit: 100_000 });
    return { active, offers };
  }

  /** Adds what was read, keeping what the maps already hold (set from newer `booking` messages). */
  private fill({ active, offers }: StoredProgress): void {
    for (const b of active) if (!this.active.has(b.vehicleId)) this.active.set(b.vehicleId, b);
    for (const o of offers) if (!this.offered.has(o.vehicleId)) this.offered.set(o.vehicleId, o.id);
  }

  /**
   * The bus resumed after an outage: `booking` messages may have been lost, so the maps are read
   * again. They are replaced only once the read succeeded (the database may be away too), and the
   * messages heard during the read are applied again on top, being at least as new as it.
   */
  private resync(): void {
    this.chain = this.chain.then(async () => {
      const heard: Booking[] = [];
      this.heardDuringResync = heard;
      try {
        const stored = await this.readStored();
        this.active.clear();
        this.offered.clear();
        this.fill(stored);
        this.heardDuringResync = undefined;
        for (const b of heard) this.track(b);
      } catch (err) {
        this.opts.log.warn({ err, code: 'BOOKING_PROGRESS_RESYNC_FAILED' }, 'bookings in progress not reloaded');
      } finally {
        this.heardDuringResync = undefined;
      }
    });
  }

  /** Stops listening and waits for the moves in flight. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.chain;
    this.logLimiter.flush();
  }

  /** Waits for the fleet updates received so far to be handled (tests). */
  settled(): Promise<void> {
    return this.chain;
  }

  private track(b: Booking): void {
    this.heardDuringResync?.push(b);
    for (const o of b.offers) {
      if (o.response === null) this.offered.set(o.vehicleId, o.id);
      else if (this.offered.get(o.vehicleId) === o.id) this.offered.delete(o.vehicleId);
    }
    for (const [vehicleId, a] of this.active) if (a.id === b.id) this.active.delete(vehicleId);
    if (b.vehicleId && ACTIVE.has(b.status)) {
      this.active.set(b.vehicleId, {
        id: b.id,
        vehicleId: b.vehicleId,
        status: b.status as ActiveStatus,
        lat: b.pickup.lat,
        lon: b.pickup.lon,
      });
    }
  }

  private enqueue(updates: readonly FleetUpdate[]): void {
    if (this.active.size === 0 && this.offered.size === 0) return;
    const relevant = updates.filter((u) => {
      if (!this.active.has(u.vehicleId) && !this.offered.has(u.vehicleId)) return false;
      const judged = this.judgedUpTo.get(u.vehicleId);
      if (judged !== undefined && judged >= u.ts) return false;
      this.judgedUpTo.set(u.vehicleId, u.ts);
      return true;
    });
    if (relevant.length === 0) return;
    this.chain = this.chain.then(() =>
      this.apply(relevant).catch((err: unknown) =>
        this.logLimiter.warn(this.opts.log, { err, code: 'BOOKING_PROGRESS_FAILED' }, 'booking progress not recorded'),
      ),
    );
  }

  private async apply(updates: readonly FleetUpdate[]): Promise<void> {
    for (const u of updates) {
      const offerId = this.offered.get(u.vehicleId);
      if (offerId && u.meterState !== null && u.meterState !== 'free') {
        this.offered.delete(u.vehicleId);
        await this.opts.withdraw(offerId);
      }
      const b = this.active.get(u.vehicleId);
      if (!b) continue;
      const move = nextStatus(b, u, this.opts.arrivalRadiusM);
      if (!move) continue;
      // Whatever the outcome, this process's view moves on (another process may have moved it first).
      b.status = move.to === 'completed' ? b.status : move.to;
      if (move.to === 'completed') this.active.delete(u.vehicleId);
      if (await this.opts.store.progress(b.id, move.from, move.to)) {
        const booking = await this.opts.store.get(b.id);
        if (booking) await this.opts.publish(booking);
      }
    }
  }
}
