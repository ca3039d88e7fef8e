/**
 * What the delivery worker hands to a channel (webhook, e-mail): one event for one subscription.
 * A channel never throws for a receiver's failure; it answers with a DeliveryResult so the worker
 * can record the attempt and schedule the next one.
 */
export const ALERT_EVENT_TYPES = ['violation.raised', 'violation.updated', 'violation.reviewed'] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

export interface AlertMessage {
  /** The event's id: the same on every retry, for receivers to deduplicate. */
  id: string;
  type: AlertEventType;
  createdAt: string;
  /** The violation as `GET /v1/violations/:id` without `evidence`. */
  violation: Record<string, unknown>;
}

export interface AlertTarget {
  subscriptionId: string;
  name: string;
  url: string | null;
  email: string | null;
  secret: string;
}

export interface DeliveryResult {
  ok: boolean;
  /** The receiver's HTTP status (webhook) or SMTP reply code; null when none came back. */
  status: number | null;
  durationMs: number;
  /** A short reason when not ok (never the receiver's response body). */
  error?: string;
}

export interface AlertChannel {
  deliver(target: AlertTarget, message: AlertMessage): Promise<DeliveryResult>;
}
