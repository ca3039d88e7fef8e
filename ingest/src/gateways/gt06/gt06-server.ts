import { createServer, type Server } from 'node:net';
import type { GatewayContext } from '../gateway-context.js';
import { Gt06DeviceStates } from './gt06-device-state.js';
import { GT06_CHANNEL as CHANNEL, Gt06Session } from './gt06-session.js';

export interface RunningGt06Gateway {
  port: number;
  /** Stops accepting, lets packets being stored finish and be answered, then closes every connection. */
  close(): Promise<void>;
}

/** GT06 (Concox) over TCP: one `Gt06Session` per connection, the devices' state shared across them. */
export async function startGt06Gateway(
  ctx: GatewayContext,
  listen: { host: string; port: number },
): Promise<RunningGt06Gateway> {
  const sessions = new Set<Gt06Session>();
  // At most one entry per device that logged in (registered IMEIs only), oldest evicted past the bound.
  const devices = new Gt06DeviceStates<Gt06Session>(ctx.limits.gt06MaxConnections * 2);
  const server: Server = createServer((socket) => {
    ctx.metrics.connectionOpened(CHANNEL);
    const session = new Gt06Session(socket, ctx, devices);
    sessions.add(session);
    void session.closed.then(() => {
      sessions.delete(session);
      ctx.metrics.connectionClosed(CHANNEL);
    });
  });
  server.maxConnections = ctx.limits.gt06MaxConnections;
  server.on('drop', () => ctx.metrics.badInput(CHANNEL, 'too_many_connections'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => ctx.log.error({ ...CHANNEL, err }, 'GT06 server error'));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  ctx.log.info({ ...CHANNEL, port }, 'GT06 gateway listening (TCP)');

  let closing: Promise<void> | undefined;
  return {
    port,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const s of sessions) s.drain();
        const grace = new Promise<'timeout'>((resolve) =>
          setTimeout(() => resolve('timeout'), ctx.limits.closeGraceMs).unref(),
        );
        const all = Promise.all([...sessions].map((s) => s.closed));
        if ((await Promise.race([all, grace])) === 'timeout') {
          ctx.log.warn(
            { ...CHANNEL, open: sessions.size },
            'closing device connections still busy after the grace period',
          );
          for (const s of sessions) s.destroy();
        }
        await stopped;
      })();
      return closing;
    },
  };
}
