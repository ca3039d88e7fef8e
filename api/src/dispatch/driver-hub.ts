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

/** What the hub reads of dispatch (the booking store): the same answers as `GET /v1/offers` and `GET /v1/bookings/:id`. */
export interface DriverFeedSource {
  /** The vehicle's open offers, as items of `GET /v1/offers?vehicleId=`. */
  openOffers(vehicleId: string): Promise<OpenOffer[]>;
  /** The booking the vehicle is serving (accepted, arrived, on-board), or null. */
  servingBooking(vehicleId: string): Promise<Booking | null>;
  /** The vehicle's plate (what the driver recognises), null for an unknown vehicle. */
  plateOf(vehicleId: string): Promise<string | null>;
}

/** The booking store as the hub reads it. */
export function driverFeedFrom(store: BookingStore): DriverFeedSource {
  return {
    // One open offer per taxi at a time (a unique index); a few more cost nothing if that changes.
    openOffers: (vehicleId) => store.openOffers({ vehicleId, limit: 10 }),
    async servingBooking(vehicleId) {
      return (await store.servingBooking(vehicleId)) ?? null;
    },
    async plateOf(vehicleId) {
      return (await store.vehicleFacts([vehicleId], null)).get(vehicleId)?.plate ?? null;
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
        for (const socket of this.nsp.sockets.values()) this.welcome(socket);
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

  private welcome(socket: Socket): void {
    const principal = socket.data.principal as Principal;
    const vehicleId = vehicleOf(principal, socket);
    const hello: DriverHello = {
      vehicleId,
      deviceId: principal.kind === 'device' ? principal.deviceId : null,
      identifier: principal.kind === 'device' ? principal.identifier : null,
    };
    socket.emit('hello', hello);
    this.sendSnapshot(socket, vehicleId).catch((err: unknown) => {
      this.opts.log.warn({ err, code: 'DRIVER_WELCOME_FAILED', socketId: socket.id }, 'driver state not sent');
    });
  }

  private async sendSnapshot(socket: Socket, vehicleId: string): Promise<void> {
    const { source } = this.opts;
    const [plate, offers, serving] = await Promise.all([
      source.plateOf(vehicleId),
      source.openOffers(vehicleId),
      source.servingBooking(vehicleId),
    ]);
    for (const offer of offers) {
      this.remember(offer.id, vehicleId, offer.expiresAt);
      socket.emit('offer', offer);
    }
    if (serving) socket.emit('booking', ownView(serving, vehicleId));
    const synced: DriverSynced = {
      vehicleId,
      plate,
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
