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

/** The driver page (`/driver`): a taxi's phone, opened with the token of one of its devices. */
export const driverMessages = {
  title: 'Vigia · Motorista',
  tokenTitle: 'Conectar este celular ao táxi',
  tokenLabel: 'Token do dispositivo',
  tokenHint:
    'Cole o token de um dispositivo do seu táxi, fornecido pela cooperativa, ou abra o link (ou QR code) /driver#token=… que ela enviou. Ele fica guardado neste celular.',
  tokenAsk: 'Informe o token do dispositivo do táxi para receber corridas.',
  tokenRefused: 'O servidor recusou este token. Peça à cooperativa o token de um dispositivo do seu táxi.',
  tokenSubmit: 'Conectar',
  forgetToken: 'Trocar token',
  vehicle: (vehicleId: string) => `Táxi ${vehicleId}`,
  connecting: 'Conectando…',
  online: 'Conectado',
  reconnecting: 'Sem conexão com a central: tentando de novo…',
  offline: 'Sem internet. As corridas não chegam até a conexão voltar; as posições ficam guardadas.',
  waiting: 'Aguardando corridas',
  waitingHint: 'Mantenha esta tela aberta. Uma nova corrida toca um som e vibra.',
  offerTitle: 'Nova corrida',
  pickup: 'Embarque',
  dropoff: 'Destino',
  noAddress: (lat: number, lon: number) => `${lat.toFixed(5)}, ${lon.toFixed(5)} (sem endereço)`,
  distance: 'Distância',
  eta: 'Chegada em',
  passengers: (count: number) => (count === 1 ? '1 passageiro' : `${count} passageiros`),
  notes: 'Observações',
  secondsLeft: 'segundos para responder',
  accept: 'Aceitar',
  decline: 'Recusar',
  sending: 'Enviando…',
  offerGone: 'Esta corrida não está mais disponível.',
  offerClosed: {
    accepted: 'Corrida aceita.',
    declined: 'Corrida recusada.',
    expired: 'O tempo para responder acabou.',
    withdrawn: 'A central retirou esta corrida.',
  },
  answerFailed: (message: string) => `Não foi possível enviar a resposta: ${message}`,
  bookingTitle: 'Corrida em andamento',
  bookingStatus: {
    accepted: 'A caminho do embarque',
    arrived: 'No local de embarque',
    'on-board': 'Passageiro a bordo',
    completed: 'Corrida concluída',
    cancelled: 'Corrida cancelada',
  },
  bookingDone: 'Voltar a aguardar corridas',
  trackerTitle: 'Rastreador',
  trackerToggle: 'Usar este celular como rastreador',
  trackerOn: (pending: number) =>
    pending === 0 ? 'Enviando a posição.' : `Enviando a posição (${pending} aguardando envio).`,
  trackerWaitingFix: 'Aguardando o GPS…',
  trackerDenied: 'A localização foi negada ou não está disponível neste navegador.',
  trackerInsecure: 'O rastreador precisa de uma conexão segura (https).',
  trackerRefused: (message: string) => `O servidor recusou posições: ${message}`,
  meterTitle: 'Taxímetro',
  meterFree: 'Livre',
  meterHired: 'Ocupado',
  meters: (metres: number) =>
    metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(1).replace('.', ',')} km`,
  minutes: (seconds: number) => (seconds < 60 ? 'menos de 1 min' : `${Math.round(seconds / 60)} min`),
  unknown: '—',
} as const;
