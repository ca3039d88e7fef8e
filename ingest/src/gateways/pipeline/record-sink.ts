import { type Logger, normaliseTelemetry, type Telemetry } from '@vigia/core';
import type { BatchWriter } from '../../batch-writer.js';
import type { DeviceEntry } from '../../device-directory.js';
import type { Channel, GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { MappedFields } from '../profiles/field-mapping.js';
import { buildTelemetry, type DecodedFix } from './telemetry-builder.js';

/** A device's time for the log, even when it is beyond what a Date can hold (a corrupt clock). */
function describeTime(ms: number): string | number {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? ms : d.toISOString();
}

/** One record as a gateway decoded it: the fix and the profile's mapped inputs. */
export interface DecodedRecord {
  fix: DecodedFix;
  mapped: MappedFields;
}

export interface SinkOutcome {
  stored: number;
  duplicates: number;
  /** Refused for good (impossible fix, future time): logged and counted, never stored. */
  refused: { index: number; code: string; message: string }[];
}

/**
 * The one way from a gateway into the database: validation, attribution to the device's vehicle,
 * and `BatchWriter.write`, which resolves only after the transaction holding the records has
 * committed. A gateway acknowledges to the device only after `store` resolved; when it rejects
 * (database unavailable, overload, shutdown) the device is not acknowledged and sends again.
 */
export class RecordSink {
  constructor(
    private readonly deps: {
      writer: BatchWriter;
      metrics: GatewayMetrics;
      log: Logger;
      maxFutureSkewS: number;
    },
  ) {}

  async store(channel: Channel, device: DeviceEntry, records: readonly DecodedRecord[]): Promise<SinkOutcome> {
    const receivedAt = new Date();
    const outcome: SinkOutcome = { stored: 0, duplicates: 0, refused: [] };
    const telemetry: Telemetry[] = [];
    records.forEach((r, index) => {
      const built = buildTelemetry(r.fix, r.mapped, { receivedAt, maxFutureSkewS: this.deps.maxFutureSkewS });
      if (!built.ok) {
        outcome.refused.push({ index, code: built.code, message: built.message });
        this.deps.metrics.rejected(channel, built.code.toLowerCase());
        this.deps.log.warn(
          { ...channel, device: device.identifier, code: built.code, ts: describeTime(r.fix.tsMs) },
          `record refused: ${built.message}`,
        );
        return;
      }
      for (const d of built.dropped) {
        this.deps.metrics.droppedField(channel, d.field);
        this.deps.log.warn(
          { ...channel, device: device.identifier, code: 'INPUT_LEFT_OUT', field: d.field, profile: device.profile },
          `input ${d.field} left out of the record: ${d.reason}`,
        );
      }
      telemetry.push(normaliseTelemetry(built.input, device, receivedAt));
    });
    if (telemetry.length > 0) {
      let outcomes: Awaited<ReturnType<BatchWriter['write']>>;
      try {
        outcomes = await this.deps.writer.write(telemetry);
      } catch (err) {
        this.deps.metrics.storageFailure(channel);
        throw err;
      }
      for (const o of outcomes) {
        if (o === 'accepted') outcome.stored++;
        else outcome.duplicates++;
      }
      this.deps.metrics.stored(channel, outcome.stored);
      this.deps.metrics.duplicates(channel, outcome.duplicates);
    }
    return outcome;
  }
}
