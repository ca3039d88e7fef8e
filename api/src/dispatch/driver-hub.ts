import type { Booking, BookingOffer, Bus, Principal, TokenResolver } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Namespace, Server, Socket } from 'socket.io';
import { SocketSessions, socketRefusal } from '../live/socket-sessions.js';
import type { OpenOffer } from './booking-schemas.js';
import type { BookingStore } from './booking-store.js';

export const DRIVER_NAMESPACE = '/driver';
const vehicleRoom = (vehicleId: string) => `vehicle:${vehicleId}`;

/** A booking a taxi is serving: what the driver's page follows after accepting. */
const servingStatuses: ReadonlySet<Booking['status']> = new Set(['accepted', 'arrived', 'on-board']);
/** Where a served booking ends: sent once more so the page can leave it. */
const endStatuses: ReadonlySet<Booking['status']> = new Set(['completed', 'cancelled']);

/** What a taxi's page starts from: `synced` closes it. */
export interface DriverSnapshot {
  /** The vehicle's plate (what the driver recognises), null for an unknown vehicle. */
  plate: string | null;
  /** Its open offers, as items of `GET /v1/offers?vehicleId=`. */
  offers: OpenOffer[];
  /** The booking it is serving (accepted, arrived, on-board), or null. */
  serving: Booking | null;
}

/** What the hub reads of dispatch (the booking store): the same answers as `GET /v1/offers` and `GET /v1/bookings/:id`. */
export interface DriverFeedSource {
  /** The vehicle's open offers, as items of `GET /v1/offers?vehicleId=`. */
  openOffers(vehicleId: string): Promise<OpenOffer[]>;
  /** Each vehicle's snapshot, in a fixed number of reads however many vehicles are asked for. */
  snapshots(vehicleIds: readonly string[]): Promise<Map<string, DriverSnapshot>>;
}

/** One open offer per taxi at a time (a unique index); a few more cost nothing if that changes. */
const OFFERS_PER_VEHICLE = 10;

/** The booking store as the hub reads it. */
export function driverFeedFrom(store: BookingStore): DriverFeedSource {
  return {
    openOffers: (vehicleId) => store.openOffers({ vehicleId, limit: OFFERS_PER_VEHICLE }),
    async snapshots(vehicleIds) {
      const [facts, offers, serving] = await Promise.all([
        store.vehicleFacts(vehicleIds, null),
        store.openOffers({ vehicleIds, limit: OFFERS_PER_VEHICLE * vehicleIds.length }),
        store.servingBookings(vehicleIds),
      ]);
      const snapshots = new Map<string, DriverSnapshot>();
      for (const id of vehicleIds)
        snapshots.set(id, { plate: facts.get(id)?.plate ?? null, offers: [], serving: null });
      for (const offer of offers) snapshots.get(offer.vehicleId)?.offers.push(offer);
      for (const booking of serving) {
        const snapshot = booking.vehicleId === null ? undefined : snapshots.get(booking.vehicleId);
        if (snapshot) snapshot.serving = booking;
      }
      return snapshots;
    },
  };
}

/**
 * The first event on every connection (and after the device moved to another vehicle), sent
 * before anything is read: who the page speaks for (the tracker needs the identifier). Every
 * `offer` and `booking` after it is current.
 */
export interface DriverHello {
  vehicleId: string;
  deviceId: string | null;
  /** The device's identifier: the `deviceId` its telemetry carries. */
  identifier: string | null;
}

/**
 * Ends the snapshot that follows `hello` (its open offers and served booking, sent as `offer` and
 * `booking`): what the page held from before `hello` and is not listed here has closed meanwhile.
 */
export interface DriverSynced {
  vehicleId: string;
  plate: string | null;
  offerIds: string[];
  bookingId: string | null;
}

export interface DriverHubOptions {
  app: FastifyInstance;
  /** The Socket.IO server `/live` runs on (one server, one adapter). */
  io: Server;
  bus: Bus;
  resolveToken: TokenResolver;
  source: DriverFeedSource;
  log: Logger;
  revalidateMs: number;
  /**
   * Vehicles whose snapshots are read together when every page starts over (a resumed bus):
   * one batch of reads after another, so the store sees a few reads at a time, not three per
   * page at once (`DRIVER_RESYNC_BATCH`).
   */
  snapshotBatch: number;
}

