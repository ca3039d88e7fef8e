import { belemScenarios } from './belem-taxi.js';
import { catalogueV2BelemScenarios } from './catalogue-v2-belem.js';
import { catalogueV2DfScenarios } from './catalogue-v2-df.js';
import { catalogueV2SpScenarios } from './catalogue-v2-sp.js';
import { dfScenarios } from './df-taxi.js';
import { spScenarios } from './sp-fretamento.js';
import type { Scenario } from './types.js';

export { RegistryBuilder } from './registry.js';
export * from './runner.js';
export { Trace } from './trace.js';
export type * from './types.js';

/** Every scenario: a firing sequence and a near miss per rule id. */
export const scenarios: readonly Scenario[] = [
  ...spScenarios,
  ...catalogueV2SpScenarios,
  ...dfScenarios,
  ...catalogueV2DfScenarios,
  ...belemScenarios,
  ...catalogueV2BelemScenarios,
];

export function findScenario(name: string): Scenario | undefined {
  return scenarios.find((s) => s.name === name);
}
