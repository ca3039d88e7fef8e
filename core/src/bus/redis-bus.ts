import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { type BusMessage, busMessageSchema } from '../live.js';
import type { Bus, BusEvent, BusHandler } from './bus.js';

/**
 * Redis pub/sub needs a connection of its own for subscribing. Messages published while that
 * connection is down are lost (Redis pub/sub keeps nothing), so once it is ready and subscribed
 * again after a disconnection the handlers hear `bus-resumed` (bus.ts) and reload what they cache.
 *
 * That covers the processes that were cut off. The others, if only this process lost Redis, never
 * disconnected and would keep what the lost messages invalidated (a retired user's token, say,
 * until its cache lifetime ends). So an invalidation this process failed to publish
 * (`registry-changed`, `device-changed`: `owedWhenLost`) is owed, and published again once the
 * publisher is connected again. Live data (fleet, violations, bookings) is not: a newer update
 * replaces it, and it is in the database for whoever reloads.
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
    // piling up in memory; the database, not the bus, is the record.
    this.pub = new Redis(url, { ...reconnect, maxRetriesPerRequest: 2, enableOfflineQueue: false });
    this.pub.on('error', (err) => this.log.warn({ err, code: 'REDIS_ERROR' }, 'redis publisher error'));
    this.pub.on('ready', () => {
      if (this.owed.size > 0) void this.publishOwed();
    });
  }

  async publish(message: BusMessage): Promise<void> {
    const raw = JSON.stringify(message);
    try {
      await this.pub.publish(this.channel, raw);
    } catch (err) {
      if (owedWhenLost(message)) this.owe(raw);
      throw err;
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

  /** Publishes what failed while Redis was away, oldest first; what fails again stays owed. */
  private async publishOwed(): Promise<void> {
    const pending = [...this.owed];
    let sent = 0;
    for (const raw of pending) {
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
    this.log.info({ code: 'BUS_OWED_PUBLISHED', sent }, 'invalidations that failed while Redis was away published');
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

/** Messages that invalidate other processes' caches: lost, they would leave those caches stale. */
function owedWhenLost(message: BusMessage): boolean {
  return message.type === 'registry-changed' || message.type === 'device-changed';
}
