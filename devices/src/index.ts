/**
 * @vigia/devices — the simulated fleet: Brasília and Belém taxis and São Paulo charter buses
 * moving on each city's major roads, registered and streamed through the public API.
 */

export { type Clock, ManualClock, systemClock } from './clock.js';
export { Fleet, type FleetOptions } from './fleet/fleet.js';
export { type FleetSplit, splitFleet } from './fleet/fleet-split.js';
export { buildRoster, type Roster, type RosterEntry } from './fleet/roster.js';
export { CITIES, cityGraph } from './network/cities.js';
export { RoadGraph } from './network/graph.js';
export type { CharterLineDef, CityDef, PlaceDef, RoadClass, RoadDef } from './network/types.js';
export { Random } from './random.js';
export {
  type RunningSimulator,
  type SimulatorOptions,
  type SimulatorStats,
  simulatorOptionsSchema,
  startSimulator,
} from './simulator.js';
export {
  bandeira2AllowedByTime,
  driverTariff,
  TARIFF_TABLES,
  type Tariff,
  type TariffTable,
  Taximeter,
} from './tariff.js';
export { itineraryPolyline, resolveCharterLine } from './vehicles/charter-line.js';
export { SimVehicle } from './vehicles/sim-vehicle.js';
export type { Activity, Behaviour, BehaviourContext, VehicleState } from './vehicles/vehicle-state.js';
