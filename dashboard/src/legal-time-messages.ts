import { defineMessages } from './i18n.js';

/**
 * Names of the legal time zones, as people in each city say them. Intl's own names mislead here
 * (pt-BR calls America/Belem "Horário Padrão de Brasília"): a Belém violation must read "horário de
 * Belém". A zone configured outside this list is named by its IANA id.
 */
export const legalTimeMessages = defineMessages({
  'pt-BR': {
    zoneNames: {
      'America/Sao_Paulo': 'horário de Brasília',
      'America/Belem': 'horário de Belém',
      'America/Manaus': 'horário do Amazonas',
      'America/Cuiaba': 'horário de Cuiabá',
      'America/Noronha': 'horário de Fernando de Noronha',
      'America/Rio_Branco': 'horário do Acre',
    } as Record<string, string>,
    zoneWithOffset: (name: string, offset: string) => `${name} (${offset})`,
    timeWithZone: (time: string, zone: string) => `${time} (${zone})`,
    ago: (amount: number, unit: 's' | 'min' | 'h' | 'd') => `há ${amount} ${unit}`,
  },
  en: {
    zoneNames: {
      'America/Sao_Paulo': 'Brasília time',
      'America/Belem': 'Belém time',
      'America/Manaus': 'Amazonas time',
      'America/Cuiaba': 'Cuiabá time',
      'America/Noronha': 'Fernando de Noronha time',
      'America/Rio_Branco': 'Acre time',
    },
    zoneWithOffset: (name: string, offset: string) => `${name} (${offset})`,
    timeWithZone: (time: string, zone: string) => `${time} (${zone})`,
    ago: (amount: number, unit: 's' | 'min' | 'h' | 'd') => `${amount} ${unit} ago`,
  },
});
