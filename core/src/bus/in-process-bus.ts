import type { BusMessage } from '../live.js';
import type { Bus, BusHandler } from './bus.js';

/** The embedded mode's bus: it cannot disconnect nor lose a message, so it never sends `bus-resumed`. */
export class InProcessBus implements Bus {
  private readonly handlers = new Set<BusHandler>();

  async publish(message: BusMessage): Promise<void> {
    // Delivered on a later tick, as over Redis, so publishers never run subscribers' code inline.
    queueMicrotask(() => {
      for (const handler of this.handlers) handler(message);
    });
  }

  subscribe(handler: BusHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
