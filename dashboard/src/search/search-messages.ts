import { defineMessages } from '../i18n.js';

/** The top bar's search box (`/` focuses it): plates, permits, operators, drivers, stops and stands. */
export const searchMessages = defineMessages({
  'pt-BR': {
    label: 'Buscar',
    placeholder: 'Buscar placa, permissão, operador, motorista, ponto…',
    shortcut: 'Tecla / para buscar',
    shortcutKey: '/',
    results: 'Resultados da busca',
    searching: 'Buscando…',
    noResults: (q: string) => `Nada encontrado para “${q}”.`,
    failed: (reason: string) => `A busca falhou: ${reason}`,
    kinds: {
      vehicle: 'Veículo',
      operator: 'Operador',
      driver: 'Motorista',
      stop: 'Parada',
      stand: 'Ponto de táxi',
    },
    noPosition: (label: string) => `${label} ainda não enviou posição.`,
    noVehiclesShown: (label: string) => `Nenhum veículo de ${label} com posição no mapa.`,
  },
  en: {
    label: 'Search',
    placeholder: 'Search plate, permit, operator, driver, stop…',
    shortcut: 'Press / to search',
    shortcutKey: '/',
    results: 'Search results',
    searching: 'Searching…',
    noResults: (q: string) => `Nothing found for “${q}”.`,
    failed: (reason: string) => `The search failed: ${reason}`,
    kinds: {
      vehicle: 'Vehicle',
      operator: 'Operator',
      driver: 'Driver',
      stop: 'Stop',
      stand: 'Taxi stand',
    },
    noPosition: (label: string) => `${label} has not sent a position yet.`,
    noVehiclesShown: (label: string) => `No vehicle of ${label} has a position on the map.`,
  },
});
