import {
  AppError,
  type Booking,
  type BookingOffer,
  type Bus,
  LogLimiter,
  type Pack,
  type Principal,
  publishOrLog,
} from '@vigia/core';
import type { Queryable } from '@vigia/db';
import { type Dispatch, DispatchStore, dispatchRow, type RulePipeline } from '@vigia/ingest';
import { localDateOf } from '@vigia/rules';
import type { Logger } from 'pino';
import { packTimeZone } from '../notices/notice-time-zone.js';
import { operatorProblem, type VehicleContext, vehicleProblem, vehicleProblemMessage } from './booking-eligibility.js';
import type { BookingCandidates, BookingQuery, CreateBooking, OfferQuery, OpenOffer } from './booking-schemas.js';
import { type BookingScope, type BookingStore, newId, type VehicleFacts } from './booking-store.js';
import type { LatLon } from './dispatch-ports.js';

/**
 * Bookings and offers (API.md "Radio-taxi dispatch"): who may do what with which booking, and
 * every state change, each in one transaction holding the booking's row lock, published on the
 * bus once committed. The offer worker (offer-worker.ts) calls `advanceDue`, telemetry moves
 * bookings on through booking-progress.ts. Decisions are written down in README.md here.
 */
/** What the service needs of the ranking (candidate-ranking.ts `CandidateRanker`). */
export interface BookingRanker {
  rank(req: { pickup: LatLon; pack: Pack; vehicleIds?: ReadonlySet<string>; exclude?: ReadonlySet<string> }): Promise<{
    stand: { id: string; name: string } | null;
    candidates: readonly { vehicleId: string; etaS: number; distanceM: number; basis: 'stand-queue' | 'eta' }[];
    /** The travel-time estimator that timed them. */
    estimator: string;
  }>;
}

export interface BookingServiceOptions {
  store: BookingStore;
  bus: Bus;
  log: Logger;
  /** Orders the taxis a booking may be offered to (candidate-ranking.ts). */
  ranker: BookingRanker;
  rules: Pick<RulePipeline, 'onDispatches'>;
  /** DISPATCH_OFFER_TIMEOUT_S. */
  offerTimeoutS: number;
  /** DISPATCH_BOOKING_TIMEOUT_S. */
  bookingTimeoutS: number;
  /** OFFLINE_AFTER_S. */
  offlineAfterS: number;
  /** With nobody to offer now, look again after this long (the worker's poll), in milliseconds. */
  retryMs: number;
  /** Asks the offer worker for a round now (a booking became due); set once the worker exists. */
  wake?: () => void;
}

/** Who answered, as `responded_by` / `created_by` record it. */
export function actorOf(principal: Principal): string {
  if (principal.kind === 'admin') return 'admin';
  if (principal.kind === 'device') return `device:${principal.deviceId}`;
  return principal.userId;
}

/** Which bookings a caller reads: the admin, regulators and enforcement all; a dispatcher its operators'. */
export function readScope(principal: Principal): BookingScope {
  if (principal.kind === 'admin') return { all: true };
  if (principal.kind === 'user' && (principal.role === 'regulator' || principal.role === 'enforcement')) {
    return { all: true };
  }
  if (principal.kind === 'user' && principal.role === 'dispatcher')
    return { all: false, operatorIds: principal.operatorIds };
  throw new AppError('FORBIDDEN', 'This token may not read bookings', 403);
}

/** Which bookings a caller changes (takes, cancels, assigns, answers for): the admin all; a dispatcher its operators'. */
export function writeScope(principal: Principal): BookingScope {
  if (principal.kind === 'admin') return { all: true };
  if (principal.kind === 'user' && principal.role === 'dispatcher')
    return { all: false, operatorIds: principal.operatorIds };
  throw new AppError('FORBIDDEN', 'This token may not change bookings', 403);
}

const inScope = (scope: BookingScope, operatorId: string) => scope.all || scope.operatorIds.includes(operatorId);

