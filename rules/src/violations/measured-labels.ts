/**
 * What each measured value of a violation is called, in Brazilian Portuguese (the language of the
 * notice and of the export a regulator's staff read) and in English. Rules name their measured
 * values with the unit in the key (`distanceToStopM`, `dwellSeconds`, `speedKmh`, `excessCents`),
 * so a label is the quantity and the unit in brackets. One catalogue for every document that
 * prints them (the enforcement notice PDF, the violations CSV): a key not in it is printed as the
 * key itself, with its unit, never dropped.
 */
export type MeasuredLabelLocale = 'pt-BR' | 'en';

type Label = Readonly<Record<MeasuredLabelLocale, string>>;
const l = (pt: string, en: string): Label => ({ 'pt-BR': pt, en });

const labels: Readonly<Record<string, Label>> = {
  // Places, distances and stretches.
  stopId: l('Parada', 'Stop'),
  stopSource: l('Origem do cadastro da parada', 'Stop register'),
  distanceToStopM: l('Distância à parada (m)', 'Distance to the stop (m)'),
  stopRadiusM: l('Raio da parada (m)', 'Stop radius (m)'),
  distinctStops: l('Paradas distintas', 'Distinct stops'),
  confirmedDistinctStops: l('Paradas distintas com embarque confirmado', 'Distinct stops with confirmed boardings'),
  minDistinctStops: l('Mínimo de paradas distintas', 'Minimum distinct stops'),
  distanceDrivenOffRouteM: l('Distância percorrida fora do itinerário (m)', 'Distance driven off the route (m)'),
  maxDistanceFromRouteM: l('Maior distância do itinerário (m)', 'Farthest from the route (m)'),
  distanceToNearestBoardingPlaceM: l(
    'Distância ao local de embarque declarado mais próximo (m)',
    'Distance to the nearest declared boarding place (m)',
  ),
  nearestDeclaredBoardingPlace: l('Local de embarque declarado mais próximo', 'Nearest declared boarding place'),
  offRouteSeconds: l('Tempo fora do itinerário (s)', 'Time off the route (s)'),
  thresholdM: l('Limite (m)', 'Threshold (m)'),
  tripMetres: l('Distância da corrida (m)', 'Trip distance (m)'),
  straightLineMetres: l('Distância em linha reta (m)', 'Straight-line distance (m)'),
  extraMetres: l('Distância a mais (m)', 'Extra distance (m)'),
  ratio: l('Razão percorrido / linha reta', 'Driven / straight-line ratio'),
  tariff1Metres: l('Distância em Bandeira I (m)', 'Distance at Bandeira I (m)'),
  tariff2Metres: l('Distância em Bandeira II (m)', 'Distance at Bandeira II (m)'),
  tariff2Seconds: l('Tempo em Bandeira II (s)', 'Time at Bandeira II (s)'),
  unknownTariffMetres: l('Distância com bandeira desconhecida (m)', 'Distance with unknown tariff (m)'),
  tripStartedAtAirport: l('Corrida iniciada no aeroporto', 'Trip started at the airport'),
  tripEndedAtAirport: l('Corrida encerrada no aeroporto', 'Trip ended at the airport'),
  tripId: l('Corrida (taxímetro)', 'Trip (meter)'),
  // Dwells, boardings and passengers.
  dwellSeconds: l('Tempo parado (s)', 'Dwell (s)'),
  dwellMaxSpeedKmh: l('Velocidade máxima na parada (km/h)', 'Top speed while dwelling (km/h)'),
  dwellMinSeconds: l('Tempo parado mínimo (s)', 'Minimum dwell (s)'),
  boardings: l('Embarques', 'Boardings'),
  confirmedBoardings: l('Embarques confirmados', 'Confirmed boardings'),
  suspectedBoardingsNotCounted: l('Embarques suspeitos não contados', 'Suspected boardings not counted'),
  boardingEvidence: l('Evidência do embarque', 'Boarding evidence'),
  doorOpened: l('Porta aberta', 'Door opened'),
  passengersBefore: l('Passageiros antes', 'Passengers before'),
  passengersAfter: l('Passageiros depois', 'Passengers after'),
  passengersMax: l('Máximo de passageiros (sem o motorista)', 'Most passengers (driver excluded)'),
  permittedPassengers: l('Passageiros permitidos (sem o motorista)', 'Permitted passengers (driver excluded)'),
  capacity: l('Lotação (lugares de passageiros)', 'Capacity (passenger places)'),
  overLimit: l('Acima do limite', 'Over the limit'),
  loadEvidence: l('Evidência da lotação', 'Load evidence'),
  // Speeds and the tachograph.
  speedKmh: l('Velocidade (km/h)', 'Speed (km/h)'),
  maxSpeedKmh: l('Velocidade máxima (km/h)', 'Top speed (km/h)'),
  limitKmh: l('Limite de velocidade (km/h)', 'Speed limit (km/h)'),
  limitSource: l('Origem do limite', 'Limit from'),
  zoneId: l('Zona', 'Zone'),
  toleranceKmh: l('Tolerância (km/h)', 'Tolerance (km/h)'),
  thresholdKmh: l('Velocidade considerada (km/h)', 'Threshold (km/h)'),
  seconds: l('Duração (s)', 'Duration (s)'),
  maxRatio: l('Maior diferença tacógrafo / GPS', 'Largest tachograph / GPS difference'),
  // Meter and fares.
  tariff: l('Bandeira (tarifa)', 'Tariff (bandeira)'),
  meterState: l('Estado do taxímetro', 'Meter state'),
  fareCents: l('Valor no taxímetro (centavos)', 'Meter fare (centavos)'),
  meterFareCents: l('Valor no taxímetro (centavos)', 'Meter fare (centavos)'),
  recomputedFareCents: l('Tarifa recalculada (centavos)', 'Recomputed fare (centavos)'),
  recomputedWithMaxBaggageCents: l(
    'Tarifa recalculada com bagagem máxima (centavos)',
    'Recomputed fare with most baggage (centavos)',
  ),
  excessCents: l('Excesso cobrado (centavos)', 'Overcharge (centavos)'),
  overchargeEstimateCents: l('Excesso estimado (centavos)', 'Estimated overcharge (centavos)'),
  toleranceCents: l('Tolerância (centavos)', 'Tolerance (centavos)'),
  // Stands and queues.
  standKind: l('Tipo de ponto', 'Stand kind'),
  places: l('Vagas do ponto', 'Stand places'),
  queueSnapshot: l('Fila no momento', 'Queue at the time'),
  jumpedOver: l('Táxis preteridos', 'Taxis jumped'),
  hiredAt: l('Contratado em', 'Hired at'),
  hiredVia: l('Contratado por', 'Hired through'),
  waitingSeconds: l('Tempo de espera (s)', 'Waiting (s)'),
  longestWaitS: l('Maior espera (s)', 'Longest wait (s)'),
  abandonedSeconds: l('Tempo abandonado (s)', 'Left unattended (s)'),
  // Registry facts: documents, drivers, operators.
  permitNumber: l('Nº da permissão / autorização', 'Permit number'),
  permitStatus: l('Situação da permissão', 'Permit status'),
  permitValidUntil: l('Validade da permissão', 'Permit valid until'),
  matriculaValidUntil: l('Validade da matrícula', 'Matrícula valid until'),
  divValidUntil: l('Validade do D.I.V.', 'D.I.V. valid until'),
  badgeValidUntil: l('Validade do crachá', 'Badge valid until'),
  lastInspectionDate: l('Última vistoria', 'Last vistoria'),
  inspectionValidUntil: l('Validade da vistoria', 'Vistoria valid until'),
  dueDate: l('Vencimento', 'Due date'),
  dueBasis: l('Base do vencimento', 'Due date from'),
  periodMonths: l('Periodicidade (meses)', 'Period (months)'),
  daysOverdue: l('Dias em atraso', 'Days overdue'),
  graceDays: l('Dias de carência', 'Grace days'),
  manufactureYear: l('Ano de fabricação', 'Manufacture year'),
  modelYear: l('Ano do modelo', 'Model year'),
  ageYears: l('Idade (anos)', 'Age (years)'),
  maxAgeYears: l('Idade máxima (anos)', 'Age limit (years)'),
  driverId: l('Condutor', 'Driver'),
  driverStatus: l('Situação do condutor', 'Driver status'),
  driverEmployerId: l('Empregador do condutor', "Driver's employer"),
  registeredDrivers: l('Condutores cadastrados', 'Registered drivers'),
  operatorId: l('Autorizatário / empresa', 'Operator'),
  operatorStatus: l('Situação do autorizatário', 'Operator status'),
  vehicleStatus: l('Situação do veículo', 'Vehicle status'),
  vehicleOperatorId: l('Empresa do veículo', "Vehicle's operator"),
  contractId: l('Contrato', 'Contract'),
  radioOperatorId: l('Radiotáxi', 'Radio operator'),
  credentialValidUntil: l('Validade do credenciamento', 'Credential valid until'),
  vehicleDeclared: l('Veículo declarado pelo radiotáxi', 'Vehicle declared by the radio operator'),
  lastOperatingDate: l('Último dia em operação', 'Last operating day'),
  basis: l('Fundamento', 'Basis'),
};

/** Units read off the end of a key, longest first (`Kmh` before `M`, `Seconds` before `S`). */
const unitSuffixes: readonly (readonly [suffix: string, unit: string])[] = [
  ['Seconds', 's'],
  ['Metres', 'm'],
  ['Cents', 'centavos'],
  ['Kmh', 'km/h'],
  ['Brl', 'R$'],
  ['Pct', '%'],
  ['Min', 'min'],
  ['Deg', '°'],
  ['Km', 'km'],
  ['Ms', 'ms'],
  ['M', 'm'],
  ['S', 's'],
];

/** The label of a measured value's key: from the catalogue, else the key with its unit in brackets. */
export function measuredLabel(key: string, locale: MeasuredLabelLocale = 'pt-BR'): string {
  const known = labels[key];
  if (known) return known[locale];
  const unit = unitSuffixes.find(([suffix]) => key.length > suffix.length && key.endsWith(suffix));
  return unit ? `${key} (${unit[1]})` : key;
}

/** Whether the catalogue names the key (the rest print as the key itself). */
export function hasMeasuredLabel(key: string): boolean {
  return key in labels;
}