/** A driver's socket speaks for one vehicle: a device's own, or the one an admin names (support, tests). */
function vehicleOf(principal: Principal, socket: Socket): string {
  if (principal.kind === 'device') return principal.vehicleId;
  if (principal.kind === 'admin') {
    const wanted = (socket.handshake.auth as { vehicleId?: unknown }).vehicleId;
    if (typeof wanted === 'string' && wanted.length > 0 && wanted.length <= 128) return wanted;
    throw socketRefusal('VEHICLE_ID_REQUIRED');
  }
  // Dispatchers answer on the driver's behalf through REST; this channel is the taxi's own.
  throw socketRefusal('FORBIDDEN');
}

/**
 * Socket.IO namespace `/driver`: the taxi's side of dispatch. Only device tokens (and the admin,
 * naming a vehicle in `auth.vehicleId`) are admitted; a socket joins its vehicle's room and is
 * disconnected when its device is retired or its token rotated (SocketSessions, re-checked on
 * `device-changed`). From the bus's `booking` messages every process derives, for its own sockets:
 * `offer` (an open offer to the vehicle, as an item of `GET /v1/offers`), `offer-closed`
 * `{ id, response }` once that offer is answered, expires or is withdrawn, and `booking` (the
 * booking the vehicle accepted, at each step until completed or cancelled; its `offers` reduced
 * to the vehicle's own). On connect: `hello`, then the vehicle's open offers and the booking it
 * is serving, then `synced`, so a page that reconnects starts from the truth; every page of the
 * process gets the same again when its bus resumes after an outage. `hello` goes out
 * before the snapshot is read and the socket is in its room already: an offer made meanwhile
 * arrives live or in the snapshot, never in neither.
 */
export class DriverHub {
  private readonly nsp: Namespace;
  private readonly sessions: SocketSessions;
  private readonly unsubscribe: () => void;
  /** Offers this process announced (or saw open): offer id → vehicle id and expiry, until closed. */
  private readonly announced = new Map<string, { vehicleId: string; expiresAtMs: number }>();
  private lastSweepMs = Date.now();

  constructor(private readonly opts: DriverHubOptions) {
    this.nsp = opts.io.of(DRIVER_NAMESPACE);
    this.sessions = new SocketSessions({
      app: opts.app,
      bus: opts.bus,
      nsp: this.nsp,
      resolveToken: opts.resolveToken,
      log: opts.log,
      revalidateMs: opts.revalidateMs,
      logPrefix: 'DRIVER',
      roomsOf: (principal, socket) => [vehicleRoom(vehicleOf(principal, socket))],
      // A retired, rotated or moved device is announced this way, not as a change to users.
      recheckOn: (message) => message.type === 'device-changed',
      // A device moved to another vehicle: the page starts over with that vehicle's state.
      onRoomsChanged: (socket) => this.welcome(socket),
    });
    this.nsp.on('connection', (socket) => this.welcome(socket));
    this.unsubscribe = opts.bus.subscribe((message) => {
      // Offers made or closed while this process was cut off from the bus never reached its
      // drivers, and an offer lives for seconds: every page starts over from the store, as on a
      // reconnection (`hello`, the snapshot, `synced`).
      if (message.type === 'bus-resumed') {
        this.resync().catch((err: unknown) => {
          opts.log.warn({ err, code: 'DRIVER_RESYNC_FAILED' }, 'driver pages not resynced');
        });
        return;
      }
      if (message.type !== 'booking') return;
      this.onBooking(message.booking).catch((err: unknown) => {
        opts.log.warn({ err, code: 'DRIVER_PUSH_FAILED', bookingId: message.booking.id }, 'driver offer not pushed');
      });
    });
    opts.app.addHook('preClose', async () => {
      this.nsp.local.disconnectSockets(true);
    });
  }

  /** `hello` to the socket: sent before anything is read (the socket is in its room already). */
  private hello(socket: Socket): string {
    const principal = socket.data.principal as Principal;
    const vehicleId = vehicleOf(principal, socket);
    const hello: DriverHello = {
      vehicleId,
      deviceId: principal.kind === 'device' ? principal.deviceId : null,
      identifier: principal.kind === 'device' ? principal.identifier : null,
    };
    socket.emit('hello', hello);
    return vehicleId;
  }

  private welcome(socket: Socket): void {
    const vehicleId = this.hello(socket);
    this.opts.source
      .snapshots([vehicleId])
      .then((snapshots) => this.sendSnapshot(socket, vehicleId, snapshots.get(vehicleId)))
      .catch((err: unknown) => {
        this.opts.log.warn({ err, code: 'DRIVER_WELCOME_FAILED', socketId: socket.id }, 'driver state not sent');
      });
  }

