import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { type BusMessage, busMessageSchema, type FleetUpdate } from '../live.js';
import type { Bus, BusEvent, BusHandler } from './bus.js';

/**
 * Redis pub/sub needs a connection of its own for subscribing. Messages published while that
 * connection is down are lost (Redis pub/sub keeps nothing), so once it is ready and subscribed
 * again after a disconnection the handlers hear `bus-resumed` (bus.ts) and reload what they cache.
 *
 * That covers the processes that were cut off. The others, if only this process lost Redis, never
 * disconnected and would keep what the lost messages invalidated (a retired user's token, say,
 * until its cache lifetime ends), and every vehicle where it was before the outage (for good, if it
 * stopped reporting meanwhile). So what this process failed to publish is owed, and published again
 * once the publisher is connected again: an invalidation (`registry-changed`, `device-changed`:
 * `owedWhenLost`) as it was, positions (`fleet`) as the newest update of each vehicle, which is all
 * a subscriber keeps of them. Violations and bookings are not: they are in the database, and a
 * desk or console shows one it missed this way when it reads its list again.
 */
export class RedisBus implements Bus {
  private readonly pub: Redis;
  private sub: Redis | undefined;
  private readonly handlers = new Set<BusHandler>();
  /** The subscriber connection closed (or never opened) since the handlers last heard everything. */
  private interrupted = false;
  private closed = false;
  /** Invalidations whose publish failed, as sent (JSON, so a repeated one is owed once): re-published on reconnection. */
  private readonly owed = new Set<string>();
  /** The newest update of each vehicle whose `fleet` publish failed: re-published on reconnection. */
  private readonly owedPositions = new Map<string, FleetUpdate>();
  /** Positions not kept since the last re-publication, beyond `MAX_OWED_POSITIONS` (logged once per outage). */
  private positionsDropped = 0;

  private readonly channel: string;

  constructor(
    private readonly url: string,
    prefix: string,
    private readonly log: Logger,
    /** ioredis' reconnection schedule; its default (50 ms more per attempt, at most 2 s) unless a test needs a quicker one. */
    private readonly reconnect: Pick<RedisOptions, 'retryStrategy'> = {},
  ) {
    this.channel = `${prefix}:bus`;
    // No offline queue: while Redis is down a publish fails at once (and is logged) instead of
    // piling up in memory; the database, not the bus, is the record. A publish already sent when
    // the connection drops waits for a reconnection, and when something between here and Redis
    // (a proxy, a load balancer) accepts connections and drops them, every reconnection "succeeds"
    // and ioredis' retry limit never ends the wait: the timeout does, and the message is owed.
    // Owed, not also re-sent by ioredis on the next connection: one way back for what failed.
    this.pub = new Redis(url, {
      ...reconnect,
      maxRetriesPerRequest: 2,
      enableOfflineQueue: false,
      commandTimeout: PUBLISH_TIMEOUT_MS,
      autoResendUnfulfilledCommands: false,
    });
    this.pub.on('error', (err) => this.log.warn({ err, code: 'REDIS_ERROR' }, 'redis publisher error'));
    this.pub.on('ready', () => {
      if (this.owed.size > 0 || this.owedPositions.size > 0) void this.publishOwed();
    });
  }

  async publish(message: BusMessage): Promise<void> {
    const raw = JSON.stringify(message);
    try {
      await this.pub.publish(this.channel, raw);
    } catch (err) {
      if (message.type === 'fleet') this.owePositions(message.updates);
      else if (owedWhenLost(message)) this.owe(raw);
      throw err;
    }
  }

  private owePositions(updates: readonly FleetUpdate[]): void {
    for (const u of updates) {
      const known = this.owedPositions.get(u.vehicleId);
      if (known) {
        if (known.ts < u.ts) this.owedPositions.set(u.vehicleId, u);
        continue;
      }
      if (this.owedPositions.size >= MAX_OWED_POSITIONS) {
        if (this.positionsDropped++ === 0) {
          this.log.error(
            { code: 'BUS_OWED_DROPPED', max: MAX_OWED_POSITIONS },
            'too many vehicle positions owed while Redis is away: the others are not re-published',
          );
        }
        continue;
      }
      this.owedPositions.set(u.vehicleId, u);
    }
  }

  private owe(raw: string): void {
    if (this.owed.size >= MAX_OWED && !this.owed.has(raw)) {
      this.log.error(
        { code: 'BUS_OWED_DROPPED', max: MAX_OWED },
        'too many invalidations owed while Redis is away: this one is not re-published',
      );
      return;
    }
    this.owed.add(raw);
  }

