import type { Config } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { registerAlertRoutes } from './alert-routes.js';
import { AlertStore } from './alert-store.js';
import { AlertWorker } from './alert-worker.js';
import { EmailChannel } from './email-channel.js';
import { WebhookChannel } from './webhook-channel.js';

export interface AlertService {
  /** Starts the delivery worker; `publicUrl` is the process's address for links in e-mails. */
  start(publicUrl: string): void;
  /** Stops the worker and waits for the attempts in flight. */
  stop(): Promise<void>;
  /** The worker, once started (tests run a round on demand). */
  worker(): AlertWorker | undefined;
}

/**
 * The alerts capability of one API process: its routes now, its worker once the process listens.
 * Every API process runs a worker; the database shares the work among them.
 */
export async function registerAlerts(
  app: FastifyInstance,
  deps: { db: Database; config: Config; log: Logger },
): Promise<AlertService> {
  const { config, log } = deps;
  const store = new AlertStore(deps.db);
  await registerAlertRoutes(app, {
    store,
    emailEnabled: config.SMTP_URL !== undefined,
    maxAgeMs: config.ALERT_MAX_AGE_MS,
  });
  let worker: AlertWorker | undefined;
  let email: EmailChannel | undefined;
  return {
    start(publicUrl) {
      if (worker) return;
      email = config.SMTP_URL
        ? new EmailChannel({
            smtpUrl: config.SMTP_URL,
            from: config.SMTP_FROM,
            publicUrl,
            timeoutMs: config.ALERT_TIMEOUT_MS,
          })
        : undefined;
      worker = new AlertWorker({
        store,
        webhook: new WebhookChannel({ timeoutMs: config.ALERT_TIMEOUT_MS }),
        email,
        log: log.child({ component: 'alerts' }),
        pollIntervalMs: config.ALERT_POLL_INTERVAL_MS,
        timeoutMs: config.ALERT_TIMEOUT_MS,
        maxAgeMs: config.ALERT_MAX_AGE_MS,
        concurrencyPerReceiver: config.ALERT_CONCURRENCY_PER_RECEIVER,
        backoffBaseMs: config.ALERT_BACKOFF_BASE_MS,
        backoffMaxMs: config.ALERT_BACKOFF_MAX_MS,
        retentionDays: config.ALERT_RETENTION_DAYS,
      });
      worker.start();
    },
    async stop() {
      await worker?.stop();
      email?.close();
    },
    worker: () => worker,
  };
}
