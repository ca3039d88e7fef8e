import { LogLimiter, PeriodicWorker, type WorkerHealth } from '@vigia/core';
import type { Logger } from 'pino';
import type { AlertChannel, AlertMessage, AlertTarget, DeliveryResult } from './alert-channel.js';
import { subscriptionMatches } from './alert-filter.js';
import type { AlertStore, ClaimedDelivery } from './alert-store.js';

export interface AlertWorkerOptions {
  store: AlertStore;
  webhook: AlertChannel;
  /** The e-mail channel, when SMTP is configured. */
  email?: AlertChannel;
  log: Logger;
  pollIntervalMs: number;
  timeoutMs: number;
  maxAgeMs: number;
  concurrencyPerReceiver: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** ALERT_RETENTION_DAYS: settled alerts older than this are purged; 0 keeps all. */
  retentionDays: number;
}

/** Events fanned out per transaction. */
const FAN_OUT_BATCH = 200;
/** A claimed attempt is held this long past its timeout before another process may take it. */
const LEASE_MARGIN_MS = 5_000;
/** How often each process purges settled alert history (idempotent: processes may overlap). */
const PURGE_EVERY_MS = 3_600_000;

/**
 * The wait before retry n (1 = the first): exponential from the base, capped, with "full jitter"
 * between half and all of it, so receivers coming back are not hit by every process at once.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(30, attempt - 1));
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/**
 * Fans alert events out to subscriptions and delivers them. Runs in every API process: the
 * database coordinates them (SKIP LOCKED on events, leases on deliveries), so each alert is sent
 * by one process, and a process killed mid-attempt leaves it to another once its lease ends.
 */
export class AlertWorker {
  private stopped = true;
  /** The rounds: one at a time per process, whoever asks (the poll or a freed slot), the shared worker lifecycle. */
  private readonly rounds: PeriodicWorker;
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  /** Deliveries this process is attempting: a lease that ran out under a stalled database must not start a second attempt here. */
  private readonly attempting = new Set<string>();
  private lastPurge = 0;
  private readonly logLimiter = new LogLimiter();

  constructor(private readonly opts: AlertWorkerOptions) {
    this.rounds = new PeriodicWorker({
      name: 'alerts',
      intervalMs: opts.pollIntervalMs,
      log: opts.log,
      errorCode: 'ALERT_WORKER_FAILED',
      round: () => this.runRound(),
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.rounds.start();
  }

  /** Stops polling and waits for the attempts in flight (each is bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.rounds.stop();
    // Attempts launched by the last round included; each is bounded by the timeout.
    await Promise.allSettled([...this.attempts]);
    this.logLimiter.flush();
  }

  /**
   * Runs a round now (the poll, and each attempt that ends and frees a slot). Asked during a
   * round, another follows it, so a freed slot is refilled without waiting for the next poll.
   */
  runOnce(): Promise<void> {
    return this.rounds.runOnce();
  }

  health(): WorkerHealth {
    return this.rounds.health();
  }

  private async runRound(): Promise<void> {
    while (
      (await this.opts.store.fanOut(FAN_OUT_BATCH, (e, subs) => subs.filter((s) => subscriptionMatches(s, e)))) > 0
    ) {
      if (this.stopped) return;
    }
    await this.claimDue();
    await this.purgeWhenDue();
  }

  private async claimDue(): Promise<void> {
    const { store, concurrencyPerReceiver, timeoutMs } = this.opts;
    for (const subscriptionId of await store.dueSubscriptions()) {
      if (this.stopped) return;
      const free = concurrencyPerReceiver - (this.inFlight.get(subscriptionId) ?? 0);
      if (free <= 0) continue;
      const claimed = await store.claim(subscriptionId, free, timeoutMs + LEASE_MARGIN_MS);
      for (const delivery of claimed) this.launch(delivery);
    }
  }

  private async purgeWhenDue(): Promise<void> {
    const { retentionDays, store, log } = this.opts;
    if (retentionDays === 0 || Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    const removed = await store.purge(retentionDays);
    if (removed > 0) log.info({ code: 'ALERT_HISTORY_PURGED', events: removed, retentionDays }, 'old alerts purged');
  }

  private launch(d: ClaimedDelivery): void {
    if (this.attempting.has(d.id)) return;
    this.attempting.add(d.id);
    this.inFlight.set(d.subscriptionId, (this.inFlight.get(d.subscriptionId) ?? 0) + 1);
    const attempt = this.attempt(d)
      .catch((err: unknown) =>
        this.opts.log.warn({ err, code: 'ALERT_ATTEMPT_NOT_RECORDED', deliveryId: d.id }, 'alert attempt not recorded'),
      )
      .finally(() => {
        const left = (this.inFlight.get(d.subscriptionId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(d.subscriptionId, left);
        else this.inFlight.delete(d.subscriptionId);
        this.attempts.delete(attempt);
        this.attempting.delete(d.id);
        // A slot freed: the next alert of this receiver need not wait for the next poll.
        if (!this.stopped) {
          void this.runOnce().catch((err: unknown) =>
            this.opts.log.warn({ err, code: 'ALERT_WORKER_FAILED' }, 'alert round failed'),
          );
        }
      });
    this.attempts.add(attempt);
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const target: AlertTarget = {
      subscriptionId: d.subscriptionId,
      name: d.name,
      url: d.url,
      email: d.email,
      secret: d.secret,
    };
    const message: AlertMessage = {
      id: d.eventId,
      type: d.type,
      createdAt: new Date(d.eventCreatedAt).toISOString(),
      violation: d.payload,
    };
    const channel = d.url ? this.opts.webhook : this.opts.email;
    const result: DeliveryResult = channel
      ? await channel.deliver(target, message)
      : { ok: false, status: null, durationMs: 0, error: 'EMAIL_NOT_CONFIGURED' };
    const { store, log } = this.opts;
    if (result.ok) {
      await store.markDelivered(d.id, d.subscriptionId, result.status, result.durationMs);
      log.debug(
        { code: 'ALERT_DELIVERED', deliveryId: d.id, eventId: d.eventId, status: result.status },
        'alert delivered',
      );
      return;
    }
    const giveUp = Date.now() - new Date(d.pendingSince).getTime() >= this.opts.maxAgeMs;
    const retryAt = new Date(Date.now() + backoffMs(d.attempts, this.opts.backoffBaseMs, this.opts.backoffMaxMs));
    await store.markAttemptFailed(
      d.id,
      d.subscriptionId,
      { status: result.status, durationMs: result.durationMs, error: result.error ?? 'FAILED' },
      { giveUp, retryAt },
    );
    // A receiver down fails every alert it is sent, every few seconds: at most 20 lines a minute.
    this.logLimiter.info(
      log,
      {
        code: giveUp ? 'ALERT_FAILED' : 'ALERT_ATTEMPT_FAILED',
        deliveryId: d.id,
        subscriptionId: d.subscriptionId,
        attempts: d.attempts,
        status: result.status,
        error: result.error,
      },
      giveUp ? 'alert given up after its retry window' : 'alert attempt failed, will retry',
    );
  }
}