const bookingNotFound = (id: string) => new AppError('BOOKING_NOT_FOUND', `No booking '${id}'`, 404);
const offerNotFound = (id: string) => new AppError('OFFER_NOT_FOUND', `No offer '${id}'`, 404);
const OPEN = new Set<Booking['status']>(['pending', 'offered']);

export class BookingService {
  private readonly logLimiter = new LogLimiter();

  constructor(private readonly opts: BookingServiceOptions) {}

  get store(): BookingStore {
    return this.opts.store;
  }

  async create(principal: Principal, body: CreateBooking): Promise<Booking> {
    const scope = writeScope(principal);
    if (!inScope(scope, body.operatorId)) {
      throw new AppError('FORBIDDEN', `This token may not take bookings for operator '${body.operatorId}'`, 403);
    }
    const operator = await this.store.operator(body.operatorId);
    if (!operator) throw new AppError('OPERATOR_NOT_FOUND', `No operator '${body.operatorId}'`, 404);
    const problem = operatorProblem(operator, localDateOf(Date.now(), packTimeZone(operator.pack)));
    if (problem) throw new AppError(problem.code, problem.message, problem.status);
    const id = newId('bk');
    await this.store.insert({
      id,
      operatorId: operator.id,
      pack: operator.pack,
      mode: body.mode,
      pickup: body.pickup,
      dropoff: body.dropoff,
      passengers: body.passengers,
      notes: body.notes,
      standId: null,
      createdBy: actorOf(principal),
      timeoutS: this.opts.bookingTimeoutS,
    });
    const booking = await this.mustGet(id);
    await this.publish(booking);
    if (booking.mode === 'auto') this.opts.wake?.();
    return booking;
  }

  list(principal: Principal, query: BookingQuery): Promise<{ items: Booking[]; next: string | null }> {
    return this.store.list(readScope(principal), query);
  }

  async get(principal: Principal, id: string): Promise<Booking> {
    const booking = await this.store.get(id, readScope(principal));
    if (!booking) throw bookingNotFound(id);
    return booking;
  }

  async cancel(principal: Principal, id: string, reason: string | null): Promise<Booking> {
    const scope = writeScope(principal);
    const booking = await this.store.db.transaction(async (tx) => {
      const b = await this.store.lock(tx, id, scope);
      if (!b) throw bookingNotFound(id);
      // A taxi on its way may still be called off; once the passenger is on board the ride is the meter's.
      if (!['pending', 'offered', 'accepted', 'arrived'].includes(b.status)) {
        throw new AppError('BOOKING_CLOSED', `The booking is ${b.status}; it cannot be cancelled`, 409, {
          status: b.status,
        });
      }
      await this.store.withdrawOffers(tx, id);
      await this.store.setCancelled(tx, id, actorOf(principal), reason);
      return this.mustGet(id, tx);
    });
    await this.publish(booking);
    return booking;
  }

  /**
   * The dispatcher's choice of taxi: the taxi's acceptance recorded on its behalf. The same
   * eligibility as an automatic offer (409 with the reason's code otherwise); an offer open to
   * another taxi is withdrawn.
   */
  async assign(principal: Principal, id: string, vehicleId: string): Promise<Booking> {
    const scope = writeScope(principal);
    const by = actorOf(principal);
    const { booking, dispatch } = await this.store.db.transaction(async (tx) => {
      const b = await this.store.lock(tx, id, scope);
      if (!b) throw bookingNotFound(id);
      if (!OPEN.has(b.status)) {
        throw new AppError('BOOKING_CLOSED', `The booking is ${b.status}; it cannot be assigned`, 409, {
          status: b.status,
        });
      }
      const fleet = await this.store.fleetOf(b.operatorId, b.pack === 'belem-taxi', tx);
      const found = (await this.store.vehicleFacts([vehicleId], b.id, tx)).get(vehicleId);
      const facts = found && assignable(found);
      const problem = vehicleProblem(facts, this.vehicleContext(b, fleet));
      if (problem) {
        // A scoped dispatcher learns nothing of vehicles outside its operators, not even that they exist.
        const code = problem === 'VEHICLE_NOT_FOUND' && !scope.all ? 'VEHICLE_NOT_OF_OPERATOR' : problem;
        throw new AppError(code, vehicleProblemMessage(code), 409);
      }
      await this.store.withdrawOffers(tx, id);
      await this.store.insertManualAcceptance(tx, id, vehicleId, by);
      await this.store.setAccepted(tx, id, vehicleId).catch(busyOnConflict);
      const dispatch = await this.recordDispatch(tx, b, vehicleId);
      return { booking: await this.mustGet(id, tx), dispatch };
    });
    await this.afterAcceptance(booking, dispatch);
    return booking;
  }

