import { type Logger, type LogLimiter, normaliseTelemetry, type Telemetry } from '@vigia/core';
import type { BatchWriter } from '../../batch-writer.js';
import type { DeviceEntry } from '../../device-directory.js';
import type { QuarantinedRecord, QuarantineSink } from '../../quarantine/quarantine-store.js';
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
  /**
   * The record's bytes as received (a Teltonika AVL record, an OsmAnd request's text), kept in
   * the quarantine if the record is refused yet acknowledged. Every gateway should pass it.
   */
  raw?: Buffer | undefined;
}

/**
 * Which refused records the gateway will acknowledge, and so must quarantine:
 * - `all`: the device is acknowledged for the whole message (Teltonika: a partial count would
 *   make it re-send the packet forever), so every refused record is quarantined;
 * - `unless-all-refused`: the client is told "refused" when nothing in the message was valid
 *   (OsmAnd answers 400 and the phone decides whether to retry), so refused records are
 *   quarantined only when the message is acknowledged for the sake of its valid ones.
 */
export type AckPolicy = 'all' | 'unless-all-refused';

export interface SinkOutcome {
  stored: number;
  duplicates: number;
  /** Refused for good (impossible fix, future time): logged and counted, never stored as telemetry. */
  refused: { index: number; code: string; message: string }[];
  /** Refused records durably kept in the quarantine (all of `refused`, or none: see `AckPolicy`). */
  quarantined: number;
}

/**
 * The one way from a gateway into the database: validation, attribution to the device's vehicle,
 * and `BatchWriter.write`, which resolves only after the transaction holding the records has
 * committed. A gateway acknowledges to the device only after `store` resolved; when it rejects
 * (database unavailable, overload, shutdown) the device is not acknowledged and sends again.
 * Records refused for good but acknowledged go to the quarantine, written alongside the
 * telemetry and awaited as it is: a failed quarantine write fails `store`, so no ACK.
 */
export class RecordSink {
  constructor(
    private readonly deps: {
      writer: BatchWriter;
      metrics: GatewayMetrics;
      log: Logger;
      maxFutureSkewS: number;
      /** Records stamped further back than this (seconds) are refused (PAST_TIMESTAMP); absent or 0: no bound. */
      maxPastAgeS?: number | undefined;
      quarantine: QuarantineSink;
      /** Refusal lines per code are bounded (a device with a broken clock refuses every record). */
      logLimiter: LogLimiter;
    },
  ) {}

  async store(
    channel: Channel,
    device: DeviceEntry,
    records: readonly DecodedRecord[],
    ack: AckPolicy = 'all',
  ): Promise<SinkOutcome> {
    const receivedAt = new Date();
    const outcome: SinkOutcome = { stored: 0, duplicates: 0, refused: [], quarantined: 0 };
    const quarantine: QuarantinedRecord[] = [];
    const telemetry: Telemetry[] = [];
    /** The index in `records` of each entry of `telemetry`. */
    const telemetryIndex: number[] = [];
    records.forEach((r, index) => {
      const built = buildTelemetry(r.fix, r.mapped, {
        receivedAt,
        maxFutureSkewS: this.deps.maxFutureSkewS,
        maxPastAgeS: this.deps.maxPastAgeS,
      });
      if (!built.ok) {
        outcome.refused.push({ index, code: built.code, message: built.message });
        quarantine.push(quarantined(channel, device, r, built, receivedAt));
        this.deps.metrics.rejected(channel, built.code.toLowerCase());
        this.deps.logLimiter.warn(
          this.deps.log,
          { ...channel, device: device.identifier, code: built.code, ts: describeTime(r.fix.tsMs) },
          `record refused: ${built.message}`,
        );
        return;
      }
      for (const d of built.dropped) {
        this.deps.metrics.droppedField(channel, d.field);
        this.deps.logLimiter.warn(
          this.deps.log,
          { ...channel, device: device.identifier, code: 'INPUT_LEFT_OUT', field: d.field, profile: device.profile },
          `input ${d.field} left out of the record: ${d.reason}`,
        );
      }
      telemetry.push(normaliseTelemetry(built.input, device, receivedAt));
      telemetryIndex.push(index);
    });
    const toQuarantine = ack === 'all' || telemetry.length > 0 ? quarantine : [];
    if (telemetry.length > 0 || toQuarantine.length > 0) {
      let outcomes: Awaited<ReturnType<BatchWriter['write']>>;
      try {
        // Both durable before the device hears anything; allSettled so neither is left running.
        const [written, quarantined] = await Promise.allSettled([
          telemetry.length > 0 ? this.deps.writer.write(telemetry) : Promise.resolve([]),
          toQuarantine.length > 0 ? this.deps.quarantine.quarantine(toQuarantine) : Promise.resolve(),
        ]);
        if (written.status === 'rejected') throw written.reason;
        if (quarantined.status === 'rejected') throw quarantined.reason;
        outcomes = written.value;
      } catch (err) {
        this.deps.metrics.storageFailure(channel);
        throw err;
      }
      outcome.quarantined = toQuarantine.length;
      for (const q of toQuarantine) this.deps.metrics.quarantined(channel, q.code.toLowerCase());
      const refusedByDatabase: QuarantinedRecord[] = [];
      outcomes.forEach((o, i) => {
        if (o === 'accepted') outcome.stored++;
        else if (o === 'duplicate') outcome.duplicates++;
        else {
          // The database refused this record's values (the writer logged it): refused alone, the
          // rest of the message and of every other device's stored.
          const index = telemetryIndex[i] ?? -1;
          outcome.refused.push({ index, code: o.code, message: o.message });
          this.deps.metrics.rejected(channel, o.code.toLowerCase());
          const r = records[index];
          if (r) refusedByDatabase.push(quarantined(channel, device, r, o, receivedAt));
        }
      });
      this.deps.metrics.stored(channel, outcome.stored);
      this.deps.metrics.duplicates(channel, outcome.duplicates);
      // Known only after the write, so quarantined after it, still before the device is answered.
      const acknowledged = ack === 'all' || outcome.stored + outcome.duplicates > 0;
      if (refusedByDatabase.length > 0 && acknowledged) {
        try {
          await this.deps.quarantine.quarantine(refusedByDatabase);
        } catch (err) {
          this.deps.metrics.storageFailure(channel);
          throw err;
        }
        outcome.quarantined += refusedByDatabase.length;
        for (const q of refusedByDatabase) this.deps.metrics.quarantined(channel, q.code.toLowerCase());
      }
    }
    return outcome;
  }
}

/** A refused record as the quarantine keeps it: its bytes, the reason, and what was decoded. */
function quarantined(
  channel: Channel,
  device: DeviceEntry,
  r: DecodedRecord,
  reason: { code: string; message: string },
  receivedAt: Date,
): QuarantinedRecord {
  return {
    protocol: channel.protocol,
    transport: channel.transport,
    deviceIdentifier: device.identifier,
    deviceId: device.deviceId,
    code: reason.code,
    message: reason.message,
    raw: r.raw ?? Buffer.alloc(0),
    decoded: { fix: r.fix, mapped: r.mapped.values },
    receivedAt,
  };
}
