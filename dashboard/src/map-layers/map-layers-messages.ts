import { defineMessages } from '../i18n.js';

/**
 * The map's own words: the layer switcher, the reference places' labels and popups, and the
 * notices where the built-in map has no streets. "Ponto de táxi" is the legal term for a taxi
 * stand; "Bandeira II" is the taxímetro's second tariff, charged inside signed areas.
 */
export const mapLayersMessages = defineMessages({
  'pt-BR': {
    allAreas: 'Todas as áreas',
    control: {
      title: 'Camadas do mapa',
      layers: {
        zones: 'Zonas (aeroporto, Bandeira II, velocidade, sem pavimento)',
        stands: 'Pontos de táxi (vagas e fila)',
        stops: 'Paradas de ônibus',
      },
      stopsZoomHint: 'Aproxime o mapa para ver as paradas',
    },
    zoneKinds: {
      airport: 'Aeroporto',
      'bandeira2-signed': 'Área sinalizada de Bandeira II',
      'speed-limit': 'Limite de velocidade',
      unpaved: 'Via sem pavimento',
    } as Record<string, string>,
    zoneOther: 'Zona',
    speedLimit: (kmh: number) => `Limite: ${kmh} km/h`,
    standLabel: (name: string, places: number) => `${name} · ${places} ${places === 1 ? 'vaga' : 'vagas'}`,
    standKinds: { fixo: 'Ponto fixo', livre: 'Ponto livre' } as Record<string, string>,
    places: (places: number) => `${places} ${places === 1 ? 'vaga' : 'vagas'}`,
    queueTitle: 'Fila do ponto',
    queueEmpty: 'Nenhum táxi na fila',
    queueLoading: 'Carregando a fila…',
    queueFailed: 'Não foi possível ler a fila',
    queueEntry: (position: number, waited: string) => `${position}º · espera ${waited}`,
    stop: 'Parada de ônibus',
    loadFailed: (what: string) => `Não foi possível carregar: ${what}`,
    coverage: {
      none: (area: string) => `Sem dados de ruas para ${area}`,
      partial: (area: string) => `Ruas só no centro de ${area}`,
    },
  },
  en: {
    allAreas: 'All areas',
    control: {
      title: 'Map layers',
      layers: {
        zones: 'Zones (airport, Bandeira II, speed, unpaved)',
        stands: 'Taxi stands (places and queue)',
        stops: 'Bus stops',
      },
      stopsZoomHint: 'Zoom in to see the stops',
    },
    zoneKinds: {
      airport: 'Airport',
      'bandeira2-signed': 'Signed Bandeira II area',
      'speed-limit': 'Speed limit',
      unpaved: 'Unpaved road',
    } as Record<string, string>,
    zoneOther: 'Zone',
    speedLimit: (kmh: number) => `Limit: ${kmh} km/h`,
    standLabel: (name: string, places: number) => `${name} · ${places} ${places === 1 ? 'place' : 'places'}`,
    standKinds: { fixo: 'Fixed stand (ponto fixo)', livre: 'Open stand (ponto livre)' } as Record<string, string>,
    places: (places: number) => `${places} ${places === 1 ? 'place' : 'places'}`,
    queueTitle: 'Stand queue',
    queueEmpty: 'No taxi in the queue',
    queueLoading: 'Loading the queue…',
    queueFailed: 'The queue could not be read',
    queueEntry: (position: number, waited: string) => `#${position} · waiting ${waited}`,
    stop: 'Bus stop',
    loadFailed: (what: string) => `Could not load: ${what}`,
    coverage: {
      none: (area: string) => `No street data for ${area}`,
      partial: (area: string) => `Streets only in central ${area}`,
    },
  },
});
