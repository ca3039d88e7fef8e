import type { Logger } from 'pino';
import type { Bus } from './bus.js';
import { InProcessBus } from './in-process-bus.js';
import { RedisBus } from './redis-bus.js';

export { type Bus, type BusEvent, type BusHandler, type BusResumed, publishOrLog } from './bus.js';
export { InProcessBus } from './in-process-bus.js';
export { type OwedBatch, OwedMessages } from './owed-messages.js';
export { RedisBus } from './redis-bus.js';

export function createBus(redisUrl: string | undefined, prefix: string, log: Logger): Bus {
  return redisUrl ? new RedisBus(redisUrl, prefix, log) : new InProcessBus();
}
