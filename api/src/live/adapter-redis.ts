import { LogLimiter } from '@vigia/core';
import { Command, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The Socket.IO Redis adapter sends its commands (the subscriptions when it starts, a publish per
 * cross-process broadcast, the unsubscriptions when it closes) and never handles their failure.
 * While Redis is away, or when the hub closes before Redis ever answered, each of them rejects
 * unhandled, and Node ends a process on an unhandled rejection: an API that lost its bus would
 * stop serving the dashboard and the registry too. This client handles every command's failure
 * (a rate-limited warning) and still hands the same promise to whoever awaits it.
 */
class AdapterRedis extends Redis {
  constructor(
    url: string,
    options: Pick<RedisOptions, 'maxRetriesPerRequest' | 'enableOfflineQueue' | 'retryStrategy'>,
    private readonly onCommandFailed: (command: string, err: unknown) => void,
  ) {
    super(url, options);
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    // ioredis' own connection handshake (CLIENT SETINFO, which Redis before 7.2 refuses) handles
    // its failures; only the adapter's commands are worth a warning.
    const handshake = Command.checkFlag('HANDSHAKE_COMMANDS', command.name);
    command.promise.catch((err: unknown) => {
      if (!handshake) this.onCommandFailed(command.name, err);
    });
    return super.sendCommand(command, stream);
  }
}

export interface AdapterClients {
  pub: Redis;
  sub: Redis;
}

/**
 * The adapter's two connections. The publisher has no offline queue: during an outage a broadcast
 * fails at once instead of piling up in memory (the live feed is the newest state, not a record).
 * The subscriber keeps its queue without a retry limit, so subscriptions made before Redis answers
 * go out when it does, however long that takes (with ioredis' default of 20 reconnections they
 * would be dropped after 10 s or more, and the adapter would never hear another process again).
 */
export function adapterRedisClients(
  url: string,
  log: Logger,
  /** ioredis' reconnection schedule; its default unless a test needs a quicker one. */
  reconnect: Pick<RedisOptions, 'retryStrategy'> = {},
): AdapterClients {
  const limiter = new LogLimiter({ maxPerInterval: 5 });
  const onCommandFailed = (command: string, err: unknown) =>
    limiter.warn(log, { code: 'LIVE_ADAPTER_COMMAND_FAILED', command, err }, 'socket.io adapter redis command failed');
  const pub = new AdapterRedis(
    url,
    { ...reconnect, maxRetriesPerRequest: 2, enableOfflineQueue: false },
    onCommandFailed,
  );
  const sub = new AdapterRedis(url, { ...reconnect, maxRetriesPerRequest: null }, onCommandFailed);
  for (const c of [pub, sub]) {
    c.on('error', (err) => limiter.warn(log, { code: 'REDIS_ERROR', err }, 'socket.io adapter redis error'));
  }
  return { pub, sub };
}
