import { io, type Socket } from 'socket.io-client';
import type { OfferResponse } from '../dispatch-types.js';
import { type ConnectionState, followConnection } from '../live-connection.js';
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

  constructor(token: string, handlers: DriverConnectionHandlers) {
    // WebSocket only, like the dashboard: long-polling would need sticky sessions behind several API processes.
    this.socket = io('/driver', { auth: { token }, transports: ['websocket'] });
    followConnection(this.socket, {
      onStateChange: (state) => handlers.onStateChange(state),
      onRefused: (code) => handlers.onRefused(code),
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
