import { defineMessages } from './i18n.js';

/** The field view (`#field`): an enforcement agent's phone, near the violations around them. */
export const fieldMessages = defineMessages({
  'pt-BR': {
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
      minutes < 1
        ? 'agora'
        : minutes < 60
          ? `há ${minutes} min`
          : `há ${Math.floor(minutes / 60)} h ${minutes % 60} min`,
    status: { open: 'Aberta', confirmed: 'Confirmada', dismissed: 'Descartada', notified: 'Autuada' } as Record<
      string,
      string
    >,
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
    timedOut: 'tempo esgotado',
    /** Compass points as Brazilian maps write them (L for leste, O for oeste). */
    compassPoints: ['N', 'NE', 'L', 'SE', 'S', 'SO', 'O', 'NO'],
  },
  en: {
    title: 'Field',
    openField: 'Field mode',
    openDesk: 'Full desk',
    placeHeading: 'Where you are',
    useMyLocation: 'My location',
    pickOnMap: 'Pick on the map',
    pickHint: 'Tap the map to choose the reference point.',
    radiusLabel: 'Radius',
    radiusOption: (radius: string) => `within ${radius}`,
    enableAlerts: 'Turn on alerts (sound and notification)',
    alertsOn: 'Alerts on',
    alertsBlocked: 'Notifications are blocked in this browser; the sound and the on-screen banner still work.',
    alertsUnsupported: 'This browser shows no notifications; the sound and the on-screen banner still work.',
    noPlace: 'Choose a reference point: your location, a tap on the map or a city.',
    locating: 'Getting your location…',
    locationDenied: 'Location was denied or is unavailable. Pick a point on the map or a city.',
    placeGps: (accuracyM: number) => `Your position (±${Math.round(accuracyM)} m)`,
    placeMap: 'Point picked on the map',
    placeCity: (city: string) => `Centre of ${city}`,
    nothingNear: (radius: string) => `No open violation within ${radius}.`,
    listCount: (count: number, radius: string) =>
      count === 1 ? `1 violation within ${radius}` : `${count} violations within ${radius}`,
    noPosition: 'No position',
    livePosition: 'live position',
    recordedPosition: 'where the violation was',
    ago: (minutes: number) =>
      minutes < 1
        ? 'just now'
        : minutes < 60
          ? `${minutes} min ago`
          : `${Math.floor(minutes / 60)} h ${minutes % 60} min ago`,
    status: { open: 'Open', confirmed: 'Confirmed', dismissed: 'Dismissed', notified: 'Notified' },
    goThere: (distance: string, bearing: string) => `Go there: ${distance} to the ${bearing}`,
    showBoth: 'Show you and the vehicle',
    straightLine: 'A straight line on the map, not a route: follow the streets.',
    confirm: 'Confirm',
    dismiss: 'Dismiss',
    notify: 'Notice (PDF)',
    reasonPrompt: (action: string) => `${action}: reason (kept in the review trail)`,
    reasonTooShort: 'Give a reason of at least 3 characters.',
    recorded: (action: string) => `${action}: recorded.`,
    sending: 'Sending…',
    refused: (message: string) => `The server refused: ${message}`,
    noticeOpening: 'Opening the enforcement notice…',
    noticeFailed: (message: string) => `Could not open the enforcement notice: ${message}`,
    notSignedIn: 'Not signed in.',
    arrivalTitle: 'New violation near you',
    arrivalBody: (distance: string, bearing: string, plate: string, description: string) =>
      `${distance} away (${bearing}): ${plate} — ${description}`,
    view: 'View',
    closeBanner: 'Close banner',
    unknownPlate: 'no plate',
    timedOut: 'timed out',
    compassPoints: ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'],
  },
});

/** The eight compass points, from north clockwise. */
export const compassPoints = fieldMessages.compassPoints;
