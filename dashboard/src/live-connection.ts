import { io, type Socket } from 'socket.io-client';
import type { FleetUpdate } from './api-types.js';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

interface ServerToClientEvents {
  fleet: (updates: FleetUpdate[]) => void;
  /** One `LiveViolation` per event; checked by the receiver (violation-guards.ts), hence `unknown`. */
  violation: (violation: unknown) => void;
  /** One booking (dispatch console); checked by the receiver (dispatch-types.ts), hence `unknown`. */
  booking: (booking: unknown) => void;
}

type ClientToServerEvents = Record<string, never>;

export interface LiveConnectionHandlers {
  onFleet(updates: FleetUpdate[]): void;
  onViolation(violation: unknown): void;
  /** Only admin and dispatcher sockets receive bookings (of their operators). */
  onBooking?(booking: unknown): void;
  onStateChange(state: ConnectionState): void;
  /** Connected again after a loss: pushes sent meanwhile are gone, so the caller resynchronises. */
  onReconnected(): void;
  /**
   * The server refused or dropped the connection on purpose (bad or revoked token, most likely).
   * Socket.IO does not retry by itself then; the caller decides whether to `retry()`.
   */
  onRefused(): void;
}

/** The `/live` Socket.IO channel, reduced to the events the dashboard needs. */
export class LiveConnection {
  private readonly socket: Socket<ServerToClientEvents, ClientToServerEvents>;
  private hasConnected = false;

  constructor(token: string, handlers: LiveConnectionHandlers) {
    // WebSocket only: long-polling would need sticky sessions behind several API instances.
    this.socket = io('/live', { auth: { token }, transports: ['websocket'] });

    handlers.onStateChange('connecting');
    this.socket.on('connect', () => {
      handlers.onStateChange('live');
      if (this.hasConnected) handlers.onReconnected();
      this.hasConnected = true;
    });
    this.socket.on('disconnect', (reason) => {
      handlers.onStateChange('reconnecting');
      if (reason === 'io server disconnect') handlers.onRefused();
    });
    this.socket.on('connect_error', () => {
      handlers.onStateChange(this.hasConnected ? 'reconnecting' : 'connecting');
      // `active` is false only when a server middleware rejected the handshake.
      if (!this.socket.active) handlers.onRefused();
    });
    this.socket.on('fleet', (updates) => {
      if (Array.isArray(updates)) handlers.onFleet(updates);
    });
    this.socket.on('violation', (violation) => handlers.onViolation(violation));
    this.socket.on('booking', (booking) => handlers.onBooking?.(booking));
  }

  retry(): void {
    if (!this.socket.connected) this.socket.connect();
  }

  close(): void {
    this.socket.removeAllListeners();
    this.socket.disconnect();
  }
}
