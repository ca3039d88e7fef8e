import { createServer, type Server } from 'node:net';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import { TeltonikaTcpSession } from './tcp-session.js';

const CHANNEL: Channel = { protocol: 'teltonika', transport: 'tcp' };

export interface RunningTcpGateway {
  port: number;
  /** Stops accepting, lets packets being stored finish and be acknowledged, then closes every connection. */
  close(): Promise<void>;
}

/** Teltonika Codec 8 / 8 Extended / 16 over TCP: one `TeltonikaTcpSession` per connection. */
export async function startTeltonikaTcpGateway(
  ctx: GatewayContext,
  listen: { host: string; port: number },
): Promise<RunningTcpGateway> {
  const sessions = new Set<TeltonikaTcpSession>();
  const server: Server = createServer((socket) => {
    ctx.metrics.connectionOpened(CHANNEL);
    const session = new TeltonikaTcpSession(socket, ctx);
    sessions.add(session);
    void session.closed.then(() => {
      sessions.delete(session);
      ctx.metrics.connectionClosed(CHANNEL);
    });
  });
  server.maxConnections = ctx.limits.teltonikaMaxConnections;
  server.on('drop', () => ctx.metrics.badInput(CHANNEL, 'too_many_connections'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => ctx.log.error({ ...CHANNEL, err }, 'Teltonika TCP server error'));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  ctx.log.info({ ...CHANNEL, port }, 'Teltonika gateway listening (TCP)');

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
