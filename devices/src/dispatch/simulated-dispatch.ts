import type { Logger } from '@vigia/core';
import { HttpError } from '../api/http.js';
import type { Clock } from '../clock.js';
import type { Fleet } from '../fleet/fleet.js';
import type { Roster } from '../fleet/roster.js';
import { Random } from '../random.js';
import type { TaxiPack } from '../tariff.js';
import { BookingGenerator, type BookingMix, type RadioDesk } from './booking-generator.js';
import { DispatchApi, type SimBooking } from './dispatch-api.js';
import { type AnswerShares, OfferResponder } from './offer-responder.js';

export interface SimulatedDispatchOptions {
  apiUrl: string;
  adminToken: string;
  fleet: Fleet;
  roster: Roster;
  /** Dispatcher user id → API token (registerDispatchers). */
  dispatcherTokens: ReadonlyMap<string, string>;
  /** Device id → token: a taxi answers its offers with its own device's. */
  deviceTokens: ReadonlyMap<string, string>;
  clock: Clock;
  seed: number | string;
  /** Mean seconds between two bookings in each city, on the simulation's clock. */
  bookingIntervalS: number;
  /** Real milliseconds between two rounds (poll of the open offers). */
  pollMs?: number;
  shares?: AnswerShares;
  mix?: BookingMix;
  log: Logger;
  signal?: AbortSignal;
}

export interface RunningDispatch {
  readonly generator: BookingGenerator;
  readonly responder: OfferResponder;
  stop(): Promise<void>;
}

/** The radio desks of the roster: each dispatcher user's first operator, with the vehicles it may send. */
export function radioDesks(roster: Roster, tokens: ReadonlyMap<string, string>): RadioDesk[] {
  return roster.dispatchers.flatMap((user) => {
    const operator = roster.operators.find((o) => o.id === user.operatorIds[0]);
    const token = tokens.get(user.id);
    if (!operator || !token || operator.pack === 'sp-fretamento') return [];
    const vehicleIds =
      operator.kind === 'radio-operator'
        ? (operator.declaredVehicleIds ?? [])
        : roster.entries.filter((e) => e.vehicle.operatorId === operator.id).map((e) => e.vehicle.id);
    return [{ operatorId: operator.id, pack: operator.pack, token, vehicleIds }];
  });
}

/** Bookings a previous run left waiting or on their way: no simulated taxi of this run serves them. */
const LEFT_OVER: readonly SimBooking['status'][] = ['pending', 'offered', 'accepted', 'arrived'];

/**
 * The desks' board at the start: bookings a previous run of the simulator (the same data folder,
 * restarted) left open or under way are cancelled, or their taxis would stay busy with a booking
 * no simulated driver knows of. A booking whose passenger was aboard completes from the telemetry.
 */
async function clearBoard(api: DispatchApi, desks: readonly RadioDesk[], log: Logger): Promise<void> {
  let cancelled = 0;
  for (const desk of desks) {
    for (const status of LEFT_OVER) {
      for (const b of await api.bookings(desk.token, desk.operatorId, status)) {
        if (await api.cancel(desk.token, b.id, 'Simulador reiniciado')) cancelled++;
      }
    }
  }
  if (cancelled > 0) log.info({ cancelled }, "the previous simulator run's open bookings cancelled");
}

/**
 * The demo's dispatch: the radio desks take bookings (BookingGenerator) and the simulated taxis
 * answer the offers made to them (OfferResponder), one round every `pollMs` of real time — the
 * API's offers expire in real time — while the delays within (between bookings, before an
 * answer) run on the simulation's clock. Errors are logged and the next round tries again.
 */
export function startSimulatedDispatch(o: SimulatedDispatchOptions): RunningDispatch {
  const log = o.log.child({ component: 'simulated-dispatch' });
  const api = new DispatchApi(o.apiUrl, o.signal);
  const deviceOf = new Map(o.roster.entries.map((e) => [e.vehicle.id, e.device.id]));
  // The generator hands the responder the manual bookings it assigned, to follow them too.
  let responder: OfferResponder | undefined;
  const generator = new BookingGenerator({
    api,
    desks: radioDesks(o.roster, o.dispatcherTokens),
    world: (pack: TaxiPack) => o.fleet.taxiWorld(pack),
    taxi: (id) => o.fleet.taxi(id),
    clock: o.clock,
    rng: Random.derive(o.seed, 'dispatch', 'bookings'),
    meanIntervalS: o.bookingIntervalS,
    ...(o.mix ? { mix: o.mix } : {}),
    log,
    onAssigned: (bookingId, vehicleId) => responder?.follow(bookingId, vehicleId),
  });
  responder = new OfferResponder({
    api,
    listToken: o.adminToken,
    answerToken: (vehicleId) => {
      const device = deviceOf.get(vehicleId);
      return device ? o.deviceTokens.get(device) : undefined;
    },
    taxi: (id) => o.fleet.taxi(id),
    clock: o.clock,
    rng: Random.derive(o.seed, 'dispatch', 'answers'),
    ...(o.shares ? { shares: o.shares } : {}),
    log,
  });

  let stopped = false;
  let running: Promise<void> | undefined;
  let lastError = '';
  let boardCleared = false;
  const round = async () => {
    try {
      if (!boardCleared) {
        await clearBoard(api, radioDesks(o.roster, o.dispatcherTokens), log);
        boardCleared = true;
      }
      await generator.round();
      await responder.round();
      lastError = '';
    } catch (err) {
      if (stopped) return;
      // One line per kind of failure, not one a second while the API is away.
      const key = err instanceof HttpError ? `${err.status}:${err.code}` : String(err);
      if (key !== lastError) log.warn({ err, code: 'SIM_DISPATCH_FAILED' }, 'simulated dispatch round failed');
      lastError = key;
    }
  };
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = round().finally(() => {
      running = undefined;
    });
  }, o.pollMs ?? 1000);
  const statsTimer = setInterval(() => {
    log.info({ bookings: generator.stats, offers: responder.stats }, 'simulated dispatch so far');
  }, 60_000);
  statsTimer.unref();
  log.info(
    { desks: radioDesks(o.roster, o.dispatcherTokens).length, bookingIntervalS: o.bookingIntervalS },
    'simulated radio desks open',
  );
  return {
    generator,
    responder,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearInterval(statsTimer);
      await running;
    },
  };
}
