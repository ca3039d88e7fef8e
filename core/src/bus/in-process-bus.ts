import type { BusMessage } from '../live.js';
import type { Bus, BusHandler } from './bus.js';

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
