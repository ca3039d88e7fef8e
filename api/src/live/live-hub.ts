import { createAdapter } from '@socket.io/redis-adapter';
import type { Booking, Bus, FleetUpdate, LiveViolation, Principal, TokenResolver } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import { adapterRedisClients } from './adapter-redis.js';
import {
  FLEET_DELTA_EVENT,
  RESYNC_EVENT,
  VIEWPORT_EVENT,
  type ViewportAck,
  type ViewportMessage,
  viewportMessageSchema,
} from './live-protocol.js';
import { SocketSessions, socketRefusal } from './socket-sessions.js';
import { ViewportFollower, type ViewportFollowerOptions } from './viewport-follower.js';

export const LIVE_NAMESPACE = '/live';
/** Acknowledgements of one socket's viewport messages kept until the next push. */
const MAX_WAITING_ACKS = 8;
/** Messages from this size on are sent compressed (permessage-deflate) to clients that offer it. */
const compressAboveBytes = 4096;
const ALL_ROOM = 'fleet:all';
const operatorRoom = (operatorId: string) => `fleet:op:${operatorId}`;
/** A vehicle another operator declared to a radio operator (Belém Art. 42–44): its dispatchers see it move. */
const vehicleRoom = (vehicleId: string) => `fleet:veh:${vehicleId}`;
/** Bookings have rooms of their own: only the admin and dispatchers see them, not everyone who sees the fleet. */
const BOOKINGS_ALL_ROOM = 'bookings:all';
const bookingRoom = (operatorId: string) => `bookings:op:${operatorId}`;

/**
 * Regulators and enforcement see the whole fleet, operators and dispatchers their operators'
 * vehicles, dispatchers also the vehicles their (radio) operators declared: those are the taxis
 * they may send (the console lists the free ones). Bookings: the admin all, a dispatcher its
 * operators'; nobody else.
 */
async function roomsOf(
  principal: Principal,
  declaredVehicles: (operatorIds: readonly string[]) => Promise<string[]>,
): Promise<string[]> {
  if (principal.kind === 'device') throw socketRefusal('FORBIDDEN');
  if (principal.kind === 'admin') return [ALL_ROOM, BOOKINGS_ALL_ROOM];
  if (principal.role === 'regulator' || principal.role === 'enforcement') return [ALL_ROOM];
  const fleet = principal.operatorIds.map(operatorRoom);
  if (principal.role !== 'dispatcher') return fleet;
  const declared = principal.operatorIds.length > 0 ? await declaredVehicles(principal.operatorIds) : [];
  return [...fleet, ...declared.map(vehicleRoom), ...principal.operatorIds.map(bookingRoom)];
}

export interface LiveHubOptions {
  app: FastifyInstance;
  bus: Bus;
  resolveToken: TokenResolver;
  pushIntervalMs: number;
  redisUrl: string | undefined;
  redisPrefix: string;
  log: Logger;
  /**
   * Every socket's token is re-checked this often (through the resolver's cache), so a user
   * retired while the bus message was lost still loses its feed within about two cache lifetimes.
   */
  revalidateMs: number;
  /**
   * The vehicles these operators declared (a radio operator's `declaredVehicleIds`), read at each
   * admission and re-check; a change to operators re-checks every socket.
   */
  declaredVehicles?: (operatorIds: readonly string[]) => Promise<string[]>;
  /** LIVE_VIEWPORT_MARGIN and LIVE_OUTSIDE_REFRESH_MS, for sockets that send a viewport. */
  viewport: ViewportFollowerOptions;
  /**
   * Every vehicle's newest stored position (`live-fleet-load.ts`), read when the bus resumes after
   * an outage: the `fleet` messages published meanwhile are lost to this process.
   */
  loadFleet?: () => Promise<FleetUpdate[]>;
}

/** Whether a socket in these rooms may see the vehicle: the rooms `push` emits its update to. */
function roomsSee(rooms: ReadonlySet<string>, update: FleetUpdate): boolean {
  return (
    rooms.has(ALL_ROOM) ||
    (update.operatorId !== null && rooms.has(operatorRoom(update.operatorId))) ||
    rooms.has(vehicleRoom(update.vehicleId))
  );
}

/**
 * Socket.IO namespace `/live`. Every API process receives fleet updates from the bus itself and
 * pushes them to its own clients (`local`), at most once per `pushIntervalMs`, only the vehicles
 * that changed, newest sample each. Clients are placed in rooms by scope: regulators and
 * enforcement see the whole fleet, operators and dispatchers their operators' vehicles only.
 * With REDIS_URL the Redis adapter is installed so that broadcasts that do not come from the bus
 * (e.g. a violation reviewed through one API process) reach the clients of every process.
 *
 * A socket lives as long as its token does: when the registry announces a change to users (a
 * user retired, a token rotated, a scope changed), every socket's token is resolved again,
 * bypassing the cache; a socket whose token no longer resolves is disconnected at once, one
 * whose scope changed moves rooms.
 */
