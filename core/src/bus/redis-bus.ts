import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { type BusMessage, busMessageSchema } from '../live.js';
import type { Bus, BusEvent, BusHandler } from './bus.js';
import { OwedMessages } from './owed-messages.js';

/**
 * Redis pub/sub needs a connection of its own for subscribing. Messages published while that
 * connection is down are lost (Redis pub/sub keeps nothing), so once it is ready and subscribed
 * again after a disconnection the handlers hear `bus-resumed` (bus.ts) and reload what they cache.
 *
 * That covers the processes that were cut off. The others, if only this process lost Redis, never
 * disconnected and would keep what the lost messages said or invalidated: a retired user's token
 * (until its cache lifetime ends), every vehicle where it was before the outage (for good, if it
 * stopped reporting meanwhile), an offer no driver elsewhere heard of. So what this process failed
 * to publish is owed, and published again once the publisher is connected again, reduced to what
 * a subscriber keeps of it (owed-messages.ts).
 */
export class RedisBus implements Bus {
  private readonly pub: Redis;
  private sub: Redis | undefined;
  private readonly handlers = new Set<BusHandler>();
  /** The subscriber connection closed (or never opened) since the handlers last heard everything. */
  private interrupted = false;
  /** Messages heard while `interrupted`, delivered after `bus-resumed`. */
  private held: BusMessage[] = [];
  private closed = false;
  /** What failed to publish, to publish once Redis is back. */
  private readonly owed: OwedMessages;

  private readonly channel: string;

  constructor(
    private readonly url: string,
    prefix: string,
    private readonly log: Logger,
    /** ioredis' reconnection schedule; its default (50 ms more per attempt, at most 2 s) unless a test needs a quicker one. */
    private readonly reconnect: Pick<RedisOptions, 'retryStrategy'> = {},
  ) {
    this.channel = `${prefix}:bus`;
    this.owed = new OwedMessages(log);
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
      if (this.owed.size > 0) void this.publishOwed();
    });
  }

  async publish(message: BusMessage): Promise<void> {
    const raw = JSON.stringify(message);
    this.owed.supersede(message, raw);
    try {
      await this.pub.publish(this.channel, raw);
    } catch (err) {
      this.owed.failed(message, raw);
      throw err;
    }
  }

  /** Publishes what failed while Redis was away (owed-messages.ts); what fails again stays owed. */
  private async publishOwed(): Promise<void> {
    let sent = 0;
    for (const batch of this.owed.batches()) {
      if (this.closed) return;
      try {
        await this.pub.publish(this.channel, batch.raw);
      } catch (err) {
        this.log.warn({ err, code: 'BUS_OWED_FAILED', owed: this.owed.size }, 'owed messages not published yet');
        return;
      }
      batch.sent();
      sent++;
    }
    this.owed.settled();
    this.log.info({ code: 'BUS_OWED_PUBLISHED', sent }, 'what failed to publish while Redis was away is published');
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
      // ioredis queued its own re-subscription before 'ready' was emitted; this SUBSCRIBE answers
      // after it, so once it does, nothing published from now on is missed, and what the
      // handlers reload on `bus-resumed` cannot be older than the next message they hear.
      sub.subscribe(this.channel).then(
        () => this.resumed(),
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
      // Heard between ioredis' own re-subscription and ours: held, so that the handlers hear
      // `bus-resumed` first, as they would have without the race.
      if (this.interrupted) {
        this.held.push(message);
        if (this.held.length >= MAX_HELD) this.resumed();
        return;
      }
      this.deliver(message);
    });
  }

  /** Subscribed again after an interruption: `bus-resumed`, then what was held meanwhile. */
  private resumed(): void {
    if (!this.interrupted || this.closed) return;
    this.interrupted = false;
    this.log.info({ code: 'BUS_RESUMED' }, 'bus connected again: subscribers reload what they cache');
    this.deliver({ type: 'bus-resumed' });
    const held = this.held;
    this.held = [];
    for (const message of held) this.deliver(message);
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

/** A publish not answered by Redis within this long fails (and what it carried is owed, above). */
const PUBLISH_TIMEOUT_MS = 5_000;
/**
 * Messages held while the resumption's own SUBSCRIBE is unanswered (a moment, normally). Should it
 * never be answered while messages keep arriving, the resumption is declared at this many rather
 * than holding them without bound.
 */
const MAX_HELD = 10_000;
