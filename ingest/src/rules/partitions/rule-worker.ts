import type { Bus, Pack } from '@vigia/core';
import type { Database } from '@vigia/db';
import { CheckpointError } from '@vigia/rules';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CheckpointPacer } from '../checkpoint-pacer.js';
import { loadRegistry } from '../registry-loader.js';
import { RulePipeline } from '../rule-pipeline.js';
import type { PartitionLeases } from './partition-leases.js';
import { ruleKeys } from './partitioning.js';
import { decodeEntry } from './sample-stream.js';

interface Owned {
  readonly pipeline: RulePipeline;
  /** The last stream entry fed to the pipeline. */
  position: string;
  /** The position the last checkpoint saved. */
  saved: string;
}

/** Stream entries asked for per partition and read. */
const READ_COUNT = 1000;
/**
 * After a read that found the streams nearly drained, how long entries gather before the next
 * (ms). Without it a worker asks again the moment any sample arrives: in the soak (500 samples/s)
 * that was thousands of XREADs a second, whose writes alone took over a third of the worker's CPU.
 * It delays a violation by at most this much.
 */
const READ_GATHER_MS = 50;

/**
 * A rule worker (RULES_MODE=partitioned, `npm run start:rules`): holds leases on its share of
 * the partitions (partition-leases.ts) and runs one rule pipeline — engine, persistence — per
 * partition it holds, fed from the partition's stream. Taking a partition over restores its
 * checkpoint and replays the stream from the checkpoint's position, so the engine says what an
 * uninterrupted one would; violations are upserted by event key, so what the replay says again
 * is not stored twice. A checkpoint round is written when the pacer says (`checkpoint-pacer.ts`), when a partition is
 * handed back and on close.
 */
export class RuleWorker {
  private readonly owned = new Map<number, Owned>();
  private running = false;
  private loop: Promise<void> | undefined;
  private tickTimer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();
  private readonly pacer: CheckpointPacer;
  private registryRead: { at: number; result: ReturnType<typeof loadRegistry> } | undefined;
  private readonly keys: ReturnType<typeof ruleKeys>;

  constructor(
    private readonly deps: {
      db: Database;
      bus: Bus;
      log: Logger;
      /** Commands (leases, checkpoints). */
      redis: Redis;
      /** Blocking stream reads, on a connection of their own. */
      reader: Redis;
      leases: PartitionLeases;
      prefix: string;
      configFile?: string | undefined;
      /** How often silent vehicles' events are finished (RULES_FLUSH_INTERVAL_MS); default 30 s. */
      flushIntervalMs?: number | undefined;
      /** When checkpoints are written (`checkpoint-pacer.ts`). */
      checkpoints: { intervalMs: number; maxCostShare: number };
    },
  ) {
    this.keys = ruleKeys(deps.prefix);
    this.pacer = new CheckpointPacer(deps.checkpoints.intervalMs, deps.checkpoints.maxCostShare, Date.now());
  }

  get id(): string {
    return this.deps.leases.workerId;
  }

