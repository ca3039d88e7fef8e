import { createSocket, type RemoteInfo } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { GatewayContext } from '../gateway-context.js';
import type { Channel } from '../metrics/gateway-metrics.js';
import { resolveDevice } from '../pipeline/device-access.js';
import type { RunningGateway } from '../pipeline/running-gateway.js';
import { avlRecordToDecoded } from './avl-to-telemetry.js';
import { TeltonikaProtocolError } from './protocol-error.js';
import { decodeUdpDatagram, encodeUdpAck } from './udp-datagram.js';

const CHANNEL: Channel = { protocol: 'teltonika', transport: 'udp' };

/**
 * Teltonika over UDP. There is no connection to pause, so the bound is on datagrams being
 * stored at once: past it a datagram is dropped unanswered and counted, and the device, having
 * no ACK, sends it again. A datagram is answered only after its records are durable; one that
 * cannot be decoded, or names an unregistered IMEI, is never answered. `close()` stops taking
 * datagrams, answers the ones being stored, then closes the socket.
 */
export async function startTeltonikaUdpGateway(
  ctx: GatewayContext,
  listen: { host: string; port: number },
): Promise<RunningGateway> {
  const socket = createSocket({ type: isIPv6(listen.host) ? 'udp6' : 'udp4' });
  const inFlight = new Set<Promise<void>>();
  let closing = false;

  const handle = async (datagram: Buffer, from: RemoteInfo): Promise<void> => {
    const remote = `${from.address}:${from.port}`;
    let decoded: ReturnType<typeof decodeUdpDatagram>;
    try {
      decoded = decodeUdpDatagram(datagram);
    } catch (err) {
      if (!(err instanceof TeltonikaProtocolError)) throw err;
      ctx.metrics.badInput(CHANNEL, err.code.toLowerCase());
      ctx.logLimiter.warn(ctx.log, { ...CHANNEL, remote, code: err.code }, `datagram not acknowledged: ${err.message}`);
      return;
    }
    const access = await resolveDevice(ctx.devices, ctx.profiles, 'teltonika', decoded.imei, ctx.log);
    if (!access.ok) {
      ctx.metrics.badInput(CHANNEL, access.code.toLowerCase());
      ctx.logLimiter.warn(
        ctx.log,
        { ...CHANNEL, remote, device: decoded.imei, code: access.code },
        `datagram refused: ${access.message}`,
      );
      return;
    }
    const records = decoded.records.map((r, i) =>
      avlRecordToDecoded(decoded.imei, r, access.profile, decoded.recordBytes?.[i]),
    );
    await ctx.sink.store(CHANNEL, access.device, records);
    socket.send(encodeUdpAck(decoded, records.length), from.port, from.address);
    ctx.metrics.ack(CHANNEL);
  };

  socket.on('message', (datagram, from) => {
    if (closing) return;
    if (inFlight.size >= ctx.limits.teltonikaUdpMaxInFlight) {
      ctx.metrics.badInput(CHANNEL, 'overloaded');
      return;
    }
    const work = handle(datagram, from)
      .catch((err: unknown) => {
        // Storage or registry unavailable: unanswered, so the device sends the datagram again.
        ctx.log.warn(
          { ...CHANNEL, remote: `${from.address}:${from.port}`, err },
          'datagram not stored; not acknowledged',
        );
      })
      .finally(() => inFlight.delete(work));
    inFlight.add(work);
  });
  socket.on('error', (err) => ctx.log.error({ ...CHANNEL, err }, 'Teltonika UDP socket error'));

  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(listen.port, listen.host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const port = socket.address().port;
  ctx.log.info({ ...CHANNEL, port }, 'Teltonika gateway listening (UDP)');

  let closed: Promise<void> | undefined;
  return {
    port,
    close() {
      closed ??= (async () => {
        closing = true;
        const grace = new Promise<void>((resolve) => setTimeout(resolve, ctx.limits.closeGraceMs).unref());
        await Promise.race([Promise.allSettled([...inFlight]), grace]);
        await new Promise<void>((resolve) => socket.close(() => resolve()));
      })();
      return closed;
    },
  };
}
