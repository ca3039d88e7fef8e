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

export interface LiveHubOptions {
  app: FastifyInstance;
  bus: Bus;
  resolveToken: TokenResolver;
  pushIntervalMs: number;
  redisUrl: string | undefined;
  redisPrefix: string;
  log: Logger;
}

/**
 * Socket.IO namespace `/live`. Every API process receives fleet updates from the bus itself and
 * pushes them to its own clients (`local`), at most once per `pushIntervalMs`, only the vehicles
 * that changed, newest sample each. Clients are placed in rooms by scope: regulators and
 * enforcement see the whole fleet, operators and dispatchers their operators' vehicles only.
 * With REDIS_URL the Redis adapter is installed so that broadcasts that do not come from the bus
 * (e.g. a violation reviewed through one API process) reach the clients of every process.
 */
export class LiveHub {
  readonly io: Server;
  private pending = new Map<string, FleetUpdate>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly redisClients: Redis[] = [];

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
      if (message.type !== 'fleet') return;
      for (const u of message.updates) {
        const known = this.pending.get(u.vehicleId);
        if (!known || known.ts <= u.ts) this.pending.set(u.vehicleId, u);
      }
    });
    this.timer = setInterval(() => this.push(), opts.pushIntervalMs);
    // Sockets hold the HTTP server open: drop them when the server starts closing.
    opts.app.addHook('preClose', async () => {
      this.io.of(LIVE_NAMESPACE).local.disconnectSockets(true);
    });
  }

  private async admit(socket: Socket): Promise<void> {
    const auth = socket.handshake.auth as { token?: unknown };
    const token = typeof auth.token === 'string' ? auth.token : bearerToken(socket.handshake.headers.authorization);
    const principal: Principal | undefined = token ? await this.opts.resolveToken(token) : undefined;
    if (!principal) throw Object.assign(new Error('INVALID_TOKEN'), { data: { code: 'INVALID_TOKEN' } });
    if (principal.kind === 'device') throw Object.assign(new Error('FORBIDDEN'), { data: { code: 'FORBIDDEN' } });
    socket.data.principal = principal;
    if (principal.kind === 'admin' || principal.role === 'regulator' || principal.role === 'enforcement') {
      await socket.join(ALL_ROOM);
    } else {
      await socket.join(principal.operatorIds.map(operatorRoom));
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
    this.unsubscribe();
    this.io.of(LIVE_NAMESPACE).local.disconnectSockets(true);
    for (const c of this.redisClients) c.disconnect();
  }
}
