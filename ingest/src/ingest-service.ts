import { join } from 'node:path';
import {
  type Bus,
  batchWaitMs,
  type Config,
  type FleetUpdate,
  publishOrLog,
  type Telemetry,
  type TokenResolver,
} from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { BatchWriter } from './batch-writer.js';
import { DeviceDirectory, type DeviceEntry } from './device-directory.js';
import { registerDispatchRoutes } from './dispatch-routes.js';
import { type RunningProtocolGateways, startProtocolGateways } from './gateways/index.js';
import { registerIngestRoutes } from './ingest-routes.js';
import { IngestMetrics } from './metrics/ingest-metrics.js';
import { type QuarantineRetention, startQuarantineRetention } from './quarantine/quarantine-retention.js';
import { registerQuarantineRoutes } from './quarantine/quarantine-routes.js';
import { QuarantineStore } from './quarantine/quarantine-store.js';
import { spooledRecordEntry } from './quarantine/spooled-record.js';
import { appendToPartitions } from './rules/partitions/sample-stream.js';
import { RulePipeline } from './rules/rule-pipeline.js';
import { TelemetrySpool } from './spool/telemetry-spool.js';
import { createTokenResolver } from './token-resolver.js';

export interface IngestService {
  /** The device protocol gateways, once `register` has started them. */
  gateways(): RunningProtocolGateways | undefined;
  devices: DeviceDirectory;
  writer: BatchWriter;
  rules: RulePipeline;
  /** This service's metrics (`GET /metrics`), in a registry of its own. */
  metrics: IngestMetrics;
  /** Loads what the live rules need; before the first record. */
  start(): Promise<void>;
  resolveToken: TokenResolver;
  register(app: FastifyInstance): Promise<void>;
  /** Stops taking records and waits until every accepted one is written. */
  close(): Promise<void>;
}

export function toFleetUpdate(
  r: Telemetry,
  v: Pick<DeviceEntry, 'plate' | 'operatorId' | 'pack' | 'serviceType'>,
): FleetUpdate {
  return {
    vehicleId: r.vehicleId,
    plate: v.plate,
    operatorId: v.operatorId,
    pack: v.pack,
    serviceType: v.serviceType,
    ts: r.ts.toISOString(),
    lat: r.lat,
    lon: r.lon,
    speedKmh: r.speedKmh,
    headingDeg: r.headingDeg,
    meterState: r.meterState,
    tariff: r.meterTariff,
    passengers: r.passengers,
    doorOpen: r.doorOpen,
    ignition: r.ignition,
  };
}

/**
 * The ingest path: device lookup, validation, batched durable writes, and fleet updates on the
 * bus once they are committed. Registry changes announced on the bus drop stale device entries.
 */
