import type { Pack } from '@vigia/core';
import { addDays, localDateOf } from './time.js';
import type { BuildContext, RegistryStep } from './types.js';

/** How far back the scenario registry is in force (the Belém December scenario is a year back). */
const REGISTRY_BACK_DAYS = 400;

export interface ScenarioVehicle {
  vehicleId: string;
  /** The device identifier the samples carry as `deviceId`. */
  deviceId: string;
}

/**
 * Builds the registry of one scenario run: ids carry the run id; every record (except contracts,
 * whose `validFrom` is a date column of their own) is created with `validFrom` about 400 days
 * back, so samples stamped in the past are judged against it.
 */
export class RegistryBuilder {
  readonly steps: RegistryStep[] = [];
  readonly validFrom: string;
  /** The local date the registry's validity dates are counted from (today). */
  readonly today: string;

  constructor(private readonly ctx: BuildContext) {
    this.validFrom = new Date(ctx.nowMs - REGISTRY_BACK_DAYS * 86_400_000).toISOString();
    this.today = localDateOf(ctx.nowMs);
  }

  id(key: string): string {
    return `scn-${this.ctx.runId}-${key}`;
  }

  add(collection: RegistryStep['collection'], body: Record<string, unknown>): string {
    const id = typeof body.id === 'string' ? body.id : this.id(`${collection}-${this.steps.length}`);
    const withValidity = collection === 'contracts' ? body : { validFrom: this.validFrom, ...body };
    this.steps.push({ collection, body: { ...withValidity, id } });
    return id;
  }

  operator(key: string, pack: Pack, extra: Record<string, unknown> = {}): string {
    return this.add('operators', {
      id: this.id(key),
      name: `Scenario operator ${key}`,
      pack,
      kind: pack === 'sp-fretamento' ? 'company' : 'permit-holder',
      registrationValidUntil: addDays(this.today, 365),
      ...extra,
    });
  }

  /** A vehicle in good standing (overridden by `extra`) with its own operator and device. */
  vehicle(key: string, pack: Pack, extra: Record<string, unknown> = {}): ScenarioVehicle {
    const operatorId = typeof extra.operatorId === 'string' ? extra.operatorId : this.operator(`${key}-op`, pack);
    const future = addDays(this.today, 365);
    const base: Record<string, unknown> =
      pack === 'sp-fretamento'
        ? {
            serviceType: 'fretamento-continuo',
            capacity: 44,
            manufactureYear: 2022,
            lastInspectionDate: addDays(this.today, -60),
            tachographLinked: true,
          }
        : pack === 'df-taxi'
          ? {
              serviceType: 'taxi',
              capacity: 4,
              manufactureYear: 2022,
              permitKind: 'autonomous',
              permitNumber: `DF-${this.ctx.runId}-${key}`,
              permitValidUntil: future,
            }
          : {
              serviceType: 'taxi',
              capacity: 4,
              manufactureYear: 2022,
              modelYear: 2022,
              permitNumber: `BEL-${this.ctx.runId}-${key}`,
              permitValidUntil: future,
              divValidUntil: future,
            };
    const vehicleId = this.add('vehicles', {
      id: this.id(key),
      plate: this.ctx.plate(),
      pack,
      operatorId,
      ...base,
      ...extra,
    });
    const deviceId = `SCN-${this.ctx.runId}-${key}`.toUpperCase();
    this.add('devices', { id: this.id(`${key}-dev`), vehicleId, identifier: deviceId });
    return { vehicleId, deviceId };
  }
}