export class LiveHub {
  readonly io: Server;
  private pending = new Map<string, FleetUpdate>();
  /** Every vehicle's newest update this process has seen: what a socket needs when its view moves. */
  private readonly latest = new Map<string, FleetUpdate>();
  /** Sockets that sent a viewport, by socket id: they get `fleet-delta` instead of the rooms' `fleet`. */
  private readonly followers = new Map<string, ViewportFollower>();
  /** Viewport messages since the last push, the newest per socket, with every acknowledgement to answer. */
  private readonly viewportRequests = new Map<
    string,
    { socket: Socket; viewport: ViewportMessage; acks: Array<(answer: ViewportAck) => void> }
  >();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly redisClients: Redis[] = [];
  private readonly sessions: SocketSessions;

  constructor(private readonly opts: LiveHubOptions) {
    this.io = new Server(opts.app.server, {
      serveClient: false,
      transports: ['websocket', 'polling'],
      // A map's push is 40–110 KiB of JSON. Compressed it reaches the browser in a few reads
      // instead of dozens, and each read is a task on the page's main thread (api/README.md, "/live").
      perMessageDeflate: { threshold: compressAboveBytes },
    });
    if (opts.redisUrl) {
      const { pub, sub } = adapterRedisClients(opts.redisUrl, opts.log);
      this.redisClients.push(pub, sub);
      this.io.adapter(createAdapter(pub, sub, { key: `${opts.redisPrefix}:socket.io` }));
    }
    this.sessions = new SocketSessions({
      app: opts.app,
      bus: opts.bus,
      nsp: this.io.of(LIVE_NAMESPACE),
      resolveToken: opts.resolveToken,
      log: opts.log,
      revalidateMs: opts.revalidateMs,
      logPrefix: 'LIVE',
      roomsOf: (principal) => roomsOf(principal, opts.declaredVehicles ?? (async () => [])),
      recheckOn: (message) => message.type === 'registry-changed' && message.collection === 'operators',
    });
    this.unsubscribe = opts.bus.subscribe((message) => {
      if (message.type === 'violation') {
        this.pushViolations(message.violations);
        return;
      }
      if (message.type === 'booking') {
        this.pushBooking(message.booking);
        return;
      }
      if (message.type === 'bus-resumed') {
        this.reloadFleet();
        // Violations and bookings published meanwhile are lost to this process's sockets too:
        // their clients list them again, as after a reconnection.
        this.io.of(LIVE_NAMESPACE).local.emit(RESYNC_EVENT);
        return;
      }
      if (message.type === 'fleet') this.take(message.updates);
    });
    this.io.of(LIVE_NAMESPACE).on('connection', (socket) => {
      socket.on(VIEWPORT_EVENT, (message: unknown, ack: unknown) =>
        this.onViewport(
          socket,
          message,
          typeof ack === 'function' ? (ack as (answer: ViewportAck) => void) : undefined,
        ),
      );
      socket.on('disconnect', () => {
        this.followers.delete(socket.id);
        this.viewportRequests.delete(socket.id);
      });
    });
    this.timer = setInterval(() => this.push(), opts.pushIntervalMs);
    // Sockets hold the HTTP server open: drop them when the server starts closing.
    opts.app.addHook('preClose', async () => {
      this.io.of(LIVE_NAMESPACE).local.disconnectSockets(true);
    });
  }

  /**
   * Updates go out at the next push unless this process already has a newer sample of the
   * vehicle: a process that re-publishes what it failed to publish during an outage, or the reload
   * after one, may bring a position older than one pushed since.
   */
  private take(updates: readonly FleetUpdate[]): number {
    let taken = 0;
    for (const u of updates) {
      const newest = this.latest.get(u.vehicleId);
      if (newest && newest.ts >= u.ts) continue;
      this.latest.set(u.vehicleId, u);
      this.pending.set(u.vehicleId, u);
      taken++;
    }
    return taken;
  }

  /**
   * The bus was away: the positions published meanwhile never reached this process, so its
   * sockets would keep every vehicle where it was before, and a vehicle that stopped reporting
   * during the outage there for good. The stored ones newer than what this process pushed go out.
   */
  private reloadFleet(): void {
    const load = this.opts.loadFleet;
    if (!load) return;
    load().then(
      (updates) => {
        const newer = this.take(updates);
        this.opts.log.info(
          { code: 'LIVE_FLEET_RELOADED', vehicles: updates.length, newer },
          'live positions reloaded after a bus outage',
        );
      },
      (err: unknown) =>
        this.opts.log.warn({ err, code: 'LIVE_FLEET_RELOAD_FAILED' }, 'live positions not reloaded after a bus outage'),
    );
  }

