import { randomBytes } from 'node:crypto';
import { AppError, type Booking, type BookingOffer, type Pack } from '@vigia/core';
import type { Database, Queryable } from '@vigia/db';
import type { BookingQuery, OfferQuery, OpenOffer } from './booking-schemas.js';

/**
 * The SQL of dispatch (db/migrations/009_dispatch.sql): bookings with their offers, the facts
 * that decide who may be offered one, and the conditional updates that make every change happen
 * once however many API processes try it. No HTTP here, no decisions: booking-service.ts decides.
 */

/** `bk_` / `of_` and 22 url-safe random characters (128 bits). */
export const newId = (prefix: 'bk' | 'of') => `${prefix}_${randomBytes(16).toString('base64url')}`;

/** Who sees which bookings: all, or those of some operators. */
export type BookingScope = { all: true } | { all: false; operatorIds: readonly string[] };

interface BookingRow {
  id: string;
  operatorId: string;
  pack: Pack;
  mode: 'auto' | 'manual';
  status: Booking['status'];
  pickupLat: number;
  pickupLon: number;
  pickupAddress: string | null;
  dropoff: { lat: number; lon: number; address?: string } | null;
  passengers: number | null;
  notes: string | null;
  standId: string | null;
  vehicleId: string | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  arrivedAt: Date | null;
  onBoardAt: Date | null;
  completedAt: Date | null;
  cancelledAt: Date | null;
  cancelReason: string | null;
  expiredAt: Date | null;
}

const SELECT_BOOKING = `
  b.id, b.operator_id AS "operatorId", b.pack, b.mode, b.status, b.pickup_lat AS "pickupLat",
  b.pickup_lon AS "pickupLon", b.pickup_address AS "pickupAddress", b.dropoff, b.passengers, b.notes,
  b.stand_id AS "standId", b.vehicle_id AS "vehicleId", b.created_at AS "createdAt", b.updated_at AS "updatedAt",
  b.expires_at AS "expiresAt", b.accepted_at AS "acceptedAt", b.arrived_at AS "arrivedAt",
  b.on_board_at AS "onBoardAt", b.completed_at AS "completedAt", b.cancelled_at AS "cancelledAt",
  b.cancel_reason AS "cancelReason", b.expired_at AS "expiredAt"`;

interface OfferRow {
  id: string;
  bookingId: string;
  seq: number;
  vehicleId: string;
  offeredAt: Date;
  expiresAt: Date;
  response: BookingOffer['response'];
  respondedAt: Date | null;
  etaS: number | null;
  distanceM: number | null;
  basis: BookingOffer['basis'];
}

const SELECT_OFFER = `
  o.id, o.booking_id AS "bookingId", o.seq, o.vehicle_id AS "vehicleId", o.offered_at AS "offeredAt",
  o.expires_at AS "expiresAt", o.response, o.responded_at AS "respondedAt", o.eta_s AS "etaS",
  o.distance_m AS "distanceM", o.basis`;

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));

function toOffer(o: OfferRow): BookingOffer {
  return {
    id: o.id,
    vehicleId: o.vehicleId,
    offeredAt: iso(o.offeredAt),
    expiresAt: iso(o.expiresAt),
    response: o.response,
    respondedAt: isoOrNull(o.respondedAt),
    etaS: o.etaS,
    basis: o.basis,
  };
}

function toBooking(b: BookingRow, offers: OfferRow[]): Booking {
  return {
    id: b.id,
    operatorId: b.operatorId,
    pack: b.pack,
    mode: b.mode,
    status: b.status,
    pickup: {
      lat: b.pickupLat,
      lon: b.pickupLon,
      ...(b.pickupAddress === null ? {} : { address: b.pickupAddress }),
    },
    dropoff: b.dropoff,
    passengers: b.passengers,
    notes: b.notes,
    standId: b.standId,
    vehicleId: b.vehicleId,
    offers: offers.map(toOffer),
    createdAt: iso(b.createdAt),
    updatedAt: iso(b.updatedAt),
    expiresAt: iso(b.expiresAt),
    acceptedAt: isoOrNull(b.acceptedAt),
    arrivedAt: isoOrNull(b.arrivedAt),
    onBoardAt: isoOrNull(b.onBoardAt),
    completedAt: isoOrNull(b.completedAt),
    cancelledAt: isoOrNull(b.cancelledAt),
    cancelReason: b.cancelReason,
    expiredAt: isoOrNull(b.expiredAt),
  };
}

