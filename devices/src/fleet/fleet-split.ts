/** The three simulated fleets. */
export interface FleetSplit {
  dfTaxis: number;
  belemTaxis: number;
  spBuses: number;
}

/** Smallest fleet that has one vehicle of each kind. */
export const MIN_FLEET = 3;

/**
 * Roughly 40 % Brasília taxis, 30 % Belém taxis and 30 % São Paulo charter buses, at least one of
 * each: the split is what the demo map shows, so every city must have something moving.
 */
export function splitFleet(total: number): FleetSplit {
  if (!Number.isInteger(total) || total < MIN_FLEET) throw new Error(`A fleet needs at least ${MIN_FLEET} vehicles`);
  const dfTaxis = Math.max(1, Math.round(total * 0.4));
  const belemTaxis = Math.max(1, Math.round(total * 0.3));
  const spBuses = Math.max(1, total - dfTaxis - belemTaxis);
  // Rounding can overshoot by one on tiny fleets: take it from the largest share.
  const excess = dfTaxis + belemTaxis + spBuses - total;
  return { dfTaxis: dfTaxis - excess, belemTaxis, spBuses };
}
