export { resolveAdminToken } from './admin-token.js';
export { BatchWriter } from './batch-writer.js';
export { DeviceDirectory, type DeviceEntry } from './device-directory.js';
export { haversineM } from './geo.js';
export { type RunningIngest, startIngestProcess } from './ingest-process.js';
export type { IngestResponse, RejectedRecord } from './ingest-routes.js';
export { createIngestService, type IngestService, toFleetUpdate } from './ingest-service.js';
export { MAX_SAMPLE_GAP_S, storeTelemetry } from './telemetry-store.js';
export { createTokenResolver } from './token-resolver.js';
