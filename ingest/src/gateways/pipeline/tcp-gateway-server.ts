import { createServer, type Server, type Socket } from 'node:net';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import type { RunningGateway } from './running-gateway.js';
import type { TcpDeviceConnection } from './tcp-device-connection.js';

export interface TcpGatewayOptions {
  channel: Channel;
  /** The protocol's name in the log lines ("GT06 gateway listening (TCP)"). */
  name: string;
  /** Open connections at most; more are refused by the kernel queue and counted. */
  maxConnections: number;
  /** A protocol session for a new socket, and the connection it runs on. */
  accept(socket: Socket): Pick<TcpDeviceConnection, 'closed' | 'drain' | 'destroy'>;
}

/**
 * A device protocol's TCP server: listens, counts and tracks the connections, and closes in the
 * order that loses nothing: stop accepting, let every connection finish storing and acknowledging
 * what it has taken (up to `closeGraceMs`), then close them.
 */
export async function startTcpGateway(
  ctx: GatewayContext,
  listen: { host: string; port: number },
  gateway: TcpGatewayOptions,
): Promise<RunningGateway> {
  const { channel, name } = gateway;
  const connections = new Set<Pick<TcpDeviceConnection, 'closed' | 'drain' | 'destroy'>>();
  const server: Server = createServer((socket) => {
    ctx.metrics.connectionOpened(channel);
    const connection = gateway.accept(socket);
    connections.add(connection);
    void connection.closed.then(() => {
      connections.delete(connection);
      ctx.metrics.connectionClosed(channel);
    });
  });
  server.maxConnections = gateway.maxConnections;
  server.on('drop', () => ctx.metrics.badInput(channel, 'too_many_connections'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => ctx.log.error({ ...channel, err }, `${name} TCP server error`));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  // The benchmark (`npm run bench:ingest`) reads the port from this line: keep its wording.
  ctx.log.info({ ...channel, port }, `${name} gateway listening (TCP)`);

  let closing: Promise<void> | undefined;
  return {
    port,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const c of connections) c.drain();
        const grace = new Promise<'timeout'>((resolve) =>
          setTimeout(() => resolve('timeout'), ctx.limits.closeGraceMs).unref(),
        );
        const all = Promise.all([...connections].map((c) => c.closed));
        if ((await Promise.race([all, grace])) === 'timeout') {
          ctx.log.warn(
            { ...channel, open: connections.size },
            'closing device connections still busy after the grace period',
          );
          for (const c of connections) c.destroy();
        }
        await stopped;
      })();
      return closing;
    },
  };
}
