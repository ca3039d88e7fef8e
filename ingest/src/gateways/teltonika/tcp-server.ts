import type { GatewayContext } from '../gateway-context.js';
import type { RunningGateway } from '../pipeline/running-gateway.js';
import { startTcpGateway } from '../pipeline/tcp-gateway-server.js';
import { TELTONIKA_TCP_CHANNEL, TeltonikaTcpSession } from './tcp-session.js';

/** Teltonika Codec 8 / 8 Extended / 16 over TCP: one `TeltonikaTcpSession` per connection. */
export function startTeltonikaTcpGateway(
  ctx: GatewayContext,
  listen: { host: string; port: number },
): Promise<RunningGateway> {
  return startTcpGateway(ctx, listen, {
    channel: TELTONIKA_TCP_CHANNEL,
    name: 'Teltonika',
    maxConnections: ctx.limits.teltonikaMaxConnections,
    accept: (socket) => new TeltonikaTcpSession(socket, ctx).connection,
  });
}
