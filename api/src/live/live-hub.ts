import { createAdapter } from '@socket.io/redis-adapter';
import {
  type Bus,
  bearerToken,
  type FleetUpdate,
  type LiveViolation,
  type Principal,
  type TokenResolver,
} from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';

export const LIVE_NAMESPACE = '/live';
const ALL_ROOM = 'fleet:all';
const operatorRoom = (operatorId: string) => `fleet:op:${operatorId}`;

/** Regulators and enforcement see the whole fleet, operators and dispatchers their operators' vehicles. */
function roomsOf(principal: Principal): string[] {
  if (
    principal.kind === 'admin' ||
    (principal.kind === 'user' && (principal.role === 'regulator' || principal.role === 'enforcement'))
  ) {
    return [ALL_ROOM];
  }
  return principal.kind === 'user' ? principal.operatorIds.map(operatorRoom) : [];
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
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly redisClients: Redis[] = [];
  /** The token each local socket was admitted with: kept here, not in `socket.data`, which the Redis adapter can ship. */
  private readonly tokens = new WeakMap<Socket, string>();
  private readonly revalidateTimer: NodeJS.Timeout;
  private revalidating: Promise<void> = Promise.resolve();

  constructor(private readonly opts: LiveHubOptions) {
    this.io = new Server(opts.app.server, { serveClient: false, transports: ['websocket', 'polling'] });
    if (opts.redisUrl) {
      const pub = new Redis(opts.redisUrl);
      const sub = pub.duplicate();
      for (const c of [pub, sub]) {
        c.on('error', (err) => opts.log.warn({ err, code: 'REDIS_ERROR' }, 'socket.io adapter redis error'));
        this.redisClients.push(c);
      }
      this.io.adapter(createAdapter(pub, sub, { key: `${opts.redisPrefix}:socket.io` }));
    }
    const nsp = this.io.of(LIVE_NAMESPACE);
    nsp.use((socket, next) => {
      this.admit(socket).then(
        () => next(),
        (err: Error) => next(err),
      );
    });
    this.unsubscribe = opts.bus.subscribe((message) => {
      if (message.type === 'violation') {
        this.pushViolations(message.violations);
        return;
      }
      if (message.type === 'registry-changed' && message.collection === 'users') {
        this.revalidate(true);
        return;
      }
      if (message.type !== 'fleet') return;
      for (const u of message.updates) {
        const known = this.pending.get(u.vehicleId);
        if (!known || known.ts <= u.ts) this.pending.set(u.vehicleId, u);
      }
    });
    this.timer = setInterval(() => this.push(), opts.pushIntervalMs);
    this.revalidateTimer = setInterval(() => this.revalidate(false), opts.revalidateMs);
    this.revalidateTimer.unref();
    // Sockets hold the HTTP server open: drop them when the server starts closing.
    opts.app.addHook('preClose', async () => {
      this.io.of(LIVE_NAMESPACE).local.disconnectSockets(true);
    });
  }

  private async admit(socket: Socket): Promise<void> {
    // The handshake spends the same failed-authentication budget as REST (AUTH_FAILURE_LIMIT).
    const address = socket.handshake.address;
    const retryAfterS = this.opts.app.failedAuth.retryAfterS(address);
    if (retryAfterS !== undefined) {
      throw Object.assign(new Error('TOO_MANY_FAILED_LOGINS'), {
        data: { code: 'TOO_MANY_FAILED_LOGINS', retryAfterS },
      });
    }
    const auth = socket.handshake.auth as { token?: unknown };
    const token = typeof auth.token === 'string' ? auth.token : bearerToken(socket.handshake.headers.authorization);
    const principal: Principal | undefined = token ? await this.opts.resolveToken(token) : undefined;
    if (!token || !principal) {
      this.opts.app.failedAuth.fail(address);
      throw Object.assign(new Error('INVALID_TOKEN'), { data: { code: 'INVALID_TOKEN' } });
    }
    if (principal.kind === 'device') throw Object.assign(new Error('FORBIDDEN'), { data: { code: 'FORBIDDEN' } });
    this.tokens.set(socket, token);
    socket.data.principal = principal;
    await socket.join(roomsOf(principal));
  }

  /**
   * Resolves every local socket's token again (once per distinct token) and disconnects the
   * sockets whose token is no longer valid; moves the others to the rooms of their current scope.
   * Runs one at a time: a burst of user changes queues at most one more pass per call.
   */
  private revalidate(fresh: boolean): void {
    this.revalidating = this.revalidating
      .then(() => this.revalidatePass(fresh))
      .catch((err: unknown) =>
        this.opts.log.warn({ err, code: 'LIVE_REVALIDATE_FAILED' }, 'live sockets not re-checked'),
      );
  }

  private async revalidatePass(fresh: boolean): Promise<void> {
    const byToken = new Map<string, Socket[]>();
    for (const socket of this.io.of(LIVE_NAMESPACE).sockets.values()) {
      const token = this.tokens.get(socket);
      if (token === undefined) continue;
      const list = byToken.get(token) ?? [];
      list.push(socket);
      byToken.set(token, list);
    }
    for (const [token, sockets] of byToken) {
      const principal = await this.opts.resolveToken(token, { fresh });
      for (const socket of sockets) {
        if (!principal || principal.kind === 'device') {
          this.opts.log.info(
            { code: 'LIVE_SESSION_REVOKED', socketId: socket.id },
            'live socket disconnected: its token is no longer valid',
          );
          socket.disconnect(true);
          continue;
        }
        socket.data.principal = principal;
        const wanted = new Set(roomsOf(principal));
        for (const room of socket.rooms) if (room !== socket.id && !wanted.has(room)) await socket.leave(room);
        await socket.join([...wanted]);
      }
    }
  }

  private push(): void {
    if (this.pending.size === 0) return;
    const updates = [...this.pending.values()];
    this.pending = new Map();
    const nsp = this.io.of(LIVE_NAMESPACE).local;
    nsp.to(ALL_ROOM).emit('fleet', updates);
    const byOperator = new Map<string, FleetUpdate[]>();
    for (const u of updates) {
      if (!u.operatorId) continue;
      const list = byOperator.get(u.operatorId) ?? [];
      list.push(u);
      byOperator.set(u.operatorId, list);
    }
    for (const [operatorId, list] of byOperator) nsp.to(operatorRoom(operatorId)).emit('fleet', list);
  }

  /** Violations go out at once, not batched: an officer acts on them. */
  private pushViolations(violations: LiveViolation[]): void {
    const nsp = this.io.of(LIVE_NAMESPACE).local;
    for (const v of violations) {
      nsp.to(ALL_ROOM).emit('violation', v);
      if (v.operatorId) nsp.to(operatorRoom(v.operatorId)).emit('violation', v);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.revalidateTimer);
    this.unsubscribe();
    this.io.of(LIVE_NAMESPACE).local.disconnectSockets(true);
    for (const c of this.redisClients) c.disconnect();
  }
}
