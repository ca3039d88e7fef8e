import { defineMessages } from './i18n.js';

/**
 * Where a point is, as the popups' first line says it: the street from the offline map's data
 * (OpenStreetMap), then the registered place. "Ponto de táxi" is the legal term for a taxi stand;
 * "parada" is a stop of a regular bus service (GTFS). Coordinates stay in the decimal-point form
 * every map and GPS reads, in both languages: a comma decimal would be ambiguous between the two.
 */
export const addressMessages = defineMessages({
  'pt-BR': {
    /** Brasília's streets are in the data without names. */
    unnamedStreet: 'via sem nome',
    noStreet: 'sem rua conhecida por perto',
    /** Belém has no street data at all, São Paulo and Brasília only their centres (public/basemap/SOURCES.md). */
    noStreetData: (area: string) => `${area}: sem dados de ruas aqui`,
    /** A street farther than a few metres: how far, so a point off the road is not read as on it. */
    streetAt: (street: string, distance: string) => `${street} (a ${distance})`,
    placeKinds: { stop: 'parada', stand: 'ponto de táxi', zone: 'zona' } as Record<string, string>,
    place: (name: string, kind: string, distance: string | null) =>
      distance === null ? `${name} (${kind})` : `${name} (${kind}, a ${distance})`,
    line: (street: string, place: string | null) => (place === null ? street : `${street} · ${place}`),
    coordinates: (lat: number, lon: number) => `${lat.toFixed(5)}, ${lon.toFixed(5)}`,
    looking: 'buscando endereço…',
    unavailable: 'endereço indisponível',
    /** Tooltip of the address block. */
    source: 'Rua mais próxima nos dados do mapa (© colaboradores do OpenStreetMap) e local cadastrado',
  },
  en: {
    unnamedStreet: 'unnamed street',
    noStreet: 'no known street nearby',
    noStreetData: (area: string) => `${area}: no street data here`,
    streetAt: (street: string, distance: string) => `${street} (${distance} away)`,
    placeKinds: { stop: 'stop', stand: 'taxi stand', zone: 'zone' },
    place: (name: string, kind: string, distance: string | null) =>
      distance === null ? `${name} (${kind})` : `${name} (${kind}, ${distance} away)`,
    line: (street: string, place: string | null) => (place === null ? street : `${street} · ${place}`),
    coordinates: (lat: number, lon: number) => `${lat.toFixed(5)}, ${lon.toFixed(5)}`,
    looking: 'looking up the address…',
    unavailable: 'address unavailable',
    source: "Nearest street in the map's data (© OpenStreetMap contributors) and registered place",
  },
});
