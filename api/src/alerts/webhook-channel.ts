import { createHmac } from 'node:crypto';
import type { AlertChannel, AlertMessage, AlertTarget, DeliveryResult } from './alert-channel.js';

/** `Vigia-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (as Stripe signs). */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

/**
 * POSTs the alert as JSON. A 2xx within the timeout delivers it; anything else is a failed
 * attempt. The response body is discarded unread and redirects are not followed, so a
 * subscription can probe whether an address answers, never read what it says.
 */
export class WebhookChannel implements AlertChannel {
  constructor(private readonly opts: { timeoutMs: number }) {}

  async deliver(target: AlertTarget, message: AlertMessage): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    if (!target.url) return { ok: false, status: null, durationMs: 0, error: 'NO_URL' };
    const body = JSON.stringify(message);
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Vigia-Webhooks/1',
          'vigia-event-id': message.id,
          'vigia-signature': signature(target.secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
      });
      await res.body?.cancel().catch(() => undefined);
      const ok = res.status >= 200 && res.status < 300;
      return { ok, status: res.status, durationMs: elapsed(), ...(ok ? {} : { error: 'HTTP_STATUS' }) };
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      const error = name === 'TimeoutError' || name === 'AbortError' ? 'TIMEOUT' : 'CONNECTION_FAILED';
      return { ok: false, status: null, durationMs: elapsed(), error };
    }
  }
}