  /**
   * The taxis the booking may be assigned to now, in the order the automatic offers go: the
   * ranker's order (stand queue first, then estimated arrival), each checked against the
   * database exactly as `assign` checks it (so a taxi that declined is listed: the dispatcher may
   * still assign it). A booking no longer waiting for a taxi has none. Read access, as the booking.
   */
  async candidates(principal: Principal, id: string, limit: number): Promise<BookingCandidates> {
    const b = await this.get(principal, id);
    const none: BookingCandidates = { items: [], estimator: null, stand: null };
    if (!OPEN.has(b.status)) return none;
    const fleet = await this.store.fleetOf(b.operatorId, b.pack === 'belem-taxi');
    if (fleet.size === 0) return none;
    const ranking = await this.opts.ranker.rank({ pickup: b.pickup, pack: b.pack, vehicleIds: fleet });
    const facts = await this.store.vehicleFacts(
      ranking.candidates.map((c) => c.vehicleId),
      b.id,
    );
    const ctx = this.vehicleContext(b, fleet);
    const items: BookingCandidates['items'] = [];
    for (const c of ranking.candidates) {
      const f = facts.get(c.vehicleId);
      if (!f || vehicleProblem(assignable(f), ctx) !== null || f.liveLat === null || f.liveLon === null) continue;
      items.push({ ...c, plate: f.plate, lat: f.liveLat, lon: f.liveLon });
      if (items.length === limit) break;
    }
    return { items, estimator: ranking.estimator, stand: ranking.stand };
  }

  /** Open offers the caller may see: a device its vehicle's, a dispatcher its operators', the admin all. */
  offers(principal: Principal, query: OfferQuery): Promise<OpenOffer[]> {
    if (principal.kind === 'device') return this.store.openOffers({ ...query, vehicleId: principal.vehicleId });
    const scope = writeScope(principal);
    return this.store.openOffers(scope.all ? query : { ...query, operatorIds: scope.operatorIds });
  }

  /**
   * A taxi's answer: by a device of the offered vehicle, a dispatcher of the booking's operator on
   * the driver's behalf, or the admin. Anyone else gets 404, as for an offer that does not exist.
   * Accepting needs the offer open and not past its expiry, in one conditional update: an accept
   * racing the worker's expiry has exactly one winner.
   */
  async answer(
    principal: Principal,
    offerId: string,
    response: 'accepted' | 'declined',
  ): Promise<BookingOffer & { bookingId: string }> {
    const offer = await this.store.offer(offerId);
    const allowed =
      offer !== undefined &&
      (principal.kind === 'device'
        ? principal.vehicleId === offer.vehicleId
        : inScope(writeScope(principal), offer.operatorId));
    if (!offer || !allowed) throw offerNotFound(offerId);
    const { booking, dispatch } = await this.store.db.transaction(async (tx) => {
      const b = await this.store.lock(tx, offer.bookingId);
      if (!b) throw offerNotFound(offerId);
      if (!(await this.store.answer(tx, offerId, response, actorOf(principal)))) {
        const current = b.offers.find((o) => o.id === offerId);
        throw new AppError('OFFER_CLOSED', `The offer is closed (${current?.response ?? 'expired'})`, 409, {
          response: current?.response ?? 'expired',
          bookingStatus: b.status,
        });
      }
      if (response === 'declined') {
        await this.store.setDueNow(tx, b.id);
        return { booking: await this.mustGet(b.id, tx), dispatch: undefined };
      }
      await this.store.setAccepted(tx, b.id, offer.vehicleId).catch(busyOnConflict);
      const dispatch = await this.recordDispatch(tx, b, offer.vehicleId);
      return { booking: await this.mustGet(b.id, tx), dispatch };
    });
    if (dispatch) await this.afterAcceptance(booking, dispatch);
    else {
      await this.publish(booking);
      this.opts.wake?.();
    }
    const answered = booking.offers.find((o) => o.id === offerId);
    if (!answered) throw offerNotFound(offerId);
    return { ...answered, bookingId: booking.id };
  }

