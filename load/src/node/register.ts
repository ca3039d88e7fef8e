/** The registration every scenario starts with (shared bodies of load/src/scenarios/fleet.ts), and reading it back. */
import {
  deviceBodies,
  type FleetPlan,
  type ListedVehicle,
  operatorBody,
  parkedSample,
  REGISTER_CHUNK,
  vehicleBodies,
  vehiclesPath,
  WARM_UP_CONCURRENCY,
} from '../scenarios/fleet.ts';
import { ingestAnswerCorrect } from '../scenarios/ingest.ts';
import {
  createdDevicesSchema,
  createdListSchema,
  createdSchema,
  telemetryAnswerSchema,
  vehiclePageSchema,
} from './answers.ts';
import { call, must, type Target } from './http.ts';

/** Registers the plan's operator, vehicles and devices; returns each vehicle's device token, in the plan's order. */
export async function registerFleet(target: Target, plan: FleetPlan, nowMs: number): Promise<string[]> {
  const { apiUrl, adminToken } = target;
  await must(createdSchema, 201, 'POST', `${apiUrl}/v1/operators`, adminToken, operatorBody(plan, nowMs));
  const tokens: string[] = [];
  for (let from = 0; from < plan.vehicles.length; from += REGISTER_CHUNK) {
    const to = from + REGISTER_CHUNK;
    await must(
      createdListSchema,
      201,
      'POST',
      `${apiUrl}/v1/vehicles`,
      adminToken,
      vehicleBodies(plan, nowMs, from, to),
    );
    const devices = await must(
      createdDevicesSchema,
      201,
      'POST',
      `${apiUrl}/v1/devices`,
      adminToken,
      deviceBodies(plan, from, to),
    );
    tokens.push(...devices.map((d) => d.token));
  }
  return tokens;
}

/** Every vehicle of the plan as `GET /v1/vehicles?operatorId=` lists it, with its live state. */
export async function listVehicles(target: Target, plan: FleetPlan): Promise<ListedVehicle[]> {
  const out: ListedVehicle[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: ListedVehicle[]; next: string | null } = await must(
      vehiclePageSchema,
      200,
      'GET',
      `${target.apiUrl}${vehiclesPath(plan, cursor)}`,
      target.adminToken,
    );
    out.push(...page.items);
    cursor = page.next;
  } while (cursor);
  return out;
}

/** Each device's first sample, parked at home at `tsMs`, with its own token (`concurrency` at once). */
export async function warmUp(
  target: Target,
  plan: FleetPlan,
  tokens: readonly string[],
  tsMs: number,
  concurrency = WARM_UP_CONCURRENCY,
): Promise<void> {
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < plan.vehicles.length; i = next++) {
      const answer = await call(
        telemetryAnswerSchema,
        'POST',
        `${target.ingestUrl}/v1/telemetry`,
        tokens[i] ?? '',
        parkedSample(plan, i, tsMs),
      );
      if (!ingestAnswerCorrect(answer.status, answer.body, 1))
        problems.push(`${answer.status} ${answer.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (problems.length > 0) throw new Error(`warm-up samples refused: ${problems.slice(0, 3).join('; ')}`);
}
