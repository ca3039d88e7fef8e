export { resolveAdminToken } from './admin-token.js';
export { BatchWriter } from './batch-writer.js';
export { DeviceDirectory, type DeviceEntry } from './device-directory.js';
export { type Dispatch, DispatchStore, dispatchRow } from './dispatch-store.js';
export {
  GatewayMetrics,
  ProfileRegistry,
  type RunningProtocolGateways,
  startProtocolGateways,
} from './gateways/index.js';
export { haversineM } from './geo.js';
export { type RunningIngest, startIngestProcess } from './ingest-process.js';
export type { IngestResponse, RejectedRecord } from './ingest-routes.js';
export { createIngestService, type IngestService, toFleetUpdate } from './ingest-service.js';
export { IngestMetrics } from './metrics/ingest-metrics.js';
export {
  type QuarantinedRecord,
  type QuarantineRow,
  type QuarantineSink,
  QuarantineStore,
} from './quarantine/quarantine-store.js';
export { loadRegistry } from './rules/registry-loader.js';
export { RulePipeline } from './rules/rule-pipeline.js';
export { loadRulesConfig } from './rules/rules-config.js';
export { createServiceRuntime, type ServiceRuntime } from './service-runtime.js';
export { MAX_SAMPLE_GAP_S, storeTelemetry } from './telemetry-store.js';
export { createTokenResolver } from './token-resolver.js';
export { upsertViolations, type ViolationUpsert } from './violations/violation-writer.js';
