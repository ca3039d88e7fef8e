import { stringify } from 'csv-stringify/sync';
import { csvWriteOptions } from '../violations/violation-csv.js';

/**
 * The analytics CSV exports: one table per route, headers from this catalogue (Brazilian
 * Portuguese first, English with `lang=en`), periods as the LOCAL labels of the JSON answer in
 * the zone each header names. Numbers stay numbers (a spreadsheet sums them); text is neutralised
 * against formula injection by the shared writer (violation-csv.ts).
 */
export type CsvLang = 'pt-BR' | 'en';

const headersPtBr = {
  period: 'Período (hora local de {tz})',
  day: 'Dia (hora local de {tz})',
  hour: 'Hora (hora local de {tz})',
  month: 'Mês (hora local de {tz})',
  fleet: 'Frota',
  sampledVehicles: 'Veículos na amostra',
  sampleShare: 'Fração da frota na amostra',
  sampleSufficient: 'Amostra mínima de 5 % atingida',
  observedS: 'Tempo observado (s)',
  hiredS: 'Tempo ocupado (s)',
  timeShare: 'Índice de ocupação por tempo',
  distanceM: 'Distância (m)',
  hiredDistanceM: 'Distância ocupado (m)',
  distanceShare: 'Índice de ocupação por distância',
  population: 'População',
  populationSource: 'Fonte da população',
  allowedTaxis: 'Táxis admitidos (1 por 500 habitantes)',
  authorizedTaxis: 'Táxis autorizados',
  activeTaxis: 'Táxis em atividade',
  inhabitantsPerAuthorizedTaxi: 'Habitantes por táxi autorizado',
  inhabitantsPerActiveTaxi: 'Habitantes por táxi em atividade',
  surplus: 'Excedente',
  overLimit: 'Acima do limite',
  operatorId: 'Operador',
  name: 'Nome',
  kind: 'Tipo',
  legalPerson: 'Pessoa jurídica',
  authorizations: 'Autorizações',
  share: 'Fração das autorizações',
  overCap: 'Acima do limite de 10 %',
  drivenS: 'Horas dirigidas (s)',
  movingS: 'Tempo em movimento (s)',
  bandeira2HiredS: 'Tempo ocupado em Bandeira II (s)',
  bandeira2Share: 'Fração em Bandeira II',
  bandeira2HiredDistanceM: 'Distância em Bandeira II (m)',
  violations: 'Infrações',
  violationsByRule: 'Infrações por regra',
  h3: 'Célula H3',
  lat: 'Latitude',
  lon: 'Longitude',
  count: 'Infrações na célula',
  total: 'total',
  legalPersons: 'pessoas jurídicas (total)',
};
export type CsvColumn = keyof typeof headersPtBr;

const headersEn: Record<CsvColumn, string> = {
  period: 'Period (local time in {tz})',
  day: 'Day (local time in {tz})',
  hour: 'Hour (local time in {tz})',
  month: 'Month (local time in {tz})',
  fleet: 'Fleet',
  sampledVehicles: 'Sampled vehicles',
  sampleShare: 'Share of the fleet sampled',
  sampleSufficient: '5 % minimum sample reached',
  observedS: 'Time observed (s)',
  hiredS: 'Time hired (s)',
  timeShare: 'Occupancy index by time',
  distanceM: 'Distance (m)',
  hiredDistanceM: 'Distance hired (m)',
  distanceShare: 'Occupancy index by distance',
  population: 'Population',
  populationSource: 'Population source',
  allowedTaxis: 'Taxis allowed (1 per 500 inhabitants)',
  authorizedTaxis: 'Authorized taxis',
  activeTaxis: 'Active taxis',
  inhabitantsPerAuthorizedTaxi: 'Inhabitants per authorized taxi',
  inhabitantsPerActiveTaxi: 'Inhabitants per active taxi',
  surplus: 'Surplus',
  overLimit: 'Over the limit',
  operatorId: 'Operator',
  name: 'Name',
  kind: 'Kind',
  legalPerson: 'Legal person',
  authorizations: 'Authorizations',
  share: 'Share of authorizations',
  overCap: 'Over the 10 % cap',
  drivenS: 'Hours driven (s)',
  movingS: 'Time moving (s)',
  bandeira2HiredS: 'Time hired on Bandeira II (s)',
  bandeira2Share: 'Bandeira II share',
  bandeira2HiredDistanceM: 'Distance on Bandeira II (m)',
  violations: 'Violations',
  violationsByRule: 'Violations by rule',
  h3: 'H3 cell',
  lat: 'Latitude',
  lon: 'Longitude',
  count: 'Violations in the cell',
  total: 'total',
  legalPersons: 'legal persons (total)',
};

const catalogues: Record<CsvLang, Record<CsvColumn, string>> = { 'pt-BR': headersPtBr, en: headersEn };

/** A catalogue text (a header, or a row label such as `total`) in `lang`, `{tz}` filled in. */
export function csvText(lang: CsvLang, key: CsvColumn, timeZone: string): string {
  return catalogues[lang][key].replace('{tz}', timeZone);
}

/** A table: its columns (catalogue keys) and its rows (values in column order). */
export function analyticsCsv(
  lang: CsvLang,
  timeZone: string,
  columns: readonly CsvColumn[],
  rows: readonly (readonly unknown[])[],
): string {
  const header = columns.map((c) => csvText(lang, c, timeZone));
  return stringify(
    [header, ...rows.map((r) => r.map((v) => v ?? null))],
    csvWriteOptions as unknown as Parameters<typeof stringify>[1],
  );
}