  /**
   * Every page of this process starts over, as on a reconnection: `hello` to all at once, then
   * the snapshots read for a batch of vehicles at a time (each page's own, however many pages a
   * vehicle has), so a process holding thousands of pages does not ask the store for three to five queries
   * per page at the same instant.
   */
  private async resync(): Promise<void> {
    const startedMs = Date.now();
    const pages = new Map<string, Socket[]>();
    let pageCount = 0;
    for (const socket of this.nsp.sockets.values()) {
      pageCount++;
      const vehicleId = this.hello(socket);
      const list = pages.get(vehicleId);
      if (list) list.push(socket);
      else pages.set(vehicleId, [socket]);
    }
    const vehicleIds = [...pages.keys()];
    const batch = this.opts.snapshotBatch;
    let batches = 0;
    let failed = 0;
    for (let from = 0; from < vehicleIds.length; from += batch) {
      const ids = vehicleIds.slice(from, from + batch);
      batches++;
      let snapshots: Map<string, DriverSnapshot>;
      try {
        snapshots = await this.opts.source.snapshots(ids);
      } catch (err) {
        // The next batch may well be read: a page without its snapshot keeps what it had.
        failed += ids.length;
        this.opts.log.warn({ err, code: 'DRIVER_WELCOME_FAILED', vehicles: ids.length }, 'driver state not sent');
        continue;
      }
      for (const id of ids) {
        for (const socket of pages.get(id) ?? [])
          if (socket.connected) this.sendSnapshot(socket, id, snapshots.get(id));
      }
    }
    this.opts.log.info(
      {
        code: 'DRIVER_RESYNCED',
        pages: pageCount,
        vehicles: vehicleIds.length,
        batches,
        failedVehicles: failed,
        ms: Date.now() - startedMs,
      },
      'driver pages resynced after the bus resumed',
    );
  }

  private sendSnapshot(socket: Socket, vehicleId: string, snapshot: DriverSnapshot | undefined): void {
    const offers = snapshot?.offers ?? [];
    const serving = snapshot?.serving ?? null;
    for (const offer of offers) {
      this.remember(offer.id, vehicleId, offer.expiresAt);
      socket.emit('offer', offer);
    }
    if (serving) socket.emit('booking', ownView(serving, vehicleId));
    const synced: DriverSynced = {
      vehicleId,
      plate: snapshot?.plate ?? null,
      offerIds: offers.map((o) => o.id),
      bookingId: serving?.id ?? null,
    };
    socket.emit('synced', synced);
  }

  private async onBooking(booking: Booking): Promise<void> {
    const local = this.nsp.local;
    for (const offer of booking.offers) {
      const room = vehicleRoom(offer.vehicleId);
      if (offer.response === null) {
        if (this.announced.has(offer.id)) continue;
        this.remember(offer.id, offer.vehicleId, offer.expiresAt);
        // Only a process holding the vehicle's sockets asks the store for the offer's details.
        if (!this.hasLocalSockets(room)) continue;
        const open = (await this.opts.source.openOffers(offer.vehicleId)).find((o) => o.id === offer.id);
        if (open) local.to(room).emit('offer', open);
      } else if (this.announced.delete(offer.id)) {
        local.to(room).emit('offer-closed', { id: offer.id, response: offer.response });
      }
    }
    const vehicleId = booking.vehicleId;
    if (vehicleId && (servingStatuses.has(booking.status) || endStatuses.has(booking.status))) {
      local.to(vehicleRoom(vehicleId)).emit('booking', ownView(booking, vehicleId));
    }
    this.sweep();
  }

  private hasLocalSockets(room: string): boolean {
    return (this.nsp.adapter.rooms.get(room)?.size ?? 0) > 0;
  }

  private remember(offerId: string, vehicleId: string, expiresAt: string): void {
    this.announced.set(offerId, { vehicleId, expiresAtMs: Date.parse(expiresAt) });
  }

  /** An offer whose closing message was lost is forgotten well after its expiry (the page drops it at expiry anyway). */
  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweepMs < 60_000) return;
    this.lastSweepMs = now;
    for (const [id, entry] of this.announced) if (entry.expiresAtMs < now - 300_000) this.announced.delete(id);
  }

  close(): void {
    this.unsubscribe();
    this.sessions.close();
  }
}

/** The booking as its taxi sees it: other taxis' offers (who else was asked, their ETAs) are not its business. */
function ownView(booking: Booking, vehicleId: string): Booking {
  const offers: BookingOffer[] = booking.offers.filter((o) => o.vehicleId === vehicleId);
  return { ...booking, offers };
}