/** What the lawfulness check needs of the booking's operator. */
export interface OperatorFacts {
  id: string;
  pack: Pack;
  kind: string;
  status: string;
  retired: boolean;
  credentialValidUntil: string | null;
  declaredVehicleIds: string[];
}

/** What the eligibility check needs of a vehicle: registry facts, live state, dispatch state. */
export interface VehicleFacts {
  id: string;
  plate: string;
  pack: Pack;
  operatorId: string | null;
  status: string;
  permitStatus: string;
  retired: boolean;
  permitValidUntil: string | null;
  divValidUntil: string | null;
  /** Last position and meter (vehicle_live), null when it never reported. */
  liveTs: Date | null;
  liveLat: number | null;
  liveLon: number | null;
  meterState: string | null;
  /** An open offer of a booking other than the one at hand. */
  hasOpenOffer: boolean;
  /** An accepted, arrived or on-board booking. */
  hasActiveBooking: boolean;
  /** It declined or let expire an offer of the booking at hand. */
  refusedThisBooking: boolean;
}

export type ActiveStatus = 'accepted' | 'arrived' | 'on-board';
export interface ActiveBooking {
  id: string;
  vehicleId: string;
  status: ActiveStatus;
  lat: number;
  lon: number;
}

export interface NewBooking {
  id: string;
  operatorId: string;
  pack: Pack;
  mode: 'auto' | 'manual';
  pickup: { lat: number; lon: number; address?: string };
  dropoff?: { lat: number; lon: number; address?: string };
  passengers?: number;
  notes?: string;
  standId: string | null;
  createdBy: string;
  timeoutS: number;
}

export interface NewOffer {
  bookingId: string;
  vehicleId: string;
  timeoutS: number;
  etaS: number | null;
  distanceM: number | null;
  basis: BookingOffer['basis'];
}

const encodeCursor = (b: Booking) => Buffer.from(`${b.createdAt}|${b.id}`).toString('base64url');
function decodeCursor(cursor: string): [string, string] {
  const [ts, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!ts || !id || Number.isNaN(Date.parse(ts))) throw new AppError('BAD_CURSOR', 'The cursor is not valid', 400);
  return [ts, id];
}

export class BookingStore {
  constructor(readonly db: Database) {}

