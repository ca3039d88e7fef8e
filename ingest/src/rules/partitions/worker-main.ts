import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AppError, createBus, createLogger, exitOnSignals, loadConfig, startOrExit } from '@vigia/core';
import { openDatabase } from '@vigia/db';
import { Redis } from 'ioredis';
import { PartitionLeases } from './partition-leases.js';
import { RuleWorker } from './rule-worker.js';

/**
 * `npm run start:rules`: a rule worker for RULES_MODE=partitioned. Start as many as the
 * partitions need, on any machines reaching the same PostgreSQL and Redis; stop any of them.
 */
const worker = await startOrExit('vigia-rules', async () => {
  const config = loadConfig(process.env);
  if (!config.REDIS_URL) throw new AppError('INVALID_CONFIG', 'a rule worker needs REDIS_URL', 500);
  const log = createLogger('vigia-rules', config.LOG_LEVEL);
  const { db } = await openDatabase(config, log);
  const bus = createBus(config.REDIS_URL, config.REDIS_PREFIX, log);
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2 });
  const reader = new Redis(config.REDIS_URL);
  const workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const leases = new PartitionLeases(
    redis,
    config.REDIS_PREFIX,
    config.RULES_PARTITIONS,
    workerId,
    config.RULES_LEASE_TTL_MS,
  );
  const rules = new RuleWorker({
    db,
    bus,
    log,
    redis,
    reader,
    leases,
    prefix: config.REDIS_PREFIX,
    configFile: config.RULES_CONFIG_FILE,
    flushIntervalMs: config.RULES_FLUSH_INTERVAL_MS,
    checkpoints: {
      intervalMs: config.RULES_CHECKPOINT_INTERVAL_MS,
      maxCostShare: config.RULES_CHECKPOINT_MAX_COST_SHARE,
    },
  });
  await rules.start();
  log.info({ workerId, partitions: rules.partitions() }, 'rule worker running');
  return {
    log,
    config,
    async close() {
      await rules.close();
      reader.disconnect();
      await redis.quit();
      await bus.close();
      await db.close();
    },
  };
});
exitOnSignals(() => worker.close(), worker.log, worker.config.SHUTDOWN_TIMEOUT_MS);
