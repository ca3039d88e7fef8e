import type { Redis } from 'ioredis';
import { ruleKeys } from './partitioning.js';

/**
 * Who judges which partition: a lease per partition in Redis (`SET lease worker NX PX ttl`),
 * renewed by its owner every third of the TTL with a compare-and-renew script, free for any
 * worker to take once it expired (its owner died or stalled). No consensus of our own: Redis
 * decides who set the key first. A partition's checkpoint is written by a script that checks
 * the lease in the same step, so a worker that lost its lease cannot overwrite the new owner's
 * checkpoint.
 *
 * Fair share: live workers announce themselves in a sorted set scored by their last heartbeat;
 * each aims at ceil(partitions / live workers) partitions, takes free ones up to it and hands
 * back (checkpoint, then release) what it holds beyond it, so a new worker gets work and a dead
 * one's partitions are taken by the others once its leases expire.
 */

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
/** KEYS: lease, checkpoint, stream; ARGV: worker, state, position. Trims what the checkpoint covers. */
const CHECKPOINT = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'state', ARGV[2], 'position', ARGV[3])
if ARGV[3] ~= '0' then redis.call('XTRIM', KEYS[3], 'MINID', ARGV[3]) end
return 1`;

export interface PartitionCheckpoint {
  readonly state: Buffer | null;
  /** The last stream entry the state includes ('0': none). */
  readonly position: string;
}

export class PartitionLeases {
  private readonly keys: ReturnType<typeof ruleKeys>;
  private readonly workersKey: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly partitions: number,
    readonly workerId: string,
    readonly ttlMs: number,
  ) {
    this.keys = ruleKeys(prefix);
    this.workersKey = `${prefix}:rules:workers`;
  }

  /** Heartbeat; returns the fair share: how many partitions this worker should hold. */
  async heartbeat(now = Date.now()): Promise<number> {
    const results = await this.redis
      .multi()
      .zadd(this.workersKey, now, this.workerId)
      .zremrangebyscore(this.workersKey, '-inf', now - this.ttlMs)
      .zcard(this.workersKey)
      .exec();
    const live = Number(results?.[2]?.[1] ?? 1);
    return Math.ceil(this.partitions / Math.max(1, live));
  }

  async leave(): Promise<void> {
    await this.redis.zrem(this.workersKey, this.workerId);
  }

  async tryAcquire(p: number): Promise<boolean> {
    return (await this.redis.set(this.keys.lease(p), this.workerId, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  async renew(p: number): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.keys.lease(p), this.workerId, this.ttlMs)) === 1;
  }

  async release(p: number): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.keys.lease(p), this.workerId);
  }

  async owner(p: number): Promise<string | null> {
    return this.redis.get(this.keys.lease(p));
  }

  /** Writes the checkpoint if this worker still holds the lease; false: it does not (stop judging the partition). */
  async saveCheckpoint(p: number, state: Buffer, position: string): Promise<boolean> {
    const k = this.keys;
    return (
      (await this.redis.eval(
        CHECKPOINT,
        3,
        k.lease(p),
        k.checkpoint(p),
        k.stream(p),
        this.workerId,
        state,
        position,
      )) === 1
    );
  }

  async readCheckpoint(p: number): Promise<PartitionCheckpoint> {
    const h = await this.redis.hgetallBuffer(this.keys.checkpoint(p));
    return { state: h.state ?? null, position: h.position?.toString() ?? '0' };
  }
}
