import { defineMessages } from './i18n.js';

/** The desk layout's alert-subscription status section. */
export const alertStatusMessages = defineMessages({
  'pt-BR': {
    heading: 'Alertas',
    failingSince: (when: string) => `Falhando desde ${when}`,
    failingHint: 'Os alertas para este destino falharam durante toda a janela de novas tentativas.',
    healthy: 'Ativo',
  },
  en: {
    heading: 'Alerts',
    failingSince: (when: string) => `Failing since ${when}`,
    failingHint: 'Alerts to this receiver have failed for the whole retry window.',
    healthy: 'Working',
  },
});
