import { io, type Socket } from 'socket.io-client';
import { type FleetDelta, type FleetUpdate, movesRecordLength, type Viewport, type ViewportAck } from './api-types.js';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

interface ServerToClientEvents {
  fleet: (updates: FleetUpdate[]) => void;
  /** Instead of `fleet` once the socket sent a viewport: what changed in and around the view. */
  'fleet-delta': (delta: FleetDelta) => void;
  /** One `LiveViolation` per event; checked by the receiver (violation-guards.ts), hence `unknown`. */
  violation: (violation: unknown) => void;
  /** One booking (dispatch console); checked by the receiver (dispatch-types.ts), hence `unknown`. */
  booking: (booking: unknown) => void;
  /** Pushes to this socket may have been lost on the server's side (api/API.md, `resync`). */
  resync: () => void;
}

interface ClientToServerEvents {
  viewport: (viewport: Viewport | null, ack: (answer: ViewportAck) => void) => void;
}

/**
 * The connection's life as the pages show it, the same for `/live` and `/driver`: connecting
 * until the first connection, live, reconnecting after a loss; and a refusal when the server
 * rejected the handshake or dropped the session on purpose (Socket.IO does not retry then).
 * `code` is the error code the server's middleware gave, when it gave one.
 */
export function followConnection(
  socket: Socket,
  on: {
    onStateChange(state: ConnectionState): void;
    /** `again`: a reconnection (pushes sent meanwhile are gone). */
    onConnected?(again: boolean): void;
    onRefused(code: string | null): void;
  },
): void {
  let hasConnected = false;
  on.onStateChange('connecting');
  socket.on('connect', () => {
    on.onStateChange('live');
    on.onConnected?.(hasConnected);
    hasConnected = true;
  });
  socket.on('disconnect', (reason) => {
    on.onStateChange('reconnecting');
    if (reason === 'io server disconnect') on.onRefused(null);
  });
  socket.on('connect_error', (error: Error & { data?: { code?: unknown } }) => {
    on.onStateChange(hasConnected ? 'reconnecting' : 'connecting');
    // `active` is false only when a server middleware rejected the handshake.
    if (!socket.active) on.onRefused(typeof error.data?.code === 'string' ? error.data.code : null);
  });
}

export interface LiveConnectionHandlers {
  onFleet(updates: FleetUpdate[]): void;
  /** `ids`: the vehicle of each index the rows gave, which `moves` records refer to. */
  onFleetDelta(delta: FleetDelta, ids: readonly string[]): void;
  onViolation(violation: unknown): void;
  /** Only admin and dispatcher sockets receive bookings (of their operators). */
  onBooking?(booking: unknown): void;
  onStateChange(state: ConnectionState): void;
  /**
   * Pushes were lost, so the caller resynchronises: connected again after a loss, or told so by
   * the server (`resync`: its process was cut off from the others while this socket stayed).
   */
  onResync(): void;
  /**
   * The server refused or dropped the connection on purpose (bad or revoked token, most likely).
   * Socket.IO does not retry by itself then; the caller decides whether to `retry()`.
   */
  onRefused(): void;
}

/** The `/live` Socket.IO channel, reduced to the events the dashboard needs. */
export class LiveConnection {
  private readonly socket: Socket<ServerToClientEvents, ClientToServerEvents>;
  /** The area the map shows, sent again on every connection: the server forgets it with the socket. */
  private viewport: Viewport | null = null;
  /**
   * The vehicle of each index the server gave in a row. A new subscription (reconnection, a
   * viewport after `null`) numbers afresh, but sends a row with the index before any move refers to it.
   */
  private readonly idsByIndex: string[] = [];

  constructor(token: string, handlers: LiveConnectionHandlers) {
    // WebSocket only: long-polling would need sticky sessions behind several API instances.
    this.socket = io('/live', { auth: { token }, transports: ['websocket'] });

    followConnection(this.socket, {
      onStateChange: (state) => handlers.onStateChange(state),
      onConnected: (again) => {
        if (this.viewport) this.sendViewport();
        if (again) handlers.onResync();
      },
      onRefused: () => handlers.onRefused(),
    });
    this.socket.on('fleet', (updates) => {
      if (Array.isArray(updates)) handlers.onFleet(updates);
    });
    this.socket.on('fleet-delta', (delta) => {
      if (typeof delta?.base !== 'number' || !Array.isArray(delta.rows)) return;
      const moves = delta.moves;
      if (moves !== undefined && !(moves instanceof ArrayBuffer && moves.byteLength % (movesRecordLength * 8) === 0))
        return;
      for (const row of delta.rows)
        if (Number.isInteger(row?.i) && typeof row.id === 'string') this.idsByIndex[row.i as number] = row.id;
      handlers.onFleetDelta(delta, this.idsByIndex);
    });
    this.socket.on('violation', (violation) => handlers.onViolation(violation));
    this.socket.on('booking', (booking) => handlers.onBooking?.(booking));
    this.socket.on('resync', () => handlers.onResync());
  }

  /**
   * Follows the area the map shows: the server then sends the vehicles in and around it at every
   * push, and the rest of the fleet less often (api/API.md, `viewport`). `null` follows everything.
   */
  setViewport(viewport: Viewport | null): void {
    this.viewport = viewport;
    if (this.socket.connected) this.sendViewport();
  }

  private sendViewport(): void {
    // `packed`: vehicles that only moved come as binary records, not one JSON object each.
    const message = this.viewport === null ? null : { ...this.viewport, packed: true as const };
    this.socket.emit('viewport', message, (answer) => {
      // The page builds the area from the map, so a refusal is a bug to see in the console, not a user's error.
      if (!answer.ok) console.warn(`live viewport refused: ${answer.code} ${answer.message}`);
    });
  }

  retry(): void {
    if (!this.socket.connected) this.socket.connect();
  }

  close(): void {
    this.socket.removeAllListeners();
    this.socket.disconnect();
  }
}
