import { z } from 'zod';
import { ALERT_EVENT_TYPES } from './alert-channel.js';
import { subscriptionFilterSchema } from './alert-filter.js';

/** Bodies and parameters of the alert routes (API.md "Alerts to enforcement"). */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const noControl = /^[^\u0000-\u001f\u007f]*$/;

/** Any http(s) URL, loopback and private addresses included: agencies' systems sit on the regulator's network. */
const webhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .regex(noControl);

const fields = {
  name: z.string().trim().min(1).max(200).regex(noControl),
  url: webhookUrl,
  email: z.email().max(320),
  /** The HMAC key; long enough to be one. */
  secret: z.string().min(16).max(200).regex(noControl),
  events: z
    .array(z.enum(ALERT_EVENT_TYPES))
    .min(1)
    .max(3)
    .refine((e) => new Set(e).size === e.length, 'events must not repeat'),
  filter: subscriptionFilterSchema,
};

export const createSubscriptionSchema = z
  .strictObject({
    name: fields.name,
    url: fields.url.optional(),
    email: fields.email.optional(),
    secret: fields.secret.optional(),
    events: fields.events.default(['violation.raised']),
    filter: fields.filter.default({}),
  })
  .refine((b) => (b.url === undefined) !== (b.email === undefined), 'give either url or email');
export type CreateSubscription = z.infer<typeof createSubscriptionSchema>;

export const patchSubscriptionSchema = z
  .strictObject({
    name: fields.name.optional(),
    url: fields.url.optional(),
    email: fields.email.optional(),
    secret: fields.secret.optional(),
    events: fields.events.optional(),
    filter: fields.filter.optional(),
  })
  .refine((b) => b.url === undefined || b.email === undefined, 'give either url or email, not both');
export type PatchSubscription = z.infer<typeof patchSubscriptionSchema>;

/** Ids are ours (`sub_…`, `dlv_…`): anything else cannot name a record. */
export const alertIdSchema = z.string().regex(/^[a-z]{3}_[0-9a-f]{32}$/, 'not an alert id');

export const deliveryQuerySchema = z.object({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z
    .string()
    .regex(/^[0-9]{1,18}$/, 'not a cursor')
    .optional(),
});
