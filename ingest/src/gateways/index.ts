import { type Config, type Logger, LogLimiter } from '@vigia/core';
import type { Registry } from 'prom-client';
import type { BatchWriter } from '../batch-writer.js';
import type { DeviceDirectory } from '../device-directory.js';
import type { QuarantineSink } from '../quarantine/quarantine-store.js';
import type { GatewayContext } from './gateway-context.js';
import { type GatewayLimitsInput, gatewayLimitsSchema } from './gateway-limits.js';
import { startGt06Gateway } from './gt06/gt06-server.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { startOsmandGateway } from './osmand/osmand-server.js';
import { RecordSink } from './pipeline/record-sink.js';
import { ProfileRegistry } from './profiles/profile-registry.js';
import { startTeltonikaTcpGateway } from './teltonika/tcp-server.js';
import { startTeltonikaUdpGateway } from './teltonika/udp-server.js';

export { type GatewayLimits, type GatewayLimitsInput, gatewayLimitsSchema } from './gateway-limits.js';
export { crcItu } from './gt06/crc-itu.js';
export { decodeGt06, gt06TimeToMs } from './gt06/gt06-decoder.js';
export { type Gt06ErrorCode, Gt06ProtocolError } from './gt06/gt06-error.js';
export { encodeGt06Packet, encodeGt06Response, type Gt06Packet, scanGt06Packet } from './gt06/gt06-frame.js';
export { GT06_PROTOCOL, type Gt06Message } from './gt06/gt06-message.js';
export {
  type Channel,
  type GatewayMetricId,
  GatewayMetrics,
  type GatewayProtocol,
  type GatewayTransport,
} from './metrics/gateway-metrics.js';
export { type OsmAndParse, type OsmAndPosition, parseOsmandJson, parseOsmandQuery } from './osmand/osmand-request.js';
export { parseOsmandTimestamp } from './osmand/osmand-timestamp.js';
export { type DeviceAccess, resolveDevice } from './pipeline/device-access.js';
export { type AckPolicy, type DecodedRecord, RecordSink, type SinkOutcome } from './pipeline/record-sink.js';
export { type BuiltRecord, buildTelemetry, type DecodedFix } from './pipeline/telemetry-builder.js';
export { type MappedFields, mapProfileFields, type RawValue, readField } from './profiles/field-mapping.js';
export { ProfileRegistry, type ProfileResolution, SHIPPED_PROFILES_DIR } from './profiles/profile-registry.js';
export {
  type DeviceProfile,
  deviceProfileSchema,
  type FieldMapping,
  PROFILE_FIELDS,
  type ProfileField,
} from './profiles/profile-schema.js';
export { decodeAvlData } from './teltonika/avl-decoder.js';
export { encodeAvlData, encodeImeiHandshake, encodeTcpFrame } from './teltonika/avl-encoder.js';
export * from './teltonika/avl-record.js';
export { avlRecordToDecoded } from './teltonika/avl-to-telemetry.js';
export { crc16Ibm } from './teltonika/crc16.js';
export { type TeltonikaErrorCode, TeltonikaProtocolError } from './teltonika/protocol-error.js';
export { encodeRecordCountAck, imeiSchema, scanFrame, scanHandshake } from './teltonika/tcp-frame.js';
export { decodeUdpDatagram, encodeUdpAck, encodeUdpDatagram, type UdpAvlDatagram } from './teltonika/udp-datagram.js';

export interface ProtocolGatewayDeps {
  /** Ports (0 = any free port), the listen host, and the future-time limit shared with the HTTP path. */
  config: Pick<Config, 'OSMAND_PORT' | 'TELTONIKA_PORT' | 'INGEST_MAX_FUTURE_SKEW_S' | 'HOST'> &
    /** The past-time limit shared with the HTTP path; absent: no bound. */
    Partial<Pick<Config, 'INGEST_MAX_PAST_AGE_S'>> &
    /** The GT06 port; absent (a config a test builds by hand): any free port. */
    Partial<Pick<Config, 'GT06_PORT'>>;
  log: Logger;
  devices: DeviceDirectory;
  /** Must stay open until `close()` has resolved: in-flight packets are written through it. */
  writer: BatchWriter;
  /** Where records refused but acknowledged are kept (`QuarantineStore`); same lifetime as `writer`. */
  quarantine: QuarantineSink;
  /** Overrides `config.HOST`. */
  host?: string;
  /** Timeouts and size limits; the defaults suit real devices. */
  limits?: GatewayLimitsInput;
  /** Device profiles; default: the shipped ones in `ingest/profiles/`. */
  profiles?: ProfileRegistry;
  /** Where the gateways' counters are registered (the ingest service's); default: a registry of their own. */
  registry?: Registry;
}

