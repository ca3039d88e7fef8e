import type { Logger } from '@vigia/core';
import type { Clock } from '../clock.js';
import type { SimTaxi } from '../fleet/fleet.js';
import { distanceM, type LatLon } from '../geo.js';
import type { Random } from '../random.js';
import type { TaxiPack } from '../tariff.js';
import type { TaxiWorld } from '../vehicles/taxi-behaviour.js';
import type { DispatchApi, NewBooking, SimBooking } from './dispatch-api.js';
import { jobOf } from './offer-responder.js';
import { chooseDropoff, choosePickup, type PickupPoint, pickupShortDriveFrom } from './pickups.js';

/**
 * A radio desk of the demo: an operator that takes bookings (a DF cooperative, a Belém radio
 * operator), the dispatcher user who types them in, and the taxis it may send.
 */
export interface RadioDesk {
  operatorId: string;
  pack: TaxiPack;
  /** The desk's dispatcher's API token. */
  token: string;
  /** Its vehicles: a DF cooperative's own, a Belém radio operator's declared ones. */
  vehicleIds: readonly string[];
}

export interface BookingMix {
  /** Share of bookings taken in `manual` mode, assigned by the dispatcher to a nearby free taxi. */
  manual: number;
  /** Share of bookings that say where the passenger goes. */
  withDropoff: number;
}
export const DEFAULT_BOOKING_MIX: BookingMix = { manual: 0.15, withDropoff: 0.7 };

/** The first booking of each city comes this soon after the start (the taxis' first positions are in by then), seconds. */
const FIRST_BOOKING_S: readonly [number, number] = [5, 8];
/**
 * The city's first caller is this close to a free taxi, metres: near enough that the taxi is there
 * and the passenger aboard within the demo's first two minutes (a short drive, then the 15–60 s
 * the caller takes to come out).
 */
const FIRST_CALL_NEAR_TAXI_M: readonly [number, number] = [150, 350];
/** ... and that taxi reaches the caller by at most this much road, metres. */
const FIRST_CALL_MAX_ROUTE_M = 600;
/** ... and the desk's free taxi nearest that one (the next offer if it declines) by at most this much, metres. */
const FIRST_CALL_BACKUP_ROUTE_M = 1200;
/** A dispatcher takes this long to pick a taxi for a manual booking, seconds. */
const ASSIGN_DELAY_S: readonly [number, number] = [4, 12];

const NOTES = ['Cliente com bagagem', 'Aguarda na portaria', 'Pagamento em dinheiro', 'Cadeirante, porta-malas livre'];

export interface BookingGeneratorOptions {
  api: Pick<DispatchApi, 'createBooking' | 'assign'>;
  desks: readonly RadioDesk[];
  world(pack: TaxiPack): TaxiWorld;
  taxi(vehicleId: string): SimTaxi | undefined;
  clock: Clock;
  rng: Random;
  /** Mean seconds between two bookings in each city (each gap uniform in 0.5–1.5 times it), simulated time. */
  meanIntervalS: number;
  mix?: BookingMix;
  log: Logger;
  /** A manual booking was assigned to a simulated taxi (the responder then follows it like an accepted offer). */
  onAssigned?(bookingId: string, vehicleId: string): void;
}

export interface GeneratorStats {
  created: number;
  manual: number;
  assigned: number;
  /** Bookings the API refused (logged). */
  refused: number;
}

/**
 * Takes the demo's bookings: in each city, one every `meanIntervalS` on average (on the
 * simulation's clock), by one of the city's desks chosen at random, at a realistic pickup (near one
 * of the desk's free taxis half the time, else a named place, around the corner from a stand, or a
 * street of the network), mostly in `auto` mode; a `manual` one is assigned a few seconds later by
 * the dispatcher to the desk's free taxi nearest the pickup. `round()` does what is due.
 */
export class BookingGenerator {
  readonly stats: GeneratorStats = { created: 0, manual: 0, assigned: 0, refused: 0 };
  private readonly nextAtMs = new Map<TaxiPack, number>();
  /** Cities that have had their first booking. */
  private readonly started = new Set<TaxiPack>();
  private readonly assignments: { booking: SimBooking; desk: RadioDesk; atMs: number }[] = [];

  constructor(private readonly o: BookingGeneratorOptions) {
    const now = o.clock.now();
    for (const desk of o.desks) {
      if (!this.nextAtMs.has(desk.pack)) {
        this.nextAtMs.set(desk.pack, now + o.rng.range(FIRST_BOOKING_S[0], FIRST_BOOKING_S[1]) * 1000);
      }
    }
  }

  async round(): Promise<void> {
    const now = this.o.clock.now();
    for (const [pack, at] of this.nextAtMs) {
      if (at > now) continue;
      this.nextAtMs.set(pack, now + this.o.rng.range(0.5, 1.5) * this.o.meanIntervalS * 1000);
      const desks = this.o.desks.filter((d) => d.pack === pack);
      if (desks.length === 0) continue;
      if (this.started.has(pack)) await this.take(this.o.rng.pick(desks), now);
      else await this.takeFirst(pack, desks, now);
    }
    for (let i = this.assignments.length - 1; i >= 0; i--) {
      const due = this.assignments[i];
      if (!due || due.atMs > now) continue;
      this.assignments.splice(i, 1);
      await this.assign(due.booking, due.desk, now);
    }
  }

