import type { Gt06Status } from './gt06-message.js';

/**
 * What the gateway remembers of a GT06 device between packets and between connections: a GT06
 * packet carries no identifier (only the login does), and a 0x32 position no heartbeat status,
 * so what the device said last must outlive its TCP connection. Real trackers on mobile networks
 * reconnect often — a new source port, often a new carrier-NAT address — and log in again
 * first; the state found under the IMEI then continues where the last connection left it.
 */
export interface Gt06DeviceState {
  /** The ACC (ignition) wire as last reported, by any packet that carries it. */
  acc?: boolean | undefined;
  /** The last heartbeat's or alarm packet's status block. */
  status?: Gt06Status | undefined;
  /** The time zone the login announced, if the firmware sends one. */
  loginUtcOffsetMinutes?: number | undefined;
}

/** Per IMEI: the device's state and the connection it talks on now. */
export class Gt06DeviceStates<Connection> {
  private readonly byImei = new Map<string, { state: Gt06DeviceState; connection?: Connection | undefined }>();

  constructor(private readonly maxDevices: number) {}

  /**
   * A login for `imei` on `connection`: its state (kept, or new) and the connection it supersedes,
   * if the device was still attached to another one (a half-dead socket the device has given up).
   */
  attach(imei: string, connection: Connection): { state: Gt06DeviceState; superseded?: Connection | undefined } {
    let entry = this.byImei.get(imei);
    if (entry) this.byImei.delete(imei);
    else entry = { state: {} };
    // Re-inserted last: the map's order is the order of last logins, the oldest evicted first.
    this.byImei.set(imei, entry);
    const superseded = entry.connection !== undefined && entry.connection !== connection ? entry.connection : undefined;
    entry.connection = connection;
    if (this.byImei.size > this.maxDevices) {
      const oldest = this.byImei.keys().next().value as string;
      this.byImei.delete(oldest);
    }
    return { state: entry.state, superseded };
  }

  /** The connection closed: the state stays for the device's next login. */
  detach(imei: string, connection: Connection): void {
    const entry = this.byImei.get(imei);
    if (entry && entry.connection === connection) entry.connection = undefined;
  }

  get size(): number {
    return this.byImei.size;
  }
}