export interface RunningProtocolGateways {
  osmandPort: number;
  /** Teltonika over TCP. */
  teltonikaPort: number;
  /** Teltonika over UDP: `TELTONIKA_PORT` too (a different port only when that is 0). */
  teltonikaUdpPort: number;
  /** GT06 (Concox) over TCP. */
  gt06Port: number;
  /** Counters of accepted records and of every kind of bad input, in `deps.registry` (`GET /metrics`). */
  metrics: GatewayMetrics;
  profiles: ProfileRegistry;
  /** Stops accepting, lets in-flight packets and requests be stored and acknowledged, then closes connections. */
  close(): Promise<void>;
}

/**
 * Starts the device protocol gateways — OsmAnd over HTTP on `OSMAND_PORT`, Teltonika Codec 8 /
 * 8 Extended / 16 over TCP and UDP on `TELTONIKA_PORT` — feeding the same `BatchWriter` as
 * `POST /v1/telemetry`. A device is acknowledged only after `BatchWriter.write` resolved, i.e.
 * after the transaction holding its records committed. Close the gateways before the writer.
 */
export async function startProtocolGateways(deps: ProtocolGatewayDeps): Promise<RunningProtocolGateways> {
  const limits = gatewayLimitsSchema.parse(deps.limits ?? {});
  const profiles = deps.profiles ?? ProfileRegistry.load();
  const metrics = new GatewayMetrics(
    [
      { protocol: 'osmand', transport: 'http' },
      { protocol: 'teltonika', transport: 'tcp' },
      { protocol: 'teltonika', transport: 'udp' },
      { protocol: 'gt06', transport: 'tcp' },
    ],
    deps.registry,
  );
  const log = deps.log.child({ component: 'gateways' });
  const logLimiter = new LogLimiter({ maxPerInterval: limits.logLinesPerCode, intervalMs: limits.logIntervalMs });
  const ctx: GatewayContext = {
    devices: deps.devices,
    profiles,
    metrics,
    log,
    logLimiter,
    limits,
    sink: new RecordSink({
      writer: deps.writer,
      quarantine: deps.quarantine,
      metrics,
      log,
      logLimiter,
      maxFutureSkewS: deps.config.INGEST_MAX_FUTURE_SKEW_S,
      maxPastAgeS: deps.config.INGEST_MAX_PAST_AGE_S,
    }),
  };
  const host = deps.host ?? deps.config.HOST;
  const started: { close(): Promise<void> }[] = [];
  try {
    const osmand = await startOsmandGateway(ctx, { host, port: deps.config.OSMAND_PORT });
    started.push(osmand);
    const tcp = await startTeltonikaTcpGateway(ctx, { host, port: deps.config.TELTONIKA_PORT });
    started.push(tcp);
    const udp = await startTeltonikaUdpGateway(ctx, { host, port: deps.config.TELTONIKA_PORT });
    started.push(udp);
    const gt06 = await startGt06Gateway(ctx, { host, port: deps.config.GT06_PORT ?? 0 });
    started.push(gt06);
    let closing: Promise<void> | undefined;
    return {
      osmandPort: osmand.port,
      teltonikaPort: tcp.port,
      teltonikaUdpPort: udp.port,
      gt06Port: gt06.port,
      metrics,
      profiles,
      close() {
        // The limiter's summary of what it held back is the last word on refusals.
        closing ??= Promise.all(started.map((s) => s.close())).then(() => logLimiter.flush());
        return closing;
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((s) => s.close()));
    throw err;
  }
}
