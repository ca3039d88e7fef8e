import type { GatewayContext } from '../gateway-context.js';
import type { RunningGateway } from '../pipeline/running-gateway.js';
import type { TcpDeviceConnection } from '../pipeline/tcp-device-connection.js';
import { startTcpGateway } from '../pipeline/tcp-gateway-server.js';
import { Gt06DeviceStates } from './gt06-device-state.js';
import { GT06_CHANNEL, Gt06Session } from './gt06-session.js';

/** GT06 (Concox) over TCP: one `Gt06Session` per connection, the devices' state shared across them. */
export function startGt06Gateway(ctx: GatewayContext, listen: { host: string; port: number }): Promise<RunningGateway> {
  // At most one entry per device that logged in (registered IMEIs only), oldest evicted past the bound.
  const devices = new Gt06DeviceStates<TcpDeviceConnection>(ctx.limits.gt06MaxConnections * 2);
  return startTcpGateway(ctx, listen, {
    channel: GT06_CHANNEL,
    name: 'GT06',
    maxConnections: ctx.limits.gt06MaxConnections,
    accept: (socket) => new Gt06Session(socket, ctx, devices).connection,
  });
}
