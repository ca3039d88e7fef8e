import { type Booking, type BusMessage, type LiveViolation, OwedMessages } from '@vigia/core';
import { describe, expect, it } from 'vitest';
import { busBooking, positionAtSecond } from './fleet-support.js';

/** What a process keeps of the messages it failed to publish, and what it publishes again. */

const silent = { error: () => undefined };

const position = positionAtSecond;

/** Booking `id` in `status`, its times fixed so two builds of one state are equal. */
const booking = (id: string, status: Booking['status']): Booking =>
  busBooking(id, 'op', {
    status,
    createdAt: '2026-12-02T06:00:00.000Z',
    updatedAt: '2026-12-02T06:00:00.000Z',
    expiresAt: '2026-12-02T06:10:00.000Z',
  });

const violation = (id: string): LiveViolation => ({ id, change: 'raised' }) as Partial<LiveViolation> as LiveViolation;

/** Fails `message` as the bus does: it was about to be sent (superseding), then it failed. */
function fail(owed: OwedMessages, message: BusMessage): void {
  const raw = JSON.stringify(message);
  owed.supersede(message, raw);
  owed.failed(message, raw);
}

/** Publishes everything owed, as the bus does once Redis is back; returns what went out. */
function drain(owed: OwedMessages): BusMessage[] {
  const out: BusMessage[] = [];
  for (const batch of owed.batches()) {
    out.push(JSON.parse(batch.raw) as BusMessage);
    batch.sent();
  }
  return out;
}

describe('OwedMessages', () => {
  it('keeps an invalidation once, oldest first, and of positions the newest per vehicle', () => {
    const owed = new OwedMessages(silent);
    fail(owed, { type: 'registry-changed', collection: 'users' });
    fail(owed, { type: 'fleet', updates: [position('v1', 1), position('v2', 1)] });
    fail(owed, { type: 'registry-changed', collection: 'vehicles' });
    fail(owed, { type: 'registry-changed', collection: 'users' });
    fail(owed, { type: 'fleet', updates: [position('v1', 3)] });
    // Late, older than the one already owed: not what a subscriber keeps.
    fail(owed, { type: 'fleet', updates: [position('v1', 2)] });
    expect(owed.size).toBe(4);
    const out = drain(owed);
    expect(out.slice(0, 2)).toEqual([
      { type: 'registry-changed', collection: 'vehicles' },
      { type: 'registry-changed', collection: 'users' },
    ]);
    expect(out.slice(2)).toEqual([{ type: 'fleet', updates: [position('v2', 1), position('v1', 3)] }]);
    expect(owed.size).toBe(0);
  });

  it('never publishes an owed booking after a newer one of it was sent', () => {
    const owed = new OwedMessages(silent);
    fail(owed, { type: 'booking', booking: booking('b1', 'offered') });
    fail(owed, { type: 'booking', booking: booking('b2', 'offered') });
    // Redis is back and b1 moves on before the owed ones go out: its owed state is out of date.
    const newer: BusMessage = { type: 'booking', booking: booking('b1', 'accepted') };
    owed.supersede(newer, JSON.stringify(newer));
    expect(drain(owed)).toEqual([{ type: 'booking', booking: booking('b2', 'offered') }]);
  });

  it('skips what is superseded while the owed go out, and keeps what failed again meanwhile', () => {
    const owed = new OwedMessages(silent);
    fail(owed, { type: 'booking', booking: booking('b1', 'offered') });
    fail(owed, { type: 'booking', booking: booking('b2', 'offered') });
    fail(owed, { type: 'violation', violations: [violation('x1')] });
    const batches = owed.batches();
    const first = batches.next();
    if (first.done) throw new Error('nothing owed');
    expect(JSON.parse(first.value.raw)).toEqual({ type: 'violation', violations: [violation('x1')] });
    // While it is sent: x1 changes again and fails too, b2 is published anew.
    fail(owed, { type: 'violation', violations: [{ ...violation('x1'), change: 'updated' }] });
    const b2: BusMessage = { type: 'booking', booking: booking('b2', 'cancelled') };
    owed.supersede(b2, JSON.stringify(b2));
    first.value.sent();
    const rest = [...batches].map((b) => JSON.parse(b.raw) as BusMessage);
    expect(rest).toEqual([{ type: 'booking', booking: booking('b1', 'offered') }]);
    // The newer x1 is still owed: what went out was the older one.
    expect(owed.size).toBe(2);
  });

  it('bounds each kind and logs the first drop of an outage once', () => {
    const logged: unknown[] = [];
    const owed = new OwedMessages({ error: (fields: unknown) => logged.push(fields) });
    const many = Array.from({ length: 10_005 }, (_, i) => violation(`x${i}`));
    fail(owed, { type: 'violation', violations: many });
    fail(owed, { type: 'violation', violations: [violation('late')] });
    expect(owed.size).toBe(10_000);
    expect(logged).toEqual([{ code: 'BUS_OWED_DROPPED', kind: 'violations', max: 10_000 }]);
    // A violation already owed is still replaced by its newer state at the bound.
    fail(owed, { type: 'violation', violations: [{ ...violation('x0'), change: 'updated' }] });
    expect(owed.size).toBe(10_000);
    const out = drain(owed);
    expect(out).toHaveLength(10);
    expect(out.flatMap((m) => (m.type === 'violation' ? m.violations : [])).find((v) => v.id === 'x0')?.change).toBe(
      'updated',
    );
  });
});
