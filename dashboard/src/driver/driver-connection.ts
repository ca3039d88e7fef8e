import { io, type Socket } from 'socket.io-client';
import type { OfferResponse } from '../dispatch-types.js';
import type { ConnectionState } from '../live-connection.js';
import {
  type DriverBooking,
  type DriverHello,
  type DriverOffer,
  type DriverSynced,
  isDriverBooking,
  isDriverHello,
  isDriverOffer,
  isDriverSynced,
  isOfferClosed,
} from './driver-types.js';

interface ServerToClientEvents {
  hello: (hello: unknown) => void;
  offer: (offer: unknown) => void;
  'offer-closed': (closed: unknown) => void;
  booking: (booking: unknown) => void;
  synced: (synced: unknown) => void;
}

type ClientToServerEvents = Record<string, never>;

export interface DriverConnectionHandlers {
  /** Every (re)connection starts with it, then the vehicle's open offers and its booking in progress. */
  onHello(hello: DriverHello): void;
  /** The snapshot after `hello` is complete. */
  onSynced(synced: DriverSynced): void;
  onOffer(offer: DriverOffer): void;
  onOfferClosed(id: string, response: OfferResponse): void;
  onBooking(booking: DriverBooking): void;
  onStateChange(state: ConnectionState): void;
  /** The server refused the token (or dropped the session: device retired, token rotated). */
  onRefused(code: string | null): void;
}

/** The `/driver` Socket.IO channel: a taxi's offers and its booking. */
export class DriverConnection {
  private readonly socket: Socket<ServerToClientEvents, ClientToServerEvents>;
  private hasConnected = false;

  constructor(token: string, handlers: DriverConnectionHandlers) {
    // WebSocket only, like the dashboard: long-polling would need sticky sessions behind several API processes.
    this.socket = io('/driver', { auth: { token }, transports: ['websocket'] });
    handlers.onStateChange('connecting');
    this.socket.on('connect', () => {
      this.hasConnected = true;
      handlers.onStateChange('live');
    });
    this.socket.on('disconnect', (reason) => {
      handlers.onStateChange('reconnecting');
      if (reason === 'io server disconnect') handlers.onRefused(null);
    });
    this.socket.on('connect_error', (error: Error & { data?: { code?: unknown } }) => {
      handlers.onStateChange(this.hasConnected ? 'reconnecting' : 'connecting');
      // `active` is false only when the server's middleware refused the handshake.
      if (!this.socket.active) handlers.onRefused(typeof error.data?.code === 'string' ? error.data.code : null);
    });
    this.socket.on('hello', (hello) => {
      if (isDriverHello(hello)) handlers.onHello(hello);
    });
    this.socket.on('offer', (offer) => {
      if (isDriverOffer(offer)) handlers.onOffer(offer);
    });
    this.socket.on('offer-closed', (closed) => {
      if (isOfferClosed(closed)) handlers.onOfferClosed(closed.id, closed.response);
    });
    this.socket.on('synced', (synced) => {
      if (isDriverSynced(synced)) handlers.onSynced(synced);
    });
    this.socket.on('booking', (booking) => {
      if (isDriverBooking(booking)) handlers.onBooking(booking);
    });
  }

  retry(): void {
    if (!this.socket.connected) this.socket.connect();
  }

  close(): void {
    this.socket.close();
  }
}