  /**
   * Publishes what failed while Redis was away, invalidations oldest first, then the positions
   * in messages of `POSITIONS_PER_MESSAGE`; what fails again stays owed (a position only if no
   * newer one of the vehicle failed meanwhile).
   */
  private async publishOwed(): Promise<void> {
    let sent = 0;
    for (const raw of [...this.owed]) {
      if (this.closed) return;
      try {
        await this.pub.publish(this.channel, raw);
        this.owed.delete(raw);
        sent++;
      } catch (err) {
        this.log.warn({ err, code: 'BUS_OWED_FAILED', owed: this.owed.size }, 'owed invalidations not published yet');
        return;
      }
    }
    let positions = 0;
    const owedPositions = [...this.owedPositions.values()];
    for (let i = 0; i < owedPositions.length; i += POSITIONS_PER_MESSAGE) {
      if (this.closed) return;
      const updates = owedPositions.slice(i, i + POSITIONS_PER_MESSAGE);
      try {
        await this.pub.publish(this.channel, JSON.stringify({ type: 'fleet', updates } satisfies BusMessage));
      } catch (err) {
        this.log.warn(
          { err, code: 'BUS_OWED_FAILED', owedPositions: this.owedPositions.size },
          'owed positions not published yet',
        );
        return;
      }
      for (const u of updates) if (this.owedPositions.get(u.vehicleId) === u) this.owedPositions.delete(u.vehicleId);
      positions += updates.length;
    }
    this.positionsDropped = 0;
    this.log.info(
      { code: 'BUS_OWED_PUBLISHED', sent, positions },
      'what failed to publish while Redis was away is published',
    );
  }

  subscribe(handler: BusHandler): () => void {
    this.handlers.add(handler);
    if (!this.sub) this.startSubscriber();
    return () => this.handlers.delete(handler);
  }

  private startSubscriber(): void {
    // No retry limit: a subscription made while Redis is away waits for it. With ioredis' default
    // (it gives up after 20 reconnections, 10 s or more) it would fail, and this process would never hear the bus.
    const sub = new Redis(this.url, { ...this.reconnect, maxRetriesPerRequest: null });
    this.sub = sub;
    sub.on('error', (err) => this.log.warn({ err, code: 'REDIS_ERROR' }, 'redis subscriber error'));
    // A failed first connection closes too: a subscription made while Redis is away also missed
    // what was published between the subscriber's own start (it loaded its state) and Redis' return.
    sub.on('close', () => {
      this.interrupted = true;
    });
    sub.on('ready', () => {
      if (!this.interrupted) return;
      this.interrupted = false;
      // ioredis queued its own re-subscription before 'ready' was emitted; this SUBSCRIBE answers
      // after it, so once it does, nothing published from now on is missed, and what the
      // handlers reload on `bus-resumed` cannot be older than the next message they hear.
      sub.subscribe(this.channel).then(
        () => {
          if (this.closed) return;
          this.log.info({ code: 'BUS_RESUMED' }, 'bus connected again: subscribers reload what they cache');
          this.deliver({ type: 'bus-resumed' });
        },
        (err: unknown) => this.log.warn({ err, code: 'REDIS_SUBSCRIBE_FAILED' }, 'bus not resubscribed'),
      );
    });
    sub
      .subscribe(this.channel)
      .catch((err: unknown) => this.log.error({ err, code: 'REDIS_SUBSCRIBE_FAILED' }, 'cannot subscribe to the bus'));
    sub.on('message', (_channel: string, raw: string) => {
      let message: BusMessage;
      try {
        // `bus-resumed` is not in the schema: a remote process cannot send it (bus.ts).
        message = busMessageSchema.parse(JSON.parse(raw));
      } catch (err) {
        this.log.warn({ err, code: 'BUS_BAD_MESSAGE' }, 'dropped a malformed bus message');
        return;
      }
      this.deliver(message);
    });
  }

  private deliver(event: BusEvent): void {
    for (const handler of this.handlers) {
      // One subscriber's bug must not keep the others from hearing it (nor end the process from
      // inside ioredis' event emitter).
      try {
        handler(event);
      } catch (err) {
        this.log.error({ err, code: 'BUS_HANDLER_FAILED', type: event.type }, 'a bus subscriber failed');
      }
    }
  }

  async ping(): Promise<boolean> {
    if (this.pub.status !== 'ready') return false;
    try {
      return (await this.pub.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    this.sub?.disconnect();
    if (this.pub.status === 'ready') await this.pub.quit().catch(() => this.pub.disconnect());
    else this.pub.disconnect();
  }
}

/**
 * At most this many distinct invalidations are kept owed: registry writes come from people and
 * imports (one message per import), so an outage that exceeds it is logged rather than held in
 * memory without bound.
 */
const MAX_OWED = 1_000;

/** A publish not answered by Redis within this long fails (and what it carried is owed, above). */
const PUBLISH_TIMEOUT_MS = 5_000;

/**
 * At most this many vehicles' positions are kept owed: a state's fleet is tens of thousands, and
 * one update is a few hundred bytes, so an outage costs at most some tens of MB.
 */
const MAX_OWED_POSITIONS = 100_000;
/** Owed positions go out in messages of this many updates, about the size of an ingest batch's. */
const POSITIONS_PER_MESSAGE = 1_000;

/** Messages that invalidate other processes' caches: lost, they would leave those caches stale. */
function owedWhenLost(message: BusMessage): boolean {
  return message.type === 'registry-changed' || message.type === 'device-changed';
}