  /**
   * Closes an open offer whose taxi is no longer free (booking-progress.ts): `withdrawn`, and the
   * booking is due at once for the next taxi. Nothing when it was answered or closed meanwhile.
   */
  async withdrawOffer(offerId: string): Promise<void> {
    const offer = await this.store.offer(offerId);
    if (!offer) return;
    const booking = await this.store.db.transaction(async (tx) => {
      await this.store.lock(tx, offer.bookingId);
      if (!(await this.store.withdrawOffer(tx, offerId))) return undefined;
      await this.store.setDueNow(tx, offer.bookingId);
      return this.mustGet(offer.bookingId, tx);
    });
    if (!booking) return;
    await this.publish(booking);
    this.opts.wake?.();
  }

  /**
   * One round of the offer worker's work: each open booking due now. Returns how many changed.
   * Each is locked with SKIP LOCKED (another process holding one is working on it), and the
   * ranking, which may ask a routing server, runs between two short transactions rather than
   * under the lock: the offer is then made only if the booking, locked again, still has none.
   */
  async advanceDue(maxBookings = 200): Promise<number> {
    let changed = 0;
    let seen = 0;
    while (seen < maxBookings) {
      const due = await this.store.due(Math.min(50, maxBookings - seen));
      if (due.length === 0) break;
      seen += due.length;
      for (const id of due) {
        // One booking that fails (its ranking, a constraint) must not hold up the others: it stays
        // due and is tried again next round.
        const ok = await this.advance(id).catch((err: unknown) => {
          this.logLimiter.warn(
            this.opts.log,
            { err, code: 'BOOKING_ADVANCE_FAILED', bookingId: id },
            'booking not advanced',
          );
          return false;
        });
        if (ok) changed++;
      }
    }
    return changed;
  }

  /**
   * A due booking: expire its open offer past its time, expire it past its own; otherwise, in
   * `auto` with no offer open, offer it to the best taxi that may take it, or look again later.
   */
  private async advance(id: string): Promise<boolean> {
    const { store } = this;
    const step = await store.db.transaction(async (tx) => {
      if (!(await store.lockIfDue(tx, id))) return { changed: false, next: undefined };
      const expired = (await store.expireOffers(tx, id)) > 0;
      if (await store.expireIfDue(tx, id)) {
        await store.withdrawOffers(tx, id);
        return { changed: true, next: undefined };
      }
      const b = await this.mustGet(id, tx);
      if (b.offers.some((o) => o.response === null)) {
        await store.setOffered(tx, id);
        return { changed: expired, next: undefined };
      }
      if (b.mode === 'manual') {
        await store.setPending(tx, id, null);
        return { changed: expired, next: undefined };
      }
      return { changed: expired, next: b };
    });
    let changed = step.changed;
    if (step.next) changed = (await this.offerNext(step.next)) || changed;
    if (changed) await this.publish(await this.mustGet(id));
    return changed;
  }

