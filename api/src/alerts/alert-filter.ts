import { type Principal, packSchema } from '@vigia/core';
import { z } from 'zod';
import { scopeOf } from '../violations/violation-store.js';
import type { EventRow, FanOutSubscription } from './alert-store.js';

/** A subscription's filter (API.md): every given condition must hold; an empty filter takes all. */
export const subscriptionFilterSchema = z.strictObject({
  packs: z.array(packSchema).min(1).max(10).optional(),
  ruleIds: z
    .array(z.string().regex(/^[A-Z0-9_]{1,80}$/))
    .min(1)
    .max(200)
    .optional(),
  operatorIds: z.array(z.string().min(1).max(200)).min(1).max(500).optional(),
  confidence: z
    .array(z.enum(['confirmed', 'suspected']))
    .min(1)
    .max(2)
    .refine((c) => c.includes('confirmed'), 'confidence is ["confirmed"] or both')
    .optional(),
  bbox: z
    .tuple([
      z.number().min(-180).max(180),
      z.number().min(-90).max(90),
      z.number().min(-180).max(180),
      z.number().min(-90).max(90),
    ])
    .refine(([w, s, e, n]) => w <= e && s <= n, 'bbox is [west, south, east, north]')
    .optional(),
});
export type SubscriptionFilter = z.infer<typeof subscriptionFilterSchema>;

/** The owner as a principal, with its current role and scope; undefined when it can read nothing. */
function ownerPrincipal(s: FanOutSubscription): Principal | undefined {
  if (s.ownerKind === 'admin') return { kind: 'admin' };
  if (s.ownerRetired || !s.ownerUserId || !s.ownerRole) return undefined;
  return {
    kind: 'user',
    userId: s.ownerUserId,
    role: s.ownerRole as Extract<Principal, { kind: 'user' }>['role'],
    operatorIds: s.ownerOperatorIds,
  };
}

/**
 * Whether a subscription receives an event: its type subscribed, every filter condition met, and
 * the violation within what the owner may read, judged by the violation store's own scope rule.
 */
export function subscriptionMatches(s: FanOutSubscription, event: EventRow): boolean {
  if (!s.events.includes(event.type)) return false;
  const owner = ownerPrincipal(s);
  if (!owner) return false;
  const v = event.payload;
  const operatorId = typeof v.operatorId === 'string' ? v.operatorId : null;
  let scope: ReturnType<typeof scopeOf>;
  try {
    scope = scopeOf(owner);
  } catch {
    return false;
  }
  if (!scope.all && (operatorId === null || !scope.operatorIds.includes(operatorId))) return false;
  const f = s.filter;
  if (f.packs && !f.packs.includes(v.pack as never)) return false;
  if (f.ruleIds && !f.ruleIds.includes(String(v.ruleId))) return false;
  if (f.operatorIds && (operatorId === null || !f.operatorIds.includes(operatorId))) return false;
  if (f.confidence && !f.confidence.includes(v.confidence as never)) return false;
  if (f.bbox) {
    const [w, south, e, n] = f.bbox;
    if (typeof v.lat !== 'number' || typeof v.lon !== 'number') return false;
    if (v.lon < w || v.lon > e || v.lat < south || v.lat > n) return false;
  }
  return true;
}
