/**
 * Text the dashboard shows, in Brazilian Portuguese. For now it holds the field view's strings
 * only; the rest of the dashboard still speaks English and moves here with its full translation.
 * Functions take what varies so word order stays the translator's choice.
 */
export const fieldMessages = {
  title: 'Campo',
  openField: 'Modo campo',
  openDesk: 'Painel completo',
  placeHeading: 'Onde você está',
  useMyLocation: 'Minha localização',
  pickOnMap: 'Escolher no mapa',
  pickHint: 'Toque no mapa para escolher o ponto de referência.',
  radiusLabel: 'Raio',
  radiusOption: (radius: string) => `até ${radius}`,
  enableAlerts: 'Ativar alertas (som e notificação)',
  alertsOn: 'Alertas ativos',
  alertsBlocked: 'Notificações bloqueadas neste navegador; o som e o aviso na tela continuam.',
  alertsUnsupported: 'Este navegador não mostra notificações; o som e o aviso na tela continuam.',
  noPlace: 'Escolha um ponto de referência: sua localização, um toque no mapa ou uma cidade.',
  locating: 'Obtendo sua localização…',
  locationDenied: 'A localização foi negada ou não está disponível. Escolha um ponto no mapa ou uma cidade.',
  placeGps: (accuracyM: number) => `Sua posição (±${Math.round(accuracyM)} m)`,
  placeMap: 'Ponto escolhido no mapa',
  placeCity: (city: string) => `Centro de ${city}`,
  nothingNear: (radius: string) => `Nenhuma infração aberta a até ${radius}.`,
  listCount: (count: number, radius: string) =>
    count === 1 ? `1 infração a até ${radius}` : `${count} infrações a até ${radius}`,
  noPosition: 'Sem posição',
  livePosition: 'posição ao vivo',
  recordedPosition: 'local da infração',
  ago: (minutes: number) =>
    minutes < 1 ? 'agora' : minutes < 60 ? `há ${minutes} min` : `há ${Math.floor(minutes / 60)} h ${minutes % 60} min`,
  status: { open: 'Aberta', confirmed: 'Confirmada', dismissed: 'Descartada', notified: 'Notificada' },
  goThere: (distance: string, bearing: string) => `Ir até lá: ${distance} a ${bearing}`,
  showBoth: 'Ver você e o veículo',
  straightLine: 'Linha reta no mapa, não é uma rota: siga pelas vias.',
  confirm: 'Confirmar',
  dismiss: 'Descartar',
  notify: 'Auto (PDF)',
  reasonPrompt: (action: string) => `${action}: motivo (fica no histórico da revisão)`,
  reasonTooShort: 'Informe um motivo com pelo menos 3 caracteres.',
  recorded: (action: string) => `${action}: registrado.`,
  sending: 'Enviando…',
  refused: (message: string) => `O servidor recusou: ${message}`,
  noticeOpening: 'Abrindo o auto de infração…',
  noticeFailed: (message: string) => `Não foi possível abrir o auto de infração: ${message}`,
  notSignedIn: 'Sessão não iniciada.',
  arrivalTitle: 'Nova infração perto de você',
  arrivalBody: (distance: string, bearing: string, plate: string, description: string) =>
    `A ${distance} (${bearing}): ${plate} — ${description}`,
  view: 'Ver',
  closeBanner: 'Fechar aviso',
  unknownPlate: 'sem placa',
} as const;

/** The desk layout's alert-subscription status section. */
export const alertStatusMessages = {
  heading: 'Alertas',
  failingSince: (when: string) => `Falhando desde ${when}`,
  failingHint: 'Os alertas para este destino falharam durante toda a janela de novas tentativas.',
  healthy: 'Ativo',
} as const;

/** Compass points as Brazilian maps write them (L for leste, O for oeste). */
export const compassPoints = ['N', 'NE', 'L', 'SE', 'S', 'SO', 'O', 'NO'] as const;