  /**
   * A socket's `viewport` message. A malformed one is refused in the acknowledgement and logged;
   * the socket keeps what it had. A valid one is applied at the next push (the newest of a burst,
   * every acknowledgement answered then), so a client sending viewports as fast as it can costs
   * one pass over the fleet per push, as a quiet one does.
   */
  private onViewport(socket: Socket, message: unknown, ack: ((answer: ViewportAck) => void) | undefined): void {
    const parsed = viewportMessageSchema.safeParse(message);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`);
      this.opts.log.warn(
        { code: 'LIVE_VIEWPORT_REFUSED', socketId: socket.id, issues: detail },
        'live viewport refused: not { bbox: [west, south, east, north], zoom } or null',
      );
      ack?.({ ok: false, code: 'INVALID_VIEWPORT', message: detail.join('; ') });
      return;
    }
    const waiting = this.viewportRequests.get(socket.id);
    this.viewportRequests.set(socket.id, {
      socket,
      viewport: parsed.data,
      // The last few: a client that never waits for its answers gets no more (its oldest time out).
      acks: [...(waiting?.acks ?? []), ...(ack ? [ack] : [])].slice(-MAX_WAITING_ACKS),
    });
  }

  private applyViewportRequests(): void {
    for (const { socket, viewport, acks } of this.viewportRequests.values()) {
      if (!socket.connected) continue;
      const answer = this.follow(socket, viewport);
      for (const ack of acks) ack(answer);
    }
    this.viewportRequests.clear();
  }

  private follow(socket: Socket, viewport: ViewportMessage): ViewportAck {
    const follower = this.followers.get(socket.id);
    if (viewport === null) {
      this.followers.delete(socket.id);
      // What was held for later goes now: from here on the rooms' `fleet` pushes carry the rest.
      const rest = follower?.release();
      if (rest) socket.emit(FLEET_DELTA_EVENT, rest);
      return { ok: true, inView: 0 };
    }
    const current = follower ?? new ViewportFollower(viewport, this.opts.viewport);
    this.followers.set(socket.id, current);
    const scoped = [...this.latest.values()].filter((update) => roomsSee(socket.rooms, update));
    const { delta, inView } = current.move(viewport, scoped);
    if (delta) socket.emit(FLEET_DELTA_EVENT, delta);
    return { ok: true, inView };
  }

  private push(): void {
    const updates = [...this.pending.values()];
    this.pending = new Map();
    this.applyViewportRequests();
    this.pushToFollowers(updates);
    if (updates.length === 0) return;
    // The rooms' `fleet` goes to every socket of the room but those following a viewport.
    const nsp = this.io.of(LIVE_NAMESPACE).local.except([...this.followers.keys()]);
    nsp.to(ALL_ROOM).emit('fleet', updates);
    const byOperator = new Map<string, FleetUpdate[]>();
    for (const u of updates) {
      if (!u.operatorId) continue;
      const list = byOperator.get(u.operatorId) ?? [];
      list.push(u);
      byOperator.set(u.operatorId, list);
    }
    for (const [operatorId, list] of byOperator) nsp.to(operatorRoom(operatorId)).emit('fleet', list);
    // Only the few vehicles a connected dispatcher was declared have a room: one lookup per update.
    const rooms = this.io.of(LIVE_NAMESPACE).adapter.rooms;
    for (const u of updates) {
      const room = vehicleRoom(u.vehicleId);
      if (rooms.has(room)) nsp.to(room).emit('fleet', [u]);
    }
  }

  /** Each viewport socket's share of the push: its scope, filtered by its area, delta-encoded. */
  private pushToFollowers(updates: readonly FleetUpdate[]): void {
    if (this.followers.size === 0) return;
    const sockets = this.io.of(LIVE_NAMESPACE).sockets;
    const nowMs = Date.now();
    for (const [socketId, follower] of this.followers) {
      const socket = sockets.get(socketId);
      if (!socket) {
        this.followers.delete(socketId);
        continue;
      }
      const delta = follower.take(
        updates.filter((update) => roomsSee(socket.rooms, update)),
        nowMs,
      );
      if (delta) socket.emit(FLEET_DELTA_EVENT, delta);
    }
  }

  /** Violations go out at once, not batched: an officer acts on them. */
  private pushViolations(violations: LiveViolation[]): void {
    const nsp = this.io.of(LIVE_NAMESPACE).local;
    for (const v of violations) {
      nsp.to(ALL_ROOM).emit('violation', v);
      if (v.operatorId) nsp.to(operatorRoom(v.operatorId)).emit('violation', v);
    }
  }

  /** Each booking change at once, as the bus carries it (`GET /v1/bookings/:id`'s shape): a dispatcher watches its timers. */
  private pushBooking(booking: Booking): void {
    // One emit to both rooms: an admin socket is in only one of them, but one emit never sends twice.
    this.io
      .of(LIVE_NAMESPACE)
      .local.to([BOOKINGS_ALL_ROOM, bookingRoom(booking.operatorId)])
      .emit('booking', booking);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe();
    this.sessions.close();
    for (const c of this.redisClients) c.disconnect();
  }
}
