import type { Logger } from 'pino';

export interface RunningDemo {
  stop(): Promise<void>;
}

/**
 * The simulated fleet in the same process (DEMO=on). Loaded on demand, so a production API
 * process never loads the simulator's code.
 */
export async function startDemo(opts: {
  url: string;
  adminToken: string;
  vehicles: number;
  intervalMs: number;
  /** `DEMO_PROTOCOL`; the gateways are this process's own, on the ports they bound. */
  protocol: 'native' | 'osmand' | 'teltonika' | 'gt06' | 'mixed';
  gateways: { host: string; osmandPort: number; teltonikaPort: number; gt06Port: number } | undefined;
  /** `DEMO_BOOKING_INTERVAL_S`: the simulated radio desks' bookings, answered by the simulated taxis; 0 = none. */
  bookingIntervalS: number;
  log: Logger;
}): Promise<RunningDemo> {
  const { startSimulator } = await import('@vigia/devices');
  return startSimulator({
    apiUrl: opts.url,
    adminToken: opts.adminToken,
    vehicles: opts.vehicles,
    intervalMs: opts.intervalMs,
    protocol: opts.protocol,
    bookingIntervalS: opts.bookingIntervalS,
    // Unit values, holidays, zones and stops for this process's own registry (devices/data/demo-registry).
    demoReferenceData: true,
    ...(opts.gateways
      ? {
          osmand: { host: opts.gateways.host, port: opts.gateways.osmandPort },
          teltonika: { host: opts.gateways.host, port: opts.gateways.teltonikaPort },
          gt06: { host: opts.gateways.host, port: opts.gateways.gt06Port },
        }
      : {}),
    logger: opts.log.child({ component: 'simulator' }),
  });
}
