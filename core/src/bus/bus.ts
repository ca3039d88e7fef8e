import type { Logger } from 'pino';
import type { BusMessage } from '../live.js';

/**
 * Told to a process's own subscribers, never published: the bus is connected again after having
 * been disconnected, and whatever was published meanwhile is lost (delivery is at most once). A
 * subscriber that caches something the bus invalidates takes it as "everything may have changed"
 * and reloads or forgets its caches.
 *
 * Deliberately not a variant of `busMessageSchema`: it is a fact about this process's connection,
 * not about the deployment, so no other process may send it. A message on the channel saying
 * `bus-resumed` fails the schema and is dropped as malformed (`BUS_BAD_MESSAGE`), and `publish`
 * does not accept it by type. It reaches the handlers in the same stream as the messages, so a
 * subscriber needs no second registration and sees it in order with them.
 */
export interface BusResumed {
  type: 'bus-resumed';
}

/** What a subscriber hears: the deployment's messages and this process's own `bus-resumed`. */
export type BusEvent = BusMessage | BusResumed;

export type BusHandler = (event: BusEvent) => void;

/**
 * Fan-out between the processes of one deployment: ingest publishes, every API process (and
 * every ingest process, for cache invalidation) receives. In embedded mode an in-process
 * emitter; with REDIS_URL, Redis pub/sub. Delivery is at most once: the database stays the
 * record, the bus only makes the dashboards live and invalidates caches. What a disconnection
 * may have lost is made up by `bus-resumed` (above), which the in-process bus, losing nothing,
 * never sends.
 */
export interface Bus {
  /** Rejects when the transport refuses (Redis away): callers whose work is done use `publishOrLog`. */
  publish(message: BusMessage): Promise<void>;
  subscribe(handler: BusHandler): () => void;
  /** Whether the transport is usable right now (for `/ready`). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Publishes after the work the message announces is done (committed): never rejects, a failure is
 * logged with `BUS_PUBLISH_FAILED`. The caller's answer must not depend on the bus: the database
 * is the record, and a write that answered 500 after it committed would be retried and duplicated.
 * Processes that missed the message catch up when their bus resumes (`bus-resumed`); what failed
 * to publish is also published again by the Redis bus once it reconnects, for the processes that
 * never lost Redis (owed-messages.ts).
 */
export async function publishOrLog(
  bus: Bus,
  log: Pick<Logger, 'warn'>,
  message: BusMessage,
  /** What is not propagated, for the log line (e.g. `registry change not published`). */
  what: string,
  fields: Record<string, unknown> = {},
): Promise<void> {
  try {
    await bus.publish(message);
  } catch (err) {
    log.warn({ err, code: 'BUS_PUBLISH_FAILED', messageType: message.type, ...fields }, what);
  }
}
