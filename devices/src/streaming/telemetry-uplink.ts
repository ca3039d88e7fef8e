import type { TelemetryInput } from '@vigia/core';

/** What a simulated device reports about its uplink, summed in the simulator's periodic log line. */
export interface UplinkStats {
  sent: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  failedRequests: number;
  dropped: number;
}

/**
 * A simulated device's way to the server, whatever the protocol: native JSON over HTTP
 * (`DeviceUplink`), Teltonika Codec 8 Extended or GT06 over TCP, OsmAnd over HTTP (the emulators);
 * all of them deliver through the one loop in `BacklogUplink`.
 * Samples queue in a bounded backlog and leave in order; nothing is thrown while streaming.
 */
export interface TelemetryUplink {
  readonly stats: UplinkStats;
  /** Samples waiting to be delivered. */
  readonly pending: number;
  enqueue(record: TelemetryInput): void;
  /** Deliver the backlog now unless a delivery is in flight or the device is backing off. */
  flush(signal?: AbortSignal): Promise<void> | undefined;
  /** Resolves when no delivery is in flight (it does not start one). */
  whenIdle(): Promise<void>;
  /** Releases connections; called once the simulator has stopped. */
  close(): Promise<void>;
}
