import type { Pack } from '@vigia/core';

/**
 * What a dishonest driver or operator does, as data on the roster. The behaviours read it through
 * small named hooks (the party a taxi takes, the bandeira, whether the meter is started, who
 * drives, how fast, what the tachograph reads); the vehicle still drives its roads and its
 * timetable like every other. An entry without vices is honest.
 */
export interface Vices {
  /** Passengers taken beyond the registered capacity: a taxi's extra passenger, a coach's standing ones. */
  overload?: number;
  /** Taxi: works the street for hails instead of queueing at stands (where the cooperative sees the meter). */
  worksTheStreet?: boolean;
  /** Taxi: worked around the clock, the two drivers handing the car over in ten minutes instead of an hour. */
  roundTheClock?: boolean;
  /** Taxi: rides at a price agreed with the passenger, the meter left free (DF_RIDE_WITHOUT_METER). */
  rideWithoutMeter?: boolean;
  /** Taxi: Bandeira II on every trip, whatever the hour (DF/BEL_BANDEIRA2_MISUSE in the daytime). */
  bandeira2Always?: boolean;
  /**
   * The permit is rented out: the car runs a day and a night shift with these drivers, whose cards
   * the tachograph reads and who are on no registry record (DF_UNREGISTERED_DRIVER).
   */
  unregisteredDriverIds?: readonly string[];
  /** A lead foot: cruising speeds this many times the road's usual ones, and less held back by traffic. */
  speeding?: number;
  /** Charter bus: layovers of a few minutes with the engine running, to squeeze in extra trips. */
  shortLayovers?: boolean;
  /** A tampered tachograph reads this fraction of the real speed (FRET_TACHOGRAPH_MISMATCH). */
  tachographScale?: number;
  /**
   * Charter bus: runs a clandestine regular service on the side, pulling over at the city's
   * regular-service bus stops on its route to board fare-paying passengers
   * (FRET_BOARDING_AT_REGULAR_STOP; three in one trip: FRET_REGULAR_SERVICE_PATTERN).
   */
  boardsAtRegularStops?: boolean;
  /**
   * Registry fact: the bus is on no *fretamento contínuo* contract; its only contract is a one-off
   * *fretamento eventual* trip long past, so every loaded trip runs without a contract in force
   * (FRET_NO_CONTRACT_IN_FORCE).
   */
  contractLapsed?: boolean;
  /** Registry fact: the last *vistoria* is two years old (FRET_INSPECTION_EXPIRED). */
  inspectionOverdue?: boolean;
  /** Registry fact: the DF permit was not revalidated, expired a few weeks ago (DF_PERMIT_EXPIRED). */
  permitExpired?: boolean;
  /** Registry fact: the D.I.V. expired months ago (BEL_DIV_EXPIRED). */
  divExpired?: boolean;
}

/**
 * The vices of each city, in the order the roster hands them out. Every rule but Bandeira II fires
 * at any hour the vehicle works, most of them on two vehicles, so a few minutes of the demo show
 * them all whatever the hour; Bandeira II only where and when it is not allowed (weekday
 * daytime).
 */
const PLANS: Readonly<Record<Pack, readonly ((slug: string) => Vices)[]>> = {
  'df-taxi': [
    () => ({ ...HUSTLER, overload: 1 }),
    () => ({ ...HUSTLER, rideWithoutMeter: true }),
    (slug) => ({ ...HUSTLER, unregisteredDriverIds: rentedTo(slug), overload: 1 }),
    () => ({ ...HUSTLER, bandeira2Always: true, permitExpired: true }),
    (slug) => ({ ...HUSTLER, unregisteredDriverIds: rentedTo(slug), rideWithoutMeter: true }),
  ],
  'belem-taxi': [
    () => ({ ...HUSTLER, speeding: 1.35 }),
    () => ({ ...HUSTLER, overload: 1 }),
    () => ({ ...HUSTLER, bandeira2Always: true, speeding: 1.35 }),
    () => ({ ...HUSTLER, overload: 1, divExpired: true }),
  ],
  'sp-fretamento': [
    // Tampered to hide the speeding: the tachograph shows about 75 km/h at 95.
    () => ({ speeding: 1.25, tachographScale: 0.78 }),
    () => ({ speeding: 1.25, overload: 6, shortLayovers: true, contractLapsed: true }),
    () => ({ overload: 8, shortLayovers: true, inspectionOverdue: true }),
    () => ({ speeding: 1.25, boardsAtRegularStops: true }),
  ],
};

/** How every taxi with a vice works: on the street, around the clock. */
const HUSTLER = { worksTheStreet: true, roundTheClock: true } as const;

/** Two drivers of the tenant of a rented-out permit, on no registry record. */
const rentedTo = (slug: string): string[] => [`sim-drv-${slug}-x1`, `sim-drv-${slug}-x2`];

/**
 * Hands out the vices of one city in roster order, from the roster alone (it does not depend on
 * the simulation seed: a registry fact such as an old inspection must stay what was registered
 * across restarts, and a bigger fleet keeps the vices of the smaller one). About one vehicle in
 * six: every third taxi worked in two shifts (so it works at any hour: day and night), every
 * sixth charter bus from the second.
 */
export class ViceAssigner {
  private twoShiftTaxis = 0;

  constructor(private readonly pack: Pack) {}

  /** The vices of the `index`-th vehicle (1-based) of the city, with its registered drivers. */
  next(index: number, drivers: number, slug: string): Vices | undefined {
    let slot: number;
    if (this.pack === 'sp-fretamento') {
      if (index < 2 || (index - 2) % 6 !== 0) return undefined;
      slot = (index - 2) / 6;
    } else {
      if (drivers < 2) return undefined;
      this.twoShiftTaxis++;
      if (this.twoShiftTaxis % 3 !== 0) return undefined;
      slot = this.twoShiftTaxis / 3 - 1;
    }
    const plan = PLANS[this.pack];
    return plan[slot % plan.length]?.(slug);
  }
}
