import { createRuleEngine, type RuleEngine } from '../../src/engine/rule-engine.js';
import { createInMemoryRegistry } from '../../src/registry/in-memory-registry.js';
import { baseOperators, taxi } from './fixtures.js';

/** Where the stand tests place their stands. */
export const DF_STAND = { lat: -15.7975, lon: -47.8919 };
export const BEL_LIVRE = { lat: -1.451, lon: -48.487 };

/** An engine with one DF *ponto livre* of 4 places (30 m around DF_STAND) and the given taxis. */
export function dfStandEngine(taxiIds: readonly string[]): RuleEngine {
  return createRuleEngine({
    registry: createInMemoryRegistry({
      operators: baseOperators,
      vehicles: taxiIds.map((id) => taxi(id, 'df-taxi')),
      stands: [
        {
          id: 'ST-1',
          pack: 'df-taxi',
          name: 'Ponto Setor Hoteleiro Sul',
          geometry: { type: 'Point', coordinates: [DF_STAND.lon, DF_STAND.lat] },
          radiusM: 30,
          places: 4,
          kind: 'livre',
        },
      ],
    }),
  });
}