  /** The desk's taxis that could take a booking now. */
  private freeTaxis(desk: RadioDesk, nowMs: number): { id: string; taxi: SimTaxi }[] {
    return desk.vehicleIds.flatMap((id) => {
      const taxi = this.o.taxi(id);
      return taxi?.behaviour.canTakeBooking(nowMs) ? [{ id, taxi }] : [];
    });
  }

  /**
   * The city's first call, so that the demo shows a booking served within its first two minutes
   * whatever the drivers answer: taken by the desk with two free taxis nearest each other, from a
   * street a short drive from both (the booking service passes a declined or unanswered offer on
   * to the next taxi). Only where the call comes from is chosen: the drivers answer it as any other.
   */
  private async takeFirst(pack: TaxiPack, desks: readonly RadioDesk[], nowMs: number): Promise<void> {
    let best: { desk: RadioDesk; near: LatLon; backup: LatLon | undefined; apartM: number } | undefined;
    for (const desk of desks) {
      const free = this.freeTaxis(desk, nowMs).map((c) => c.taxi.vehicle.state.position);
      for (const near of free) {
        let backup: LatLon | undefined;
        let apartM = Number.POSITIVE_INFINITY;
        for (const other of free) {
          const d = distanceM(near, other);
          if (other !== near && d < apartM) {
            backup = other;
            apartM = d;
          }
        }
        if (!best || apartM < best.apartM || (apartM === best.apartM && this.o.rng.chance(0.5)))
          best = { desk, near, backup, apartM };
      }
    }
    // No desk has a free taxi yet (parked, off shift): the city's first call comes a second later.
    if (!best) {
      this.nextAtMs.set(pack, nowMs + 1000);
      return;
    }
    this.started.add(pack);
    const world = this.o.world(pack);
    const short = (backups: LatLon[]) =>
      pickupShortDriveFrom(
        world,
        this.o.rng,
        best.near,
        FIRST_CALL_NEAR_TAXI_M,
        FIRST_CALL_MAX_ROUTE_M,
        backups,
        FIRST_CALL_BACKUP_ROUTE_M,
      );
    const pickup =
      (best.backup ? short([best.backup]) : undefined) ??
      short([]) ??
      choosePickup(world, this.o.rng, best.near, 1, FIRST_CALL_NEAR_TAXI_M);
    this.o.log.info(
      {
        pack,
        operatorId: best.desk.operatorId,
        nextTaxiM: Number.isFinite(best.apartM) ? Math.round(best.apartM) : null,
        pickupM: Math.round(distanceM(best.near, pickup.place)),
      },
      "the city's first call",
    );
    await this.take(best.desk, nowMs, pickup);
  }

  private async take(desk: RadioDesk, nowMs: number, chosen?: PickupPoint): Promise<void> {
    const rng = this.o.rng;
    const mix = this.o.mix ?? DEFAULT_BOOKING_MIX;
    const world = this.o.world(desk.pack);
    const free = chosen ? [] : this.freeTaxis(desk, nowMs);
    const pickup =
      chosen ?? choosePickup(world, rng, free.length > 0 ? rng.pick(free).taxi.vehicle.state.position : undefined);
    const dropoff = rng.chance(mix.withDropoff) ? chooseDropoff(world, rng, pickup.node) : undefined;
    const mode = rng.chance(mix.manual) ? 'manual' : 'auto';
    const body: NewBooking = {
      operatorId: desk.operatorId,
      pickup: pickup.place,
      ...(dropoff ? { dropoff } : {}),
      passengers: rng.weighted([1, 2, 3, 4], (n) => [0.6, 0.25, 0.1, 0.05][n - 1] ?? 0),
      ...(rng.chance(0.15) ? { notes: rng.pick(NOTES) } : {}),
      mode,
    };
    let booking: SimBooking;
    try {
      booking = await this.o.api.createBooking(desk.token, body);
    } catch (err) {
      this.stats.refused++;
      this.o.log.warn({ err, operatorId: desk.operatorId, code: 'SIM_BOOKING_REFUSED' }, 'simulated booking refused');
      return;
    }
    this.stats.created++;
    this.o.log.debug({ booking: booking.id, operatorId: desk.operatorId, mode }, 'simulated booking taken');
    if (mode === 'manual') {
      this.stats.manual++;
      this.assignments.push({ booking, desk, atMs: nowMs + rng.range(ASSIGN_DELAY_S[0], ASSIGN_DELAY_S[1]) * 1000 });
    }
  }

  /**
   * The dispatcher gives a manual booking to the desk's free taxi nearest the pickup, calling the
   * driver on the radio first: the taxi is committed before the API records the assignment, and
   * released if the API refuses it (the taxi is no longer free there, the booking was cancelled).
   */
  private async assign(booking: SimBooking, desk: RadioDesk, nowMs: number): Promise<void> {
    const nearest = this.freeTaxis(desk, nowMs)
      .map((c) => ({ ...c, d: distanceM(c.taxi.vehicle.state.position, booking.pickup) }))
      .sort((a, b) => a.d - b.d)[0];
    if (!nearest) return; // nobody free: the booking waits on the board until it expires
    if (!nearest.taxi.behaviour.acceptBooking(jobOf({ ...booking, bookingId: booking.id }), nowMs)) return;
    let assigned = false;
    try {
      const result = await this.o.api.assign(desk.token, booking.id, nearest.id);
      assigned = result?.status === 'accepted' && result.vehicleId === nearest.id;
    } finally {
      if (!assigned) nearest.taxi.behaviour.dropBooking(booking.id);
    }
    if (!assigned) return;
    this.stats.assigned++;
    this.o.onAssigned?.(booking.id, nearest.id);
  }
}
