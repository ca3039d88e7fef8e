/**
 * A dashboard's view of the soak: one Socket.IO client on `/live` per API process (admin token).
 * Each `fleet` update of the run's vehicles gives the delay from the sample being sent (its `ts`
 * is its send time) to its position reaching the dashboard; each DF_OVER_CAPACITY raised for a
 * violator gives the delay from the ride's completing sample (the one whose time ends the
 * violation's measured duration) to the violation reaching the dashboard. One clock: the soak's
 * senders and watchers run in this process.
 */
import { liveViolationSchema } from '@vigia/core';
import { io, type Socket } from 'socket.io-client';
import { fleetEventSchema } from '../node/answers.ts';
import { LIVE_CONNECT_TIMEOUT_MS, LIVE_NAMESPACE, readFleetEvent } from '../scenarios/live.ts';

export interface WatchFigures {
  /** Sample sent → update received (ms), every update of the run's vehicles. */
  liveDelaysMs: number[];
  /** Completing sample sent → violation received (ms), every raised DF_OVER_CAPACITY of a violator. */
  violationDelaysMs: number[];
  vehiclesSeen: number;
  violationsRaised: number;
  malformed: number;
  disconnects: number;
}

export class Watcher {
  private readonly socket: Socket;
  private readonly seen = new Set<string>();
  private admittedMs = Number.POSITIVE_INFINITY;
  readonly figures: WatchFigures = {
    liveDelaysMs: [],
    violationDelaysMs: [],
    vehiclesSeen: 0,
    violationsRaised: 0,
    malformed: 0,
    disconnects: 0,
  };

  private constructor(
    apiUrl: string,
    adminToken: string,
    private readonly vehicleIds: ReadonlySet<string>,
    /** Each violator's samples' send times (ms), in order, by vehicle id. */
    private readonly violatorSends: ReadonlyMap<string, number[]>,
  ) {
    this.socket = io(`${apiUrl}${LIVE_NAMESPACE}`, {
      auth: { token: adminToken },
      transports: ['websocket'],
      timeout: LIVE_CONNECT_TIMEOUT_MS,
    });
    this.socket.on('fleet', (payload: unknown) => this.onFleet(payload));
    this.socket.on('violation', (payload: unknown) => this.onViolation(payload));
    this.socket.on('disconnect', () => {
      this.figures.disconnects++;
    });
  }

  static open(
    apiUrl: string,
    adminToken: string,
    vehicleIds: ReadonlySet<string>,
    violatorSends: ReadonlyMap<string, number[]>,
  ): Promise<Watcher> {
    const watcher = new Watcher(apiUrl, adminToken, vehicleIds, violatorSends);
    return new Promise((resolve, reject) => {
      watcher.socket.once('connect', () => {
        watcher.admittedMs = Date.now();
        resolve(watcher);
      });
      watcher.socket.once('connect_error', (err) => reject(new Error(`/live at ${apiUrl}: ${err.message}`)));
    });
  }

  close(): void {
    this.figures.vehiclesSeen = this.seen.size;
    this.socket.close();
  }

  private onFleet(payload: unknown): void {
    const receivedMs = Date.now();
    const updates = fleetEventSchema.safeParse(payload);
    if (!updates.success) {
      this.figures.malformed++;
      return;
    }
    const { delaysMs, vehicles } = readFleetEvent(this.vehicleIds, updates.data, receivedMs, this.admittedMs);
    for (const d of delaysMs) this.figures.liveDelaysMs.push(d);
    for (const v of vehicles) this.seen.add(v);
  }

  private onViolation(payload: unknown): void {
    const receivedMs = Date.now();
    const parsed = liveViolationSchema.safeParse(payload);
    if (!parsed.success) {
      this.figures.malformed++;
      return;
    }
    const v = parsed.data;
    const sends = this.violatorSends.get(v.vehicleId);
    if (!sends || v.ruleId !== 'DF_OVER_CAPACITY' || v.change !== 'raised') return;
    this.figures.violationsRaised++;
    const durationS = v.measured.durationSeconds;
    if (typeof durationS !== 'number') return;
    // The completing sample is the one stamped at the end of the measured run; the send time
    // nearest it (measured durations are rounded) is that sample's.
    const completingMs = Date.parse(v.startedAt) + durationS * 1000;
    let nearest: number | undefined;
    for (const sent of sends) {
      if (nearest === undefined || Math.abs(sent - completingMs) < Math.abs(nearest - completingMs)) nearest = sent;
    }
    if (nearest !== undefined) this.figures.violationDelaysMs.push(receivedMs - nearest);
  }
}
