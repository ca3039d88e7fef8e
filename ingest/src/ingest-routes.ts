import {
  AppError,
  errorBody,
  isControlCharacterIssue,
  normaliseTelemetry,
  principalOf,
  type Telemetry,
  type TokenResolver,
  telemetryInputSchema,
  timestampProblem,
} from '@vigia/core';
import type { FastifyInstance, FastifyReply, HookHandlerDoneFunction } from 'fastify';
import type { BatchWriter } from './batch-writer.js';
import type { DeviceDirectory } from './device-directory.js';
import type { IngestMetrics } from './metrics/ingest-metrics.js';
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
  /** Counts the records of each request by outcome and times the requests. */
  metrics: Pick<IngestMetrics, 'telemetryRecords' | 'routeTimer'>;
  devices: DeviceDirectory;
  resolveToken: TokenResolver;
  bodyLimit: number;
  maxFutureSkewS: number;
  /** Records stamped further back than this (seconds) are rejected; 0 = no bound. */
  maxPastAgeS: number;
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
  const { metrics } = opts;
  const timeRequest = metrics.routeTimer('/v1/telemetry');
  // Every answer is timed, refusals (401, 413, malformed JSON) included: `elapsedTime` runs from
  // the request's arrival, before authentication and body parsing, to the response's end.
  const onResponse = (_req: unknown, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    timeRequest(reply.statusCode, reply.elapsedTime / 1000);
    done();
  };
  app.post('/v1/telemetry', { bodyLimit: opts.bodyLimit, config: access, onResponse }, async (req, reply) => {
    const principal = principalOf(req);
    const items = bodyItems(req.body, req.headers['content-type']);
    if (items.length === 0) throw new AppError('EMPTY_BATCH', 'The body holds no records', 400);

    const receivedAt = new Date();
    const bounds = { maxFutureSkewS: opts.maxFutureSkewS, maxPastAgeS: opts.maxPastAgeS };
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
        // A control character is its own code: no retry of that record can ever succeed, and a
        // sender that puts NUL in an id is broken or probing, which the operator wants to see.
        const code = result.error.issues.some(isControlCharacterIssue) ? 'CONTROL_CHARACTER' : 'VALIDATION_FAILED';
        rejected.push({ index, code, message });
        return;
      }
      const late = timestampProblem(result.data.ts, receivedAt, bounds);
      if (late) rejected.push({ index, ...late });
      else parsed.push({ index, record: result.data });
    });

    const devices = await opts.devices.lookup(parsed.map((p) => p.record.deviceId));
    const records: Telemetry[] = [];
    /** The body index of each record in `records`. */
    const indexOf: number[] = [];
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
        indexOf.push(index);
      }
    }

    const nothingStored = () => {
      metrics.telemetryRecords(0, 0, rejected);
      rejected.sort((a, b) => a.index - b.index);
      const codes = new Set(rejected.map((r) => r.code));
      const [only] = codes;
      const code = codes.size === 1 && only ? only : 'NO_VALID_RECORDS';
      const status = [...codes].every((c) => forbiddenCodes.has(c)) ? 403 : 400;
      const message = codes.size === 1 ? (rejected[0]?.message ?? code) : 'No record in the body could be stored';
      return reply.code(status).send(errorBody(code, message, { rejected }));
    };
    if (records.length === 0) return nothingStored();

    // The writer refuses a record the database cannot store alone (UNSTORABLE_RECORD); the
    // others of this body, and of every other body in the same transaction, are stored.
    const outcomes = await opts.writer.write(records);
    let accepted = 0;
    let duplicates = 0;
    outcomes.forEach((o, i) => {
      if (o === 'accepted') accepted++;
      else if (o === 'duplicate') duplicates++;
      else rejected.push({ index: indexOf[i] ?? -1, code: o.code, message: o.message });
    });
    if (accepted + duplicates === 0) return nothingStored();
    metrics.telemetryRecords(accepted, duplicates, rejected);
    rejected.sort((a, b) => a.index - b.index);
    const response: IngestResponse = { accepted, duplicates, rejected };
    return response;
  });
}
