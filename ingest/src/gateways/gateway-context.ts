import type { Logger, LogLimiter } from '@vigia/core';
import type { DeviceDirectory } from '../device-directory.js';
import type { GatewayLimits } from './gateway-limits.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import type { RecordSink } from './pipeline/record-sink.js';
import type { ProfileRegistry } from './profiles/profile-registry.js';

/** What every protocol server shares: the registry, the profiles, the way into storage, the counters. */
export interface GatewayContext {
  devices: DeviceDirectory;
  profiles: ProfileRegistry;
  sink: RecordSink;
  metrics: GatewayMetrics;
  log: Logger;
  /** For the lines any client can cause (refusals): at most `limits.logLinesPerCode` per code per interval. */
  logLimiter: LogLimiter;
  limits: GatewayLimits;
}
