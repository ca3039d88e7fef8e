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
  log: Logger;
}): Promise<RunningDemo> {
  const { startSimulator } = await import('@vigia/devices');
  return startSimulator({
    apiUrl: opts.url,
    adminToken: opts.adminToken,
    vehicles: opts.vehicles,
    intervalMs: opts.intervalMs,
    logger: opts.log.child({ component: 'simulator' }),
  });
}