export function createIngestService(deps: {
  db: Database;
  bus: Bus;
  config: Config;
  adminToken: string;
  log: Logger;
}): IngestService {
  const { db, bus, config, log } = deps;
  const devices = new DeviceDirectory(db, config.DEVICE_CACHE_TTL_MS, config.DEVICE_CACHE_MAX_ENTRIES);
  const resolveToken = createTokenResolver({
    adminToken: deps.adminToken,
    db,
    devices,
    ttlMs: config.DEVICE_CACHE_TTL_MS,
    maxEntries: config.DEVICE_CACHE_MAX_ENTRIES,
  });
  const unsubscribe = bus.subscribe((message) => {
    // The bus was away: any device or user may have changed unannounced (bus.ts, `bus-resumed`).
    if (message.type === 'bus-resumed') {
      devices.invalidateAll();
      resolveToken.forgetUsers();
    }
    if (message.type === 'device-changed') devices.invalidate(message.identifiers);
    // A retired user or a rotated token is refused at once, not after DEVICE_CACHE_TTL_MS.
    if (message.type === 'registry-changed' && message.collection === 'users') resolveToken.forgetUsers();
  });
  let gateways: RunningProtocolGateways | undefined;
  // Records the gateways acknowledge but refuse to store; purged by QUARANTINE_RETENTION_DAYS.
  const quarantine = new QuarantineStore(db);
  let retention: QuarantineRetention | undefined;
  const metrics = new IngestMetrics();
  // Partitioned rules: accepted samples go to the partitions' Redis streams for the rule workers.
  const streams =
    config.RULES_MODE === 'partitioned' && config.REDIS_URL
      ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2 })
      : undefined;
  const rules = new RulePipeline({
    metrics,
    db,
    bus,
    log,
    configFile: config.RULES_CONFIG_FILE,
    packOf: (vehicleId) => devices.vehicle(vehicleId)?.pack,
    stateFile:
      config.RULES_MODE === 'embedded'
        ? (config.RULES_STATE_FILE ?? join(config.DATA_DIR, 'rule-state.bin'))
        : undefined,
    checkpoints: {
      intervalMs: config.RULES_CHECKPOINT_INTERVAL_MS,
      maxCostShare: config.RULES_CHECKPOINT_MAX_COST_SHARE,
    },
    flushIntervalMs: config.RULES_FLUSH_INTERVAL_MS,
  });
  const writer = new BatchWriter({
    db,
    metrics,
    log,
    spool: new TelemetrySpool(config.SPOOL_DIR ?? join(config.DATA_DIR, 'spool'), config.SPOOL_MAX_BYTES, log),
    maxRecords: config.INGEST_BATCH_MAX_RECORDS,
    maxWaitMs: batchWaitMs(config, db.kind),
    maxPending: config.INGEST_MAX_PENDING_RECORDS,
    concurrency: db.kind === 'pglite' ? 1 : Math.max(1, Math.min(4, config.DATABASE_POOL_SIZE - 1)),
    onCommitted({ accepted, advanced }) {
      metrics.samplesCommitted(accepted, Date.now());
      if (config.RULES_MODE === 'embedded') rules.onStored(accepted);
      else if (streams) {
        // Stored but not judged if Redis refuses: logged with its code (README, rule workers' limits).
        appendToPartitions(
          streams,
          config.REDIS_PREFIX,
          config.RULES_PARTITIONS,
          accepted,
          (id) => devices.vehicle(id)?.pack,
        ).catch((err: unknown) => {
          log.error(
            { err, code: 'RULES_STREAM_APPEND_FAILED', records: accepted.length },
            'samples not queued for the rules',
          );
        });
      }
      const updates = advanced.flatMap((r) => {
        const v = devices.vehicle(r.vehicleId);
        return v ? [toFleetUpdate(r, v)] : [];
      });
      void publishOrLog(bus, log, { type: 'fleet', updates }, 'fleet update not published');
    },
    // Acknowledged, then refused by the database on replay: kept like the gateways' refusals.
    onUnstorableSpooled: (refused) =>
      quarantine.quarantine(refused.map(({ record, outcome }) => spooledRecordEntry(record, outcome))),
  });

  return {
    gateways: () => gateways,
    devices,
    writer,
    rules,
    metrics,
    start: () => rules.start(),
    resolveToken,
    register: async (app) => {
      await registerDispatchRoutes(app, {
        db,
        rules,
        resolveToken,
        maxFutureSkewS: config.INGEST_MAX_FUTURE_SKEW_S,
        maxPastAgeS: config.INGEST_MAX_PAST_AGE_S,
      });
      // The device protocols on their own ports, their counters in this service's registry.
      gateways = await startProtocolGateways({ config, log, devices, writer, quarantine, registry: metrics.registry });
      retention = startQuarantineRetention({ store: quarantine, days: config.QUARANTINE_RETENTION_DAYS, log });
      await registerQuarantineRoutes(app, { store: quarantine });
      // Counters describe the fleet and the attacks on it: the admin token, or METRICS_TOKEN for a scraper.
      // Exempt from load shedding, like /health: an overloaded process is when its figures matter most.
      const metricsAccess = {
        access: ['admin'] as const,
        extraToken: config.METRICS_TOKEN,
        overload: 'exempt' as const,
      };
      app.get('/metrics', { config: metricsAccess }, async (_req, reply) =>
        reply.header('content-type', metrics.contentType).send(await metrics.exposition()),
      );
      await registerIngestRoutes(app, {
        writer,
        metrics,
        devices,
        resolveToken,
        bodyLimit: config.INGEST_BODY_LIMIT_BYTES,
        maxFutureSkewS: config.INGEST_MAX_FUTURE_SKEW_S,
        maxPastAgeS: config.INGEST_MAX_PAST_AGE_S,
      });
    },
    async close() {
      // Gateways first: they finish the packets in flight (and ACK them) before the writer closes.
      await gateways?.close();
      await retention?.stop();
      await writer.close();
      await rules.close();
      await streams?.quit();
      unsubscribe();
      metrics.close();
    },
  };
}
