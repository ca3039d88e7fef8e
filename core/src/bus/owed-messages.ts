import type { Logger } from 'pino';
import type { Booking, BusMessage, FleetUpdate, LiveViolation } from '../live.js';

/** One message to publish again, as sent, and what to forget once it went out. */
export interface OwedBatch {
  readonly raw: string;
  readonly sent: () => void;
}

/**
 * What a process failed to publish while Redis was away, kept to be published once it is back,
 * reduced to what a subscriber keeps of it: an invalidation (`registry-changed`,
 * `device-changed`) once however often it failed, and of positions, violations and bookings the
 * last one of each vehicle, violation or booking. Each kind is bounded; beyond, the rest of the
 * outage is dropped and logged once (`BUS_OWED_DROPPED`).
 *
 * Newer beats owed: a message the process starts to publish makes the owed ones it replaces
 * obsolete (`supersede`, called before the publish is sent). Whether it then succeeds (they are
 * out of date) or fails (it is owed in their place), the older ones are never published after it.
 * Without that, a booking's offer owed from before the outage, published after the booking was
 * answered, would reopen it on the subscribers' side.
 */
export class OwedMessages {
  private readonly invalidations = new Map<string, string>();
  private readonly positions = new Map<string, FleetUpdate>();
  private readonly violations = new Map<string, LiveViolation>();
  private readonly bookings = new Map<string, Booking>();
  /** Kinds that reached their bound during this outage (logged once each). */
  private readonly full = new Set<string>();

  constructor(private readonly log: Pick<Logger, 'error'>) {}

  get size(): number {
    return this.invalidations.size + this.positions.size + this.violations.size + this.bookings.size;
  }

  /** `message` (sent as `raw`) failed to publish. */
  failed(message: BusMessage, raw: string): void {
    switch (message.type) {
      case 'registry-changed':
      case 'device-changed':
        this.keep('invalidations', this.invalidations, raw, raw, MAX_OWED.invalidations);
        return;
      case 'fleet':
        for (const u of message.updates) {
          const known = this.positions.get(u.vehicleId);
          if (known && known.ts > u.ts) continue;
          this.keep('positions', this.positions, u.vehicleId, u, MAX_OWED.positions);
        }
        return;
      case 'violation':
        for (const v of message.violations) this.keep('violations', this.violations, v.id, v, MAX_OWED.violations);
        return;
      case 'booking':
        this.keep('bookings', this.bookings, message.booking.id, message.booking, MAX_OWED.bookings);
        return;
    }
  }

  /** `message` is about to be published: the owed ones it replaces are dropped (above). */
  supersede(message: BusMessage, raw: string): void {
    if (this.size === 0) return;
    switch (message.type) {
      case 'registry-changed':
      case 'device-changed':
        this.invalidations.delete(raw);
        return;
      case 'fleet':
        for (const u of message.updates) {
          const known = this.positions.get(u.vehicleId);
          if (known && known.ts <= u.ts) this.positions.delete(u.vehicleId);
        }
        return;
      case 'violation':
        for (const v of message.violations) this.violations.delete(v.id);
        return;
      case 'booking':
        this.bookings.delete(message.booking.id);
        return;
    }
  }

  /**
   * The owed messages to publish now, invalidations first (oldest first), then the rest in
   * messages of at most `PER_MESSAGE` items. Read as each is sent: an entry superseded meanwhile
   * is not sent. `sent()` forgets what went out, unless it was replaced by a newer failure.
   */
  *batches(): Generator<OwedBatch> {
    for (const [key, raw] of [...this.invalidations]) {
      if (this.invalidations.get(key) !== raw) continue;
      yield { raw, sent: () => forget(this.invalidations, [[key, raw]]) };
    }
    yield* this.chunks(this.positions, (updates) => ({ type: 'fleet', updates }));
    yield* this.chunks(this.violations, (violations) => ({ type: 'violation', violations }));
    for (const [id, booking] of [...this.bookings]) {
      if (this.bookings.get(id) !== booking) continue;
      const message: BusMessage = { type: 'booking', booking };
      yield { raw: JSON.stringify(message), sent: () => forget(this.bookings, [[id, booking]]) };
    }
  }

  /** The outage is over: a later one logs its own drops. */
  settled(): void {
    if (this.size === 0) this.full.clear();
  }

  private *chunks<T>(owed: Map<string, T>, wrap: (items: T[]) => BusMessage): Generator<OwedBatch> {
    const keys = [...owed.keys()];
    for (let i = 0; i < keys.length; i += PER_MESSAGE) {
      const entries: [string, T][] = [];
      for (const key of keys.slice(i, i + PER_MESSAGE)) {
        const item = owed.get(key);
        if (item !== undefined) entries.push([key, item]);
      }
      if (entries.length === 0) continue;
      yield { raw: JSON.stringify(wrap(entries.map(([, item]) => item))), sent: () => forget(owed, entries) };
    }
  }

  private keep<T>(kind: string, owed: Map<string, T>, key: string, value: T, max: number): void {
    if (!owed.has(key) && owed.size >= max) {
      if (!this.full.has(kind)) {
        this.full.add(kind);
        this.log.error(
          { code: 'BUS_OWED_DROPPED', kind, max },
          'too much owed while Redis is away: the rest of this kind is not re-published',
        );
      }
      return;
    }
    // Re-inserted, so the owed stay in the order they failed (invalidations are published in it).
    owed.delete(key);
    owed.set(key, value);
  }
}

/** Drops the entries that went out, unless a newer failure replaced them meanwhile. */
function forget<T>(owed: Map<string, T>, entries: readonly (readonly [string, T])[]): void {
  for (const [key, value] of entries) if (owed.get(key) === value) owed.delete(key);
}

/**
 * Bounds per kind. Invalidations come from people and imports (one message per import), so a
 * thousand distinct ones is far beyond an outage's; a state's fleet is tens of thousands of
 * vehicles, one position a few hundred bytes, so positions cost at most some tens of MB.
 */
const MAX_OWED = { invalidations: 1_000, positions: 100_000, violations: 10_000, bookings: 10_000 } as const;
/** Owed positions and violations go out in messages of this many, about an ingest batch's. */
const PER_MESSAGE = 1_000;
