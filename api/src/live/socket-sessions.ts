import { type Bus, type BusMessage, bearerToken, type Principal, type TokenResolver } from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Namespace, Socket } from 'socket.io';

/**
 * A handshake or a re-check refused with a code the client reads from `connect_error`'s
 * `err.data.code` (FORBIDDEN, INVALID_TOKEN, ...).
 */
export function socketRefusal(code: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(code), { data: { code, ...extra } });
}

export interface SocketSessionsOptions {
  app: FastifyInstance;
  bus: Bus;
  nsp: Namespace;
  resolveToken: TokenResolver;
  log: Logger;
  /** Every socket's token is re-checked this often through the resolver's cache. */
  revalidateMs: number;
  /** Prefix of the log codes: `<PREFIX>_SESSION_REVOKED`, `<PREFIX>_REVALIDATE_FAILED`. */
  logPrefix: string;
  /**
   * The rooms a socket of `principal` belongs in; throws a `socketRefusal` when the namespace
   * does not admit it. Asked at the handshake and at every re-check, so a scope change moves rooms.
   */
  roomsOf(principal: Principal, socket: Socket): string[] | Promise<string[]>;
  /** Bus messages, besides a change to users, after which every token is resolved again at once. */
  recheckOn?: (message: BusMessage) => boolean;
  /** A re-check moved a socket to other rooms (its scope changed): e.g. to send it the new scope's state. */
  onRoomsChanged?: (socket: Socket) => void;
}

/**
 * The sessions of one Socket.IO namespace: admits a socket by its token (from `auth.token` or an
 * `Authorization: Bearer` header), spending the same failed-authentication budget as REST, and
 * keeps it only as long as its token resolves. When the registry announces a change to users
 * (or what `recheckOn` names), every socket's token is resolved again, bypassing the users'
 * cache: a socket whose token no longer resolves, or that the namespace no longer admits, is
 * disconnected; the others move to the rooms of their current scope. The same happens when the
 * bus resumes after an outage (`bus-resumed`: such a change may have been lost). Sockets are also
 * re-checked every `revalidateMs` through the cache, so a lost bus message still ends a session
 * within about two cache lifetimes. The token is kept in this process's memory, never in `socket.data` (which
 * the Redis adapter can ship).
 */
export class SocketSessions {
  private readonly tokens = new WeakMap<Socket, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private revalidating: Promise<void> = Promise.resolve();

  constructor(private readonly opts: SocketSessionsOptions) {
    opts.nsp.use((socket, next) => {
      this.admit(socket).then(
        () => next(),
        (err: Error) => next(err),
      );
    });
    this.unsubscribe = opts.bus.subscribe((message) => {
      // After a bus outage any user may have changed unannounced: every token is resolved again.
      if (
        message.type === 'bus-resumed' ||
        (message.type === 'registry-changed' && message.collection === 'users') ||
        opts.recheckOn?.(message) === true
      ) {
        this.revalidate(true);
      }
    });
    this.timer = setInterval(() => this.revalidate(false), opts.revalidateMs);
    this.timer.unref();
  }

  private async admit(socket: Socket): Promise<void> {
    const { app } = this.opts;
    const address = socket.handshake.address;
    const retryAfterS = app.failedAuth.retryAfterS(address);
    if (retryAfterS !== undefined) throw socketRefusal('TOO_MANY_FAILED_LOGINS', { retryAfterS });
    const auth = socket.handshake.auth as { token?: unknown };
    const token = typeof auth.token === 'string' ? auth.token : bearerToken(socket.handshake.headers.authorization);
    const principal: Principal | undefined = token ? await this.opts.resolveToken(token) : undefined;
    if (!token || !principal) {
      app.failedAuth.fail(address);
      throw socketRefusal('INVALID_TOKEN');
    }
    const rooms = await this.opts.roomsOf(principal, socket);
    this.tokens.set(socket, token);
    socket.data.principal = principal;
    await socket.join(rooms);
  }

  /** Re-checks every local socket; runs one pass at a time, a burst of changes queues one more. */
  revalidate(fresh: boolean): void {
    this.revalidating = this.revalidating
      .then(() => this.revalidatePass(fresh))
      .catch((err: unknown) =>
        this.opts.log.warn(
          { err, code: `${this.opts.logPrefix}_REVALIDATE_FAILED` },
          `${this.opts.nsp.name} sockets not re-checked`,
        ),
      );
  }

  private async revalidatePass(fresh: boolean): Promise<void> {
    const byToken = new Map<string, Socket[]>();
    for (const socket of this.opts.nsp.sockets.values()) {
      const token = this.tokens.get(socket);
      if (token === undefined) continue;
      const list = byToken.get(token) ?? [];
      list.push(socket);
      byToken.set(token, list);
    }
    for (const [token, sockets] of byToken) {
      const principal = await this.opts.resolveToken(token, { fresh });
      for (const socket of sockets) {
        let wanted: Set<string> | undefined;
        if (principal) {
          try {
            wanted = new Set(await this.opts.roomsOf(principal, socket));
          } catch {
            wanted = undefined;
          }
        }
        if (!principal || !wanted) {
          this.opts.log.info(
            { code: `${this.opts.logPrefix}_SESSION_REVOKED`, socketId: socket.id },
            `${this.opts.nsp.name} socket disconnected: its token is no longer valid here`,
          );
          socket.disconnect(true);
          continue;
        }
        socket.data.principal = principal;
        let changed = [...wanted].some((room) => !socket.rooms.has(room));
        for (const room of socket.rooms) {
          if (room !== socket.id && !wanted.has(room)) {
            await socket.leave(room);
            changed = true;
          }
        }
        if (changed) {
          await socket.join([...wanted]);
          this.opts.onRoomsChanged?.(socket);
        }
      }
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    this.opts.nsp.local.disconnectSockets(true);
  }
}
