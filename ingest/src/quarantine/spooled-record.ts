import type { Telemetry } from '@vigia/core';
import type { UnstorableRecord } from '../batch-writer.js';
import { type QuarantinedRecord, toJsonSafe } from './quarantine-store.js';

/**
 * A record accepted while the database was away (spooled, so already acknowledged) that the
 * database refused on replay. Its gateway is no longer known, so it is kept under the protocol
 * `spool`, with the record as the spool held it for raw bytes.
 */
export function spooledRecordEntry(record: Telemetry, outcome: UnstorableRecord): QuarantinedRecord {
  return {
    protocol: 'spool',
    transport: null,
    deviceIdentifier: record.deviceId,
    deviceId: record.deviceId,
    code: outcome.code,
    message: outcome.message,
    raw: Buffer.from(JSON.stringify(record)),
    decoded: toJsonSafe(record),
  };
}
