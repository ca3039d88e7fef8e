import type { Logger } from 'pino';
import type { BusMessage } from '../live.js';

export type BusHandler = (message: BusMessage) => void;

/**
 * Fan-out between the processes of one deployment: ingest publishes, every API process (and
 * every ingest process, for cache invalidation) receives. In embedded mode an in-process
 * emitter; with REDIS_URL, Redis pub/sub. Delivery is at most once: the database stays the
 * record, the bus only makes the dashboards live.
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