  async operator(id: string): Promise<OperatorFacts | undefined> {
    const { rows } = await this.db.query<OperatorFacts>(
      `SELECT id, pack, kind, status, retired_at IS NOT NULL AS retired,
              credential_valid_until::text AS "credentialValidUntil", declared_vehicle_ids AS "declaredVehicleIds"
       FROM operators WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /**
   * The vehicles a booking of `operatorId` may go to at all: those it declared (Belém Art. 44 I;
   * a DF cooperative may declare too), and, unless `declaredOnly`, those registered to it.
   */
  async fleetOf(operatorId: string, declaredOnly: boolean, q: Queryable = this.db): Promise<Set<string>> {
    // Two index lookups (primary key, vehicles_operator) rather than one OR over every vehicle.
    const { rows } = await q.query<{ id: string }>(
      `SELECT v.id FROM vehicles v
       WHERE v.retired_at IS NULL
         AND v.id = ANY((SELECT declared_vehicle_ids FROM operators WHERE id = $1)::text[])
       UNION
       SELECT v.id FROM vehicles v
       WHERE NOT $2::boolean AND v.operator_id = $1 AND v.retired_at IS NULL`,
      [operatorId, declaredOnly],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** The facts of `vehicleIds` as they bear on booking `bookingId` (null: a booking not yet stored). */
  async vehicleFacts(
    vehicleIds: readonly string[],
    bookingId: string | null,
    q: Queryable = this.db,
  ): Promise<Map<string, VehicleFacts>> {
    if (vehicleIds.length === 0) return new Map();
    const { rows } = await q.query<VehicleFacts>(
      `SELECT v.id, v.plate, v.pack, v.operator_id AS "operatorId", v.status, v.permit_status AS "permitStatus",
              v.retired_at IS NOT NULL AS retired, v.permit_valid_until::text AS "permitValidUntil",
              v.div_valid_until::text AS "divValidUntil",
              l.ts AS "liveTs", l.lat AS "liveLat", l.lon AS "liveLon", l.meter_state AS "meterState",
              EXISTS (SELECT 1 FROM booking_offers o WHERE o.vehicle_id = v.id AND o.response IS NULL
                        AND o.booking_id IS DISTINCT FROM $2) AS "hasOpenOffer",
              EXISTS (SELECT 1 FROM bookings b WHERE b.vehicle_id = v.id
                        AND b.status IN ('accepted', 'arrived', 'on-board')) AS "hasActiveBooking",
              EXISTS (SELECT 1 FROM booking_offers o WHERE o.vehicle_id = v.id AND o.booking_id = $2
                        AND o.response IN ('declined', 'expired')) AS "refusedThisBooking"
       FROM vehicles v LEFT JOIN vehicle_live l ON l.vehicle_id = v.id
       WHERE v.id = ANY($1::text[])`,
      [[...new Set(vehicleIds)], bookingId],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  async insert(b: NewBooking): Promise<void> {
    await this.db.query(
      `INSERT INTO bookings (id, operator_id, pack, mode, pickup_lat, pickup_lon, pickup_address, dropoff,
                             passengers, notes, stand_id, created_by, expires_at, next_action_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12,
               now() + make_interval(secs => $13), CASE WHEN $4 = 'auto' THEN now()
                                                         ELSE now() + make_interval(secs => $13) END)`,
      [
        b.id,
        b.operatorId,
        b.pack,
        b.mode,
        b.pickup.lat,
        b.pickup.lon,
        b.pickup.address ?? null,
        b.dropoff ? JSON.stringify(b.dropoff) : null,
        b.passengers ?? null,
        b.notes ?? null,
        b.standId,
        b.createdBy,
        b.timeoutS,
      ],
    );
  }

  async get(id: string, scope: BookingScope = { all: true }, q: Queryable = this.db): Promise<Booking | undefined> {
    const { rows } = await q.query<BookingRow>(
      `SELECT ${SELECT_BOOKING} FROM bookings b WHERE b.id = $1 ${scope.all ? '' : 'AND b.operator_id = ANY($2::text[])'}`,
      scope.all ? [id] : [id, scope.operatorIds],
    );
    const row = rows[0];
    if (!row) return undefined;
    const [booking] = await this.withOffers([row], q);
    return booking;
  }

  async list(scope: BookingScope, query: BookingQuery): Promise<{ items: Booking[]; next: string | null }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (!scope.all) add('b.operator_id = ANY(?::text[])', scope.operatorIds);
    if (query.operatorId) add('b.operator_id = ?', query.operatorId);
    if (query.status) add('b.status = ?', query.status);
    if (query.cursor) {
      const [ts, id] = decodeCursor(query.cursor);
      params.push(ts, id);
      where.push(`(b.created_at, b.id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(query.limit + 1);
    const { rows } = await this.db.query<BookingRow>(
      `SELECT ${SELECT_BOOKING} FROM bookings b ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY b.created_at DESC, b.id DESC LIMIT $${params.length}`,
      params,
    );
    const items = await this.withOffers(rows.slice(0, query.limit));
    const last = items.at(-1);
    return { items, next: rows.length > query.limit && last ? encodeCursor(last) : null };
  }

  /** The bookings of `rows`, in their order, each with its offers (in offer order): one read for all. */
  private async withOffers(rows: readonly BookingRow[], q: Queryable = this.db): Promise<Booking[]> {
    const offers = new Map<string, OfferRow[]>(rows.map((b) => [b.id, []]));
    if (rows.length > 0) {
      const found = await q.query<OfferRow>(
        `SELECT ${SELECT_OFFER} FROM booking_offers o WHERE o.booking_id = ANY($1::text[]) ORDER BY o.booking_id, o.seq`,
        [rows.map((b) => b.id)],
      );
      for (const o of found.rows) offers.get(o.bookingId)?.push(o);
    }
    return rows.map((b) => toBooking(b, offers.get(b.id) ?? []));
  }

  /** Locks the booking for the rest of `tx`; undefined when there is none (or not in scope). */
  async lock(tx: Queryable, id: string, scope: BookingScope = { all: true }): Promise<Booking | undefined> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM bookings WHERE id = $1 ${scope.all ? '' : 'AND operator_id = ANY($2::text[])'} FOR UPDATE`,
      scope.all ? [id] : [id, scope.operatorIds],
    );
    return rows[0] ? this.get(id, { all: true }, tx) : undefined;
  }

  /** Open bookings whose next action is due, most overdue first (not locked: see lockIfDue). */
  async due(limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT id FROM bookings WHERE status IN ('pending', 'offered') AND next_action_at <= now()
       ORDER BY next_action_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Locks the booking for `tx` if it is open and due, and nobody else holds it (SKIP LOCKED:
   * another process is working on it); undefined otherwise.
   */
  async lockIfDue(tx: Queryable, id: string): Promise<Booking | undefined> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM bookings WHERE id = $1 AND status IN ('pending', 'offered') AND next_action_at <= now()
       FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return rows[0] ? this.get(id, { all: true }, tx) : undefined;
  }

  /** The offer and its booking's operator, whatever its state; undefined when there is none. */
  async offer(
    id: string,
  ): Promise<{ id: string; bookingId: string; vehicleId: string; operatorId: string } | undefined> {
    const { rows } = await this.db.query<{ id: string; bookingId: string; vehicleId: string; operatorId: string }>(
      `SELECT o.id, o.booking_id AS "bookingId", o.vehicle_id AS "vehicleId", b.operator_id AS "operatorId"
       FROM booking_offers o JOIN bookings b ON b.id = o.booking_id WHERE o.id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Open offers (not answered, not past their expiry), oldest first. */
  async openOffers(
    filter: OfferQuery & { operatorIds?: readonly string[]; vehicleIds?: readonly string[] },
  ): Promise<OpenOffer[]> {
    const where = ['o.response IS NULL', 'o.expires_at > now()'];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.operatorIds) add('b.operator_id = ANY(?::text[])', filter.operatorIds);
    if (filter.operatorId) add('b.operator_id = ?', filter.operatorId);
    if (filter.vehicleId) add('o.vehicle_id = ?', filter.vehicleId);
    if (filter.vehicleIds) add('o.vehicle_id = ANY(?::text[])', filter.vehicleIds);
    params.push(filter.limit);
    const { rows } = await this.db.query<
      OfferRow &
        Pick<
          BookingRow,
          'operatorId' | 'pickupLat' | 'pickupLon' | 'pickupAddress' | 'dropoff' | 'passengers' | 'notes'
        >
    >(
      `SELECT ${SELECT_OFFER}, b.operator_id AS "operatorId", b.pickup_lat AS "pickupLat", b.pickup_lon AS "pickupLon",
              b.pickup_address AS "pickupAddress", b.dropoff, b.passengers, b.notes
       FROM booking_offers o JOIN bookings b ON b.id = o.booking_id
       WHERE ${where.join(' AND ')} ORDER BY o.offered_at, o.id LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      bookingId: r.bookingId,
      vehicleId: r.vehicleId,
      operatorId: r.operatorId,
      offeredAt: iso(r.offeredAt),
      expiresAt: iso(r.expiresAt),
      etaS: r.etaS,
      distanceM: r.distanceM,
      pickup: { lat: r.pickupLat, lon: r.pickupLon, ...(r.pickupAddress === null ? {} : { address: r.pickupAddress }) },
      ...(r.dropoff ? { dropoff: r.dropoff } : {}),
      ...(r.passengers === null ? {} : { passengers: r.passengers }),
      ...(r.notes === null ? {} : { notes: r.notes }),
    }));
  }

  /**
   * Offers the booking to a taxi. False when the taxi got another open offer meanwhile (the
   * unique index of open offers per vehicle: another process offered it first).
   */
  async insertOffer(tx: Queryable, o: NewOffer): Promise<string | undefined> {
    const id = newId('of');
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO booking_offers (id, booking_id, seq, vehicle_id, expires_at, eta_s, distance_m, basis)
       SELECT $1, $2, coalesce(max(seq), 0) + 1, $3, now() + make_interval(secs => $4), $5, $6, $7
       FROM booking_offers WHERE booking_id = $2
       ON CONFLICT (vehicle_id) WHERE response IS NULL DO NOTHING RETURNING id`,
      [id, o.bookingId, o.vehicleId, o.timeoutS, o.etaS, o.distanceM, o.basis],
    );
    return rows[0]?.id;
  }

  /** The dispatcher's assignment, recorded as an offer accepted at once on the driver's behalf. */
  async insertManualAcceptance(tx: Queryable, bookingId: string, vehicleId: string, by: string): Promise<string> {
    const id = newId('of');
    await tx.query(
      `INSERT INTO booking_offers (id, booking_id, seq, vehicle_id, expires_at, response, responded_at, responded_by, basis)
       SELECT $1, $2, coalesce(max(seq), 0) + 1, $3, now(), 'accepted', now(), $4, 'manual'
       FROM booking_offers WHERE booking_id = $2`,
      [id, bookingId, vehicleId, by],
    );
    return id;
  }

  /**
   * Answers an open offer: only if nobody answered it and it has not expired (the one condition
   * that makes an accept racing the expiry have a single winner). False when it was closed.
   */
  async answer(tx: Queryable, offerId: string, response: 'accepted' | 'declined', by: string): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE booking_offers SET response = $2, responded_at = now(), responded_by = $3
       WHERE id = $1 AND response IS NULL AND expires_at > now()`,
      [offerId, response, by],
    );
    return rowCount === 1;
  }

  /** Closes the booking's open offers past their expiry; returns how many. */
  async expireOffers(tx: Queryable, bookingId: string): Promise<number> {
    const { rowCount } = await tx.query(
      `UPDATE booking_offers SET response = 'expired', responded_at = now(), responded_by = 'system'
       WHERE booking_id = $1 AND response IS NULL AND expires_at <= now()`,
      [bookingId],
    );
    return rowCount;
  }

  /** Closes one open offer for a reason of the system's (its taxi is no longer free); false when it was closed. */
  async withdrawOffer(tx: Queryable, offerId: string): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE booking_offers SET response = 'withdrawn', responded_at = now(), responded_by = 'system'
       WHERE id = $1 AND response IS NULL`,
      [offerId],
    );
    return rowCount === 1;
  }

  /** Closes the booking's open offers for a reason of the system's (cancelled, assigned, taxi busy). */
  async withdrawOffers(tx: Queryable, bookingId: string): Promise<number> {
    const { rowCount } = await tx.query(
      `UPDATE booking_offers SET response = 'withdrawn', responded_at = now(), responded_by = 'system'
       WHERE booking_id = $1 AND response IS NULL`,
      [bookingId],
    );
    return rowCount;
  }

  async setOffered(tx: Queryable, bookingId: string): Promise<void> {
    await tx.query(
      `UPDATE bookings SET status = 'offered', updated_at = now(),
              next_action_at = least(expires_at,
                (SELECT min(expires_at) FROM booking_offers WHERE booking_id = $1 AND response IS NULL))
       WHERE id = $1`,
      [bookingId],
    );
  }

  /** Back to `pending` (nobody to offer now): look again at `retryAt` or at the booking's expiry. */
  async setPending(tx: Queryable, bookingId: string, retryMs: number | null): Promise<void> {
    await tx.query(
      `UPDATE bookings SET status = 'pending', updated_at = now(),
              next_action_at = CASE WHEN $2::int IS NULL THEN expires_at
                                    ELSE least(expires_at, now() + make_interval(secs => $2::int / 1000.0)) END
       WHERE id = $1`,
      [bookingId, retryMs],
    );
  }

  /** Due again now (an offer was declined): the worker makes the next one. */
  async setDueNow(tx: Queryable, bookingId: string): Promise<void> {
    await tx.query(`UPDATE bookings SET next_action_at = now(), updated_at = now() WHERE id = $1`, [bookingId]);
  }

  async setAccepted(tx: Queryable, bookingId: string, vehicleId: string): Promise<void> {
    await tx.query(
      `UPDATE bookings SET status = 'accepted', vehicle_id = $2, accepted_at = now(), updated_at = now(),
              next_action_at = NULL
       WHERE id = $1`,
      [bookingId, vehicleId],
    );
  }

  async setCancelled(tx: Queryable, bookingId: string, by: string, reason: string | null): Promise<void> {
    await tx.query(
      `UPDATE bookings SET status = 'cancelled', cancelled_at = now(), cancelled_by = $2, cancel_reason = $3,
              updated_at = now(), next_action_at = NULL
       WHERE id = $1`,
      [bookingId, by, reason],
    );
  }

  /** Expires the booking if it is still open and past its own expiry; true when it did. */
  async expireIfDue(tx: Queryable, bookingId: string): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE bookings SET status = 'expired', expired_at = now(), updated_at = now(), next_action_at = NULL
       WHERE id = $1 AND status IN ('pending', 'offered') AND expires_at <= now()`,
      [bookingId],
    );
    return rowCount === 1;
  }

  /** The stand whose queue the booking was offered to first (set once). */
  async setStand(tx: Queryable, bookingId: string, standId: string): Promise<void> {
    await tx.query('UPDATE bookings SET stand_id = coalesce(stand_id, $2) WHERE id = $1', [bookingId, standId]);
  }

  /**
   * Moves the vehicle's booking from one of `from` to `to`, stamping `<to>_at`, if it is still
   * there (every process sees the same fleet update: one of them moves it). Returns the booking
   * id when this call moved it.
   */
  async progress(
    bookingId: string,
    from: readonly ActiveStatus[],
    to: 'arrived' | 'on-board' | 'completed',
  ): Promise<boolean> {
    const column = { arrived: 'arrived_at', 'on-board': 'on_board_at', completed: 'completed_at' }[to];
    const { rowCount } = await this.db.query(
      `UPDATE bookings SET status = $3, ${column} = now(), updated_at = now()
       WHERE id = $1 AND status = ANY($2::text[])`,
      [bookingId, [...from], to],
    );
    return rowCount === 1;
  }

  /** The bookings these vehicles are serving (accepted, arrived, on-board): two reads however many vehicles. */
  async servingBookings(vehicleIds: readonly string[]): Promise<Booking[]> {
    if (vehicleIds.length === 0) return [];
    const { rows } = await this.db.query<BookingRow>(
      `SELECT ${SELECT_BOOKING} FROM bookings b
       WHERE b.vehicle_id = ANY($1::text[]) AND b.status IN ('accepted', 'arrived', 'on-board')`,
      [vehicleIds],
    );
    return this.withOffers(rows);
  }

  /** Every booking in progress (accepted, arrived, on board): what telemetry moves on. */
  async activeBookings(): Promise<ActiveBooking[]> {
    const { rows } = await this.db.query<ActiveBooking>(
      `SELECT id, vehicle_id AS "vehicleId", status, pickup_lat AS lat, pickup_lon AS lon FROM bookings
       WHERE status IN ('accepted', 'arrived', 'on-board')`,
    );
    return rows;
  }
}