  /** The partitions this worker holds now. */
  partitions(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  async start(): Promise<void> {
    this.running = true;
    await this.tick();
    this.tickTimer = setInterval(
      () => {
        this.ticking = this.ticking
          .then(() => this.tick())
          .catch((err: unknown) => {
            this.deps.log.error({ err, code: 'RULE_WORKER_TICK_FAILED' }, 'lease round failed');
          });
      },
      Math.max(100, Math.floor(this.deps.leases.ttlMs / 3)),
    );
    this.loop = this.readLoop();
  }

  /** Renews what it holds, hands back what is beyond its share, takes free partitions up to it. */
  private async tick(): Promise<void> {
    const leases = this.deps.leases;
    const share = await leases.heartbeat();
    for (const p of this.partitions()) {
      if (!(await leases.renew(p))) await this.drop(p, 'lease lost');
    }
    for (const p of this.partitions().slice(share)) {
      await this.handBack(p);
    }
    if (this.owned.size >= share) return;
    // Start the search at a place of this worker's own, so workers starting together spread out.
    const start = Math.abs(hashOf(this.id)) % leases.partitions;
    for (let i = 0; i < leases.partitions && this.owned.size < share && this.running; i++) {
      const p = (start + i) % leases.partitions;
      if (this.owned.has(p)) continue;
      if (!(await leases.tryAcquire(p))) continue;
      try {
        await this.takeOver(p);
      } catch (err) {
        // Not judged here after all: let the lease go, for this or another worker to try again.
        this.deps.log.error({ err, code: 'RULE_PARTITION_TAKEOVER_FAILED', partition: p }, 'partition not taken');
        await leases.release(p);
      }
    }
  }

  private async takeOver(p: number): Promise<void> {
    const { state, position } = await this.deps.leases.readCheckpoint(p);
    const pipeline = new RulePipeline({
      db: this.deps.db,
      bus: this.deps.bus,
      log: this.deps.log.child({ partition: p }),
      configFile: this.deps.configFile,
      flushIntervalMs: this.deps.flushIntervalMs,
      packOf: (vehicleId) => this.packs.get(vehicleId),
      loadRegistry: () => this.sharedRegistry(),
    });
    try {
      await pipeline.start(state ?? undefined);
    } catch (err) {
      if (!(err instanceof CheckpointError)) throw err;
      // A checkpoint this code cannot read (another format version): judging on from its position
      // without the state loses the open runs, where refusing would stop the partition for good.
      this.deps.log.error({ err, code: err.code, partition: p }, 'partition checkpoint refused, continuing without it');
      await pipeline.start();
    }
    this.owned.set(p, { pipeline, position, saved: position });
    this.deps.log.info({ partition: p, position, restored: state !== null }, 'partition taken');
  }

  /** Pack hints of vehicles the registry does not know, from the stream (the ingest's device directory). */
  private readonly packs = new Map<string, Pack>();

  /** One registry read serves every partition that asks within a second (a takeover of many at once). */
  private sharedRegistry(): ReturnType<typeof loadRegistry> {
    const now = Date.now();
    if (!this.registryRead || now - this.registryRead.at > 1000) {
      this.registryRead = { at: now, result: loadRegistry(this.deps.db, this.deps.log) };
    }
    return this.registryRead.result;
  }

  /** Writes partition `p`'s checkpoint; resolves with what serialising it cost (ms), or null when the lease was lost. */
  private async checkpoint(p: number): Promise<number | null> {
    const owned = this.owned.get(p);
    if (!owned) return null;
    const position = owned.position;
    const { state, costMs } = await owned.pipeline.checkpoint();
    if (!(await this.deps.leases.saveCheckpoint(p, state, position))) {
      await this.drop(p, 'lease lost at checkpoint');
      return null;
    }
    owned.saved = position;
    return costMs;
  }

  private async handBack(p: number): Promise<void> {
    if ((await this.checkpoint(p)) !== null) {
      await this.deps.leases.release(p);
      await this.drop(p, 'handed back');
    }
  }

  private async drop(p: number, reason: string): Promise<void> {
    const owned = this.owned.get(p);
    if (!owned) return;
    this.owned.delete(p);
    await owned.pipeline.close();
    this.deps.log.info({ partition: p, reason }, 'partition left');
  }

  private async readLoop(): Promise<void> {
    while (this.running) {
      try {
        await this.readOnce();
        if (this.pacer.due(Date.now())) {
          // In turn with the lease rounds: a checkpoint never races a hand-back of the same partition.
          this.ticking = this.ticking.then(() => this.checkpointAll());
          await this.ticking;
        }
      } catch (err) {
        this.deps.log.error({ err, code: 'RULE_WORKER_READ_FAILED' }, 'partition stream read failed');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** A round over the partitions with news since their last checkpoint; paced by what the round cost. */
  private async checkpointAll(): Promise<void> {
    const startedMs = Date.now();
    let costMs = 0;
    for (const [p, owned] of [...this.owned])
      if (owned.position !== owned.saved) costMs += (await this.checkpoint(p)) ?? 0;
    this.pacer.done(startedMs, costMs);
  }

  private async readOnce(): Promise<void> {
    const parts = this.partitions();
    if (parts.length === 0) {
      await new Promise((r) => setTimeout(r, 100));
      return;
    }
    const positions = parts.map((p) => this.owned.get(p)?.position ?? '0');
    const reply = await this.deps.reader.xread(
      'COUNT',
      READ_COUNT,
      'BLOCK',
      250,
      'STREAMS',
      ...parts.map((p) => this.keys.stream(p)),
      ...positions,
    );
    let read = 0;
    for (const [key, entries] of reply ?? []) {
      read += entries.length;
      const p = Number(key.slice(key.lastIndexOf(':') + 1));
      const owned = this.owned.get(p);
      // Left (lease lost, handed back) while the read was blocked: the next owner replays it.
      if (!owned) continue;
      for (const [id, fields] of entries) {
        const streamed = decodeEntry(fields);
        for (const s of streamed) if (s.pack) this.packs.set(s.sample.vehicleId, s.pack);
        owned.pipeline.onStored(streamed.map((s) => s.sample));
        owned.position = id;
      }
    }
    // A short read means the streams are drained: let entries gather before asking again.
    if (read > 0 && read < READ_COUNT / 2) await new Promise((r) => setTimeout(r, READ_GATHER_MS));
  }

  /** Waits until everything fed so far is judged and stored. */
  async idle(): Promise<void> {
    for (const owned of this.owned.values()) await owned.pipeline.idle();
  }

  /** Graceful stop: checkpoint and release every partition, so the others take them at once. */
  async close(): Promise<void> {
    this.running = false;
    clearInterval(this.tickTimer);
    await this.loop;
    await this.ticking;
    for (const p of this.partitions()) await this.handBack(p);
    await this.deps.leases.leave();
  }
}

function hashOf(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}
