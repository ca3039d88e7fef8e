import {
  AppError,
  errorBody,
  normaliseTelemetry,
  principalOf,
  type Telemetry,
  type TokenResolver,
  telemetryInputSchema,
} from '@vigia/core';
import type { FastifyInstance } from 'fastify';
import type { BatchWriter } from './batch-writer.js';
import type { DeviceDirectory } from './device-directory.js';
import { bodyItems } from './telemetry-body.js';

export interface RejectedRecord {
  index: number;
  code: string;
  message: string;
}

export interface IngestResponse {
  accepted: number;
  duplicates: number;
  rejected: RejectedRecord[];
}

export interface IngestRouteOptions {
  writer: BatchWriter;
  devices: DeviceDirectory;
  resolveToken: TokenResolver;
  bodyLimit: number;
  maxFutureSkewS: number;
}

/** Codes that mean "this request may not send these records", answered 403 when they are all there is. */
const forbiddenCodes = new Set(['UNKNOWN_DEVICE', 'DEVICE_MISMATCH']);

/**
 * `POST /v1/telemetry` (shared/API.md). Each record is judged on its own: the response lists what
 * was stored, what was already stored (duplicates) and what was rejected with a code. When no
 * record at all can be stored the request fails as a whole: 403 when every record names an
 * unknown device (or another device than the token's), 400 otherwise, with the per-record
 * reasons in `details`.
 */
export async function registerIngestRoutes(app: FastifyInstance, opts: IngestRouteOptions): Promise<void> {
  app.addContentTypeParser(
    'application/x-ndjson',
    { parseAs: 'string', bodyLimit: opts.bodyLimit },
    (_req, body, done) => done(null, body),
  );

  // Only device and gateway (admin) tokens send telemetry; users are refused before the body is read.
  const access = { access: ['admin', 'device'] as const };
  app.post('/v1/telemetry', { bodyLimit: opts.bodyLimit, config: access }, async (req, reply) => {
    const principal = principalOf(req);
    const items = bodyItems(req.body, req.headers['content-type']);
    if (items.length === 0) throw new AppError('EMPTY_BATCH', 'The body holds no records', 400);

    const receivedAt = new Date();
    const latestAllowed = receivedAt.getTime() + opts.maxFutureSkewS * 1000;
    const rejected: RejectedRecord[] = [];
    const parsed: { index: number; record: ReturnType<typeof telemetryInputSchema.parse> }[] = [];
    items.forEach((item, index) => {
      if (!item.ok) {
        rejected.push({ index, code: 'MALFORMED_JSON', message: item.message });
        return;
      }
      const result = telemetryInputSchema.safeParse(item.value);
      if (!result.success) {
        const message = result.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ');
        rejected.push({ index, code: 'VALIDATION_FAILED', message });
      } else if (result.data.ts.getTime() > latestAllowed) {
        rejected.push({
          index,
          code: 'FUTURE_TIMESTAMP',
          message: `ts ${result.data.ts.toISOString()} is more than ${opts.maxFutureSkewS} s ahead of the server clock`,
        });
      } else {
        parsed.push({ index, record: result.data });
      }
    });

    const devices = await opts.devices.lookup(parsed.map((p) => p.record.deviceId));
    const records: Telemetry[] = [];
    for (const { index, record } of parsed) {
      const device = devices.get(record.deviceId);
      if (!device) {
        rejected.push({ index, code: 'UNKNOWN_DEVICE', message: `No registered device '${record.deviceId}'` });
      } else if (principal.kind === 'device' && principal.deviceId !== device.deviceId) {
        rejected.push({
          index,
          code: 'DEVICE_MISMATCH',
          message: `This token belongs to device '${principal.identifier}', not '${record.deviceId}'`,
        });
      } else {
        records.push(normaliseTelemetry(record, device, receivedAt));
      }
    }
    rejected.sort((a, b) => a.index - b.index);

    if (records.length === 0) {
      const codes = new Set(rejected.map((r) => r.code));
      const [only] = codes;
      const code = codes.size === 1 && only ? only : 'NO_VALID_RECORDS';
      const status = [...codes].every((c) => forbiddenCodes.has(c)) ? 403 : 400;
      const message = codes.size === 1 ? (rejected[0]?.message ?? code) : 'No record in the body could be stored';
      return reply.code(status).send(errorBody(code, message, { rejected }));
    }

    const outcomes = await opts.writer.write(records);
    const accepted = outcomes.filter((o) => o === 'accepted').length;
    const response: IngestResponse = { accepted, duplicates: outcomes.length - accepted, rejected };
    return response;
  });
}