  /**
   * Offers `b` to the first ranked taxi that may take it; with none, looks again after `retryMs`.
   * True when the booking changed.
   */
  private async offerNext(b: Booking): Promise<boolean> {
    const { store } = this;
    const fleet = await store.fleetOf(b.operatorId, b.pack === 'belem-taxi');
    // A taxi that declined or let the offer expire is not asked again; one withdrawn may be.
    const exclude = new Set(b.offers.filter((o) => o.response !== 'withdrawn').map((o) => o.vehicleId));
    const ranking =
      fleet.size === 0
        ? { stand: null, candidates: [] }
        : await this.opts.ranker.rank({ pickup: b.pickup, pack: b.pack, vehicleIds: fleet, exclude });
    return store.db.transaction(async (tx) => {
      const current = await store.lockIfDue(tx, b.id);
      // Another process made an offer (or the booking closed) meanwhile.
      if (!current || current.offers.some((o) => o.response === null) || !OPEN.has(current.status)) return false;
      if (ranking.stand && current.standId === null) await store.setStand(tx, b.id, ranking.stand.id);
      // The live index is this process's view; the database has the last word on each taxi.
      const facts = await store.vehicleFacts(
        ranking.candidates.map((c) => c.vehicleId),
        b.id,
        tx,
      );
      const ctx = this.vehicleContext(b, fleet);
      for (const c of ranking.candidates) {
        if (vehicleProblem(facts.get(c.vehicleId), ctx) !== null) continue;
        const offered = await store.insertOffer(tx, {
          bookingId: b.id,
          vehicleId: c.vehicleId,
          timeoutS: this.opts.offerTimeoutS,
          etaS: c.etaS,
          distanceM: c.distanceM,
          basis: c.basis,
        });
        if (offered) {
          await store.setOffered(tx, b.id);
          return true;
        }
      }
      await store.setPending(tx, b.id, this.opts.retryMs);
      return current.status !== 'pending';
    });
  }

  /**
   * Every acceptance (an offer accepted, a manual assignment) is a dispatch of the booking's
   * operator, stored with the acceptance (same transaction) under the booking's id, and judged by
   * the radio rules once committed, exactly as a `POST /v1/dispatches`.
   */
  private async recordDispatch(tx: Queryable, b: Booking, vehicleId: string): Promise<Dispatch> {
    const dispatch: Dispatch = {
      id: b.id,
      ts: new Date(),
      radioOperatorId: b.operatorId,
      vehicleId,
      lat: b.pickup.lat,
      lon: b.pickup.lon,
      tripId: null,
    };
    await new DispatchStore(tx).insert([dispatchRow(dispatch)]);
    return dispatch;
  }

  /** What the eligibility of a taxi for booking `b` is judged against, now. */
  private vehicleContext(b: Booking, fleet: ReadonlySet<string>): VehicleContext {
    const nowMs = Date.now();
    return {
      fleet,
      localDate: localDateOf(nowMs, packTimeZone(b.pack)),
      nowMs,
      offlineAfterS: this.opts.offlineAfterS,
    };
  }

  private async afterAcceptance(booking: Booking, dispatch: Dispatch): Promise<void> {
    await this.publish(booking);
    await this.opts.rules.onDispatches([dispatch]);
  }

  async publish(booking: Booking): Promise<void> {
    await publishOrLog(this.opts.bus, this.opts.log, { type: 'booking', booking }, 'booking change not published', {
      bookingId: booking.id,
    });
  }

  async mustGet(id: string, q?: Queryable): Promise<Booking> {
    const booking = await this.store.get(id, { all: true }, q);
    if (!booking) throw bookingNotFound(id);
    return booking;
  }
}

/** A taxi that declined may still be assigned: the dispatcher records the driver's yes, given since. */
const assignable = (f: VehicleFacts): VehicleFacts => ({ ...f, refusedThisBooking: false });

/** Two acceptances of one taxi at once (two bookings, two processes): the unique index lets one through. */
function busyOnConflict(err: unknown): never {
  if ((err as { code?: unknown }).code === '23505') {
    throw new AppError('VEHICLE_BUSY', vehicleProblemMessage('VEHICLE_BUSY'), 409, { reason: 'VEHICLE_BUSY' });
  }
  throw err;
}
