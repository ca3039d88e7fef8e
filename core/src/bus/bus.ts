import type { BusMessage } from '../live.js';

export type BusHandler = (message: BusMessage) => void;

/**
 * Fan-out between the processes of one deployment: ingest publishes, every API process (and
 * every ingest process, for cache invalidation) receives. In embedded mode an in-process
 * emitter; with REDIS_URL, Redis pub/sub. Delivery is at most once: the database stays the
 * record, the bus only makes the dashboards live.
 */
export interface Bus {
  publish(message: BusMessage): Promise<void>;
  subscribe(handler: BusHandler): () => void;
  /** Whether the transport is usable right now (for `/ready`). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
