import type { Pack } from '@vigia/core';
import { belem } from './belem.js';
import { brasilia } from './brasilia.js';
import { RoadGraph } from './graph.js';
import { saoPaulo } from './sao-paulo.js';
import type { CityDef } from './types.js';

export const CITIES: Readonly<Record<Pack, CityDef>> = {
  'df-taxi': brasilia,
  'belem-taxi': belem,
  'sp-fretamento': saoPaulo,
};

const graphs = new Map<Pack, RoadGraph>();

/** The routing graph of a pack's city, built once per process (it is immutable). */
export function cityGraph(pack: Pack): RoadGraph {
  let g = graphs.get(pack);
  if (!g) {
    g = RoadGraph.build(CITIES[pack]);
    graphs.set(pack, g);
  }
  return g;
}
