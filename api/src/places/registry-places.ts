import { type Bus, packs } from '@vigia/core';
import type { Database } from '@vigia/db';
import { loadRegistry } from '@vigia/ingest';
import { bboxOfArea, type InMemoryRegistry, zoneKinds } from '@vigia/rules';
import type { Logger } from 'pino';

export interface PlaceHit {
  kind: 'stop' | 'stand' | 'zone';
  id: string;
  name: string;
  /** Metres from the point: to a stop's position, to a stand's area (0 inside), 0 for a zone. */
  distanceM: number;
}

/** The registry collections whose change makes the places index stale. */
const placeCollections = new Set(['stops', 'stands', 'zones']);

function boxAreaDeg2(box: readonly [number, number, number, number]): number {
  return (box[2] - box[0]) * (box[3] - box[1]);
}

/**
 * The registered place at a point (README.md "Which place"): the nearest stop or stand within
 * `nearM` metres, else the smallest registered zone containing the point. Answered by the rule
 * engine's own registry (the registry history as the live rules load it, with its KD-tree and
 * R-trees), so "at stand X" means what it means to the rules: the same containment and margins.
 * Built on first use and again after a `registry-changed` for stops, stands or zones, or a `bus-resumed`.
 */
export class RegistryPlaces {
  private registry: Promise<InMemoryRegistry> | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: { db: Database; bus: Bus; log: Logger; nearM: number }) {
    this.unsubscribe = deps.bus.subscribe((m) => {
      // After a bus outage a change of places may have been lost: rebuilt on next use all the same.
      if (m.type === 'bus-resumed' || (m.type === 'registry-changed' && placeCollections.has(m.collection))) {
        this.registry = undefined;
      }
    });
  }

  async at(lat: number, lon: number, atMs: number = Date.now()): Promise<PlaceHit | null> {
    const registry = await this.current();
    const { nearM } = this.deps;
    const near: PlaceHit[] = registry
      .stopsWithin(lat, lon, nearM, atMs)
      .slice(0, 1)
      .map(({ stop, distanceM }) => ({ kind: 'stop', id: stop.id, name: stop.name, distanceM }));
    for (const pack of packs) {
      const stand = registry.standsAt(lat, lon, atMs, pack, nearM)[0];
      if (stand) near.push({ kind: 'stand', id: stand.stand.id, name: stand.stand.name, distanceM: stand.distanceM });
    }
    const nearest = near.sort((a, b) => a.distanceM - b.distanceM)[0];
    if (nearest) return { ...nearest, distanceM: Math.round(nearest.distanceM * 10) / 10 };
    // Zones are wide (an airport, a speed-limit stretch): the most specific, the smallest, names the place.
    const zones = packs
      .flatMap((pack) => registry.zonesAt(lat, lon, atMs, pack, zoneKinds))
      .sort((a, b) => boxAreaDeg2(bboxOfArea(a.zone.geometry)) - boxAreaDeg2(bboxOfArea(b.zone.geometry)));
    const zone = zones[0]?.zone;
    return zone ? { kind: 'zone', id: zone.id, name: zone.name, distanceM: 0 } : null;
  }

  close(): void {
    this.unsubscribe();
  }

  private current(): Promise<InMemoryRegistry> {
    if (this.registry) return this.registry;
    const loading = loadRegistry(this.deps.db, this.deps.log)
      .then(({ registry }) => registry)
      .catch((err: unknown) => {
        // Not cached: the next lookup tries again.
        if (this.registry === loading) this.registry = undefined;
        throw err;
      });
    this.registry = loading;
    return loading;
  }
}
