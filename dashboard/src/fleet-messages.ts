import { defineMessages } from './i18n.js';

/**
 * The fleet's words: packs, taxímetro states, the legend's statuses, the fleet panel and the
 * vehicle popup. "Livre/ocupado" and "Bandeira I/II" are the taxímetro's own words in Brazil.
 */
export const fleetMessages = defineMessages({
  'pt-BR': {
    packs: {
      'df-taxi': 'Táxi · Distrito Federal',
      'belem-taxi': 'Táxi · Belém',
      'sp-fretamento': 'Fretamento · São Paulo',
    } as Record<string, string>,
    meter: {
      free: 'Livre',
      hired: 'Ocupado',
      stopped: 'Ocupado, em espera',
      off: 'Desligado',
    } as Record<string, string>,
    meterWithTariff: (state: string, tariff: 1 | 2) => `${state} · Bandeira ${tariff === 2 ? 'II' : 'I'}`,
    speed: (kmh: number) => `${kmh} km/h`,
    passengersTerm: 'Passageiros (sem o motorista)',
    statuses: {
      free: { label: 'Táxi livre', description: 'Taxímetro livre, disponível para corrida' },
      'hired-1': { label: 'Ocupado · Bandeira I', description: 'Taxímetro ocupado na tarifa 1' },
      'hired-2': { label: 'Ocupado · Bandeira II', description: 'Taxímetro ocupado na tarifa 2' },
      charter: { label: 'Ônibus de fretamento', description: 'Fretamento (contínuo ou eventual)' },
      other: { label: 'Taxímetro desligado / outro', description: 'Táxi com o taxímetro desligado, ou particular' },
      offline: { label: 'Sem sinal', description: 'Nenhuma posição dentro da janela de sinal' },
    },
    panel: {
      fleet: 'Frota',
      vehicles: 'Veículos',
      online: 'Com sinal',
      legend: 'Legenda',
      byStatus: 'Veículos por situação',
      offlineFootnote: (window: string) => `Sem sinal: nenhuma posição recebida há mais de ${window}.`,
      window: (amount: number, unit: 's' | 'min') => `${amount} ${unit}`,
    },
    popup: {
      pack: 'Regulamento',
      speed: 'Velocidade',
      meter: 'Taxímetro',
      passengersOfCapacity: (term: string) => `${term} / lotação`,
      lastSeen: 'Última posição',
      never: 'nunca',
      lastSeenValue: (time: string, zone: string, ago: string) => `${time} ${zone} (${ago})`,
      openViolations: (count: number) => `Infrações em aberto (${count})`,
      more: (count: number) => `e mais ${count} no painel de infrações`,
      noOperator: 'Sem operadora',
    },
  },
  en: {
    packs: {
      'df-taxi': 'Taxi · Distrito Federal',
      'belem-taxi': 'Taxi · Belém',
      'sp-fretamento': 'Charter · São Paulo',
    },
    meter: {
      free: 'Free',
      hired: 'Hired',
      stopped: 'Hired, paused',
      off: 'Off',
    },
    meterWithTariff: (state: string, tariff: 1 | 2) => `${state} · Bandeira ${tariff === 2 ? 'II' : 'I'}`,
    speed: (kmh: number) => `${kmh} km/h`,
    passengersTerm: 'Passengers (driver excluded)',
    statuses: {
      free: { label: 'Taxi free', description: 'Meter free, available for hire' },
      'hired-1': { label: 'Hired · Bandeira I', description: 'Meter running on tariff 1' },
      'hired-2': { label: 'Hired · Bandeira II', description: 'Meter running on tariff 2' },
      charter: { label: 'Charter bus', description: 'Fretamento (contínuo or eventual)' },
      other: { label: 'Meter off / other', description: 'Taxi with the meter off, or private' },
      offline: { label: 'Offline', description: 'No sample within the offline window' },
    },
    panel: {
      fleet: 'Fleet',
      vehicles: 'Vehicles',
      online: 'Online',
      legend: 'Legend',
      byStatus: 'Vehicles by status',
      offlineFootnote: (window: string) => `Offline: no position received for more than ${window}.`,
      window: (amount: number, unit: 's' | 'min') => `${amount} ${unit}`,
    },
    popup: {
      pack: 'Pack',
      speed: 'Speed',
      meter: 'Meter',
      passengersOfCapacity: (term: string) => `${term} / capacity`,
      lastSeen: 'Last seen',
      never: 'never',
      lastSeenValue: (time: string, zone: string, ago: string) => `${time} ${zone} (${ago})`,
      openViolations: (count: number) => `Open violations (${count})`,
      more: (count: number) => `and ${count} more in the feed`,
      noOperator: 'No operator',
    },
  },
});
