import type { Pack, ServiceType } from '@vigia/core';
import { CITIES } from '../network/cities.js';
import { Random } from '../random.js';
import { PLATE_SERIES, randomCnh, randomCnpj, randomCpf, randomMercosulPlate } from './brazilian-documents.js';
import { splitFleet } from './fleet-split.js';
import { ViceAssigner, type Vices } from './vices.js';

/**
 * The simulated fleet's registry: operators, drivers, vehicles and devices, exactly as they are
 * registered through the API. It depends only on the fleet size and the registration date — never
 * on the simulation seed — so a restart with another seed finds and re-uses the same records.
 */

export type OperatorKind = 'company' | 'cooperative' | 'permit-holder' | 'radio-operator';

export interface OperatorRecord {
  id: string;
  name: string;
  pack: Pack;
  kind: OperatorKind;
  document: string;
  /** Belém radio operators: credential expiry (Art. 42–43), YYYY-MM-DD. */
  credentialValidUntil?: string;
  /** Belém radio operators: the vehicles declared to the regulator (Art. 44 I). */
  declaredVehicleIds?: string[];
}

/** A dispatcher of the demo's radio desks: an API user scoped to the operators it takes bookings for. */
export interface DispatcherRecord {
  id: string;
  name: string;
  role: 'dispatcher';
  /** The operators it takes bookings for (the first), and whose taxis it sees (the cooperative in Belém). */
  operatorIds: string[];
}

export interface DriverRecord {
  id: string;
  name: string;
  document: string;
  licenceNumber: string;
  operatorId: string;
  /** Belém: expiry of the union identification badge (*crachá*, Art. 23 §1), current for months. */
  badgeValidUntil?: string;
}

export interface VehicleRecord {
  id: string;
  plate: string;
  pack: Pack;
  serviceType: ServiceType;
  capacity: number;
  manufactureYear: number;
  make: string;
  colour: string;
  operatorId: string;
  permitNumber: string;
  /** YYYY-MM-DD */
  permitValidUntil: string;
  lastInspectionDate: string;
  divValidUntil?: string;
  driverIds: string[];
}

export interface DeviceRecord {
  id: string;
  vehicleId: string;
  protocol: 'native';
  identifier: string;
}

export interface RosterEntry {
  vehicle: VehicleRecord;
  device: DeviceRecord;
  drivers: DriverRecord[];
  /** Charter buses: the line they run. */
  charterLineId?: string;
  /** What this vehicle's driver or operator does wrong (see vices.ts); absent: an honest vehicle. */
  vices?: Vices;
}

export interface Roster {
  operators: OperatorRecord[];
  entries: RosterEntry[];
  /** One dispatcher per operator that takes bookings: each DF cooperative, each Belém radio operator. */
  dispatchers: DispatcherRecord[];
}

/** Seed of the registry data: fixed, see above. */
const ROSTER_SEED = 'vigia-simulated-fleet-registry';

const OPERATORS: readonly Omit<OperatorRecord, 'document'>[] = [
  { id: 'sim-op-df-1', name: 'Cooperativa Candanga de Táxi (simulada)', pack: 'df-taxi', kind: 'cooperative' },
  { id: 'sim-op-df-2', name: 'Cooperativa Rádio Táxi Planalto (simulada)', pack: 'df-taxi', kind: 'cooperative' },
  { id: 'sim-op-df-3', name: 'Cooperativa Táxi Ipê (simulada)', pack: 'df-taxi', kind: 'cooperative' },
  { id: 'sim-op-bel-1', name: 'Cooperativa de Táxi Guajará (simulada)', pack: 'belem-taxi', kind: 'cooperative' },
  { id: 'sim-op-bel-2', name: 'Cooperativa Táxi Marajó (simulada)', pack: 'belem-taxi', kind: 'cooperative' },
  { id: 'sim-op-bel-3', name: 'Cooperativa Táxi Nazaré (simulada)', pack: 'belem-taxi', kind: 'cooperative' },
  { id: 'sim-op-sp-1', name: 'Fretamento Bandeirante Ltda. (simulada)', pack: 'sp-fretamento', kind: 'company' },
  {
    id: 'sim-op-sp-2',
    name: 'Trans Tietê Fretamento e Turismo Ltda. (simulada)',
    pack: 'sp-fretamento',
    kind: 'company',
  },
  {
    id: 'sim-op-sp-3',
    name: 'Viação Serra do Mar Fretamento Ltda. (simulada)',
    pack: 'sp-fretamento',
    kind: 'company',
  },
];

/**
 * Belém dispatch is lawful only through a credentialed radio operator, to the vehicles it
 * declared (Art. 42–44, BEL_UNAUTHORIZED_RADIO): each Belém cooperative's radio desk is one,
 * declaring every taxi of its cooperative. DF cooperatives dispatch their own vehicles.
 */
const RADIO_OPERATORS: readonly (Omit<OperatorRecord, 'document' | 'pack' | 'kind'> & { cooperativeId: string })[] = [
  { id: 'sim-op-bel-radio-1', name: 'Rádio Táxi Guajará (simulada)', cooperativeId: 'sim-op-bel-1' },
  { id: 'sim-op-bel-radio-2', name: 'Rádio Táxi Marajó (simulada)', cooperativeId: 'sim-op-bel-2' },
  { id: 'sim-op-bel-radio-3', name: 'Rádio Táxi Nazaré (simulada)', cooperativeId: 'sim-op-bel-3' },
];
/** A radio operator's credential follows its yearly ANATEL renewal (Art. 43): current for months. */
const RADIO_CREDENTIAL_DAYS = 300;

const FIRST_NAMES = [
  'Antônio',
  'Francisco',
  'João',
  'José',
  'Carlos',
  'Paulo',
  'Pedro',
  'Lucas',
  'Luiz',
  'Marcos',
  'Raimundo',
  'Sebastião',
  'Rafael',
  'Daniel',
  'Marcelo',
  'Bruno',
  'Eduardo',
  'Felipe',
  'Rodrigo',
  'Manoel',
  'Maria',
  'Ana',
  'Francisca',
  'Antônia',
  'Adriana',
  'Juliana',
  'Márcia',
  'Fernanda',
  'Patrícia',
  'Aline',
  'Sandra',
  'Camila',
] as const;
const SURNAMES = [
  'Silva',
  'Santos',
  'Oliveira',
  'Souza',
  'Rodrigues',
  'Ferreira',
  'Alves',
  'Pereira',
  'Lima',
  'Gomes',
  'Costa',
  'Ribeiro',
  'Martins',
  'Carvalho',
  'Almeida',
  'Lopes',
  'Soares',
  'Fernandes',
  'Vieira',
  'Barbosa',
  'Rocha',
  'Dias',
  'Nascimento',
  'Andrade',
  'Moreira',
  'Nunes',
  'Marques',
  'Machado',
  'Mendes',
  'Freitas',
  'Cardoso',
  'Ramos',
] as const;

const TAXI_MODELS = [
  'Chevrolet Spin',
  'Toyota Corolla',
  'Nissan Versa',
  'Chevrolet Cobalt',
  'Fiat Grand Siena',
  'Renault Logan',
  'Volkswagen Voyage',
  'Chevrolet Onix Plus',
  'Hyundai HB20S',
] as const;
const COACHES = [
  'Mercedes-Benz O 500 RS / Marcopolo Paradiso 1050',
  'Volvo B8R / Marcopolo Viaggio 1050',
  'Scania K 310 / Comil Campione 3.45',
  'Mercedes-Benz O 500 R / Busscar Vissta Buss 340',
  'Volvo B11R / Irizar i6',
] as const;
const COACH_COLOURS = ['Branco', 'Prata', 'Azul', 'Branco e verde', 'Branco e vermelho'] as const;

interface PackProfile {
  prefix: 'DF' | 'BEL' | 'SP';
  plateSeries: readonly (readonly [string, string])[];
  serviceType: ServiceType;
  /** Years since manufacture, inclusive range. */
  ageYears: readonly [number, number];
}

const PACK_PROFILES: Readonly<Record<Pack, PackProfile>> = {
  // DF taxis up to 12 years, with a certificate after 8 (Art. 25): the simulated fleet stays under 8.
  'df-taxi': { prefix: 'DF', plateSeries: PLATE_SERIES.DF, serviceType: 'taxi', ageYears: [0, 6] },
  // Belém: 10 years from the model year (Art. 27–28).
  'belem-taxi': { prefix: 'BEL', plateSeries: PLATE_SERIES.PA, serviceType: 'taxi', ageYears: [0, 6] },
  // SP charter: at most 15 years (Art. 5); inspection every 18 months while 5 years old or less.
  'sp-fretamento': { prefix: 'SP', plateSeries: PLATE_SERIES.SP, serviceType: 'fretamento-continuo', ageYears: [1, 9] },
};

export function buildRoster(total: number, registeredAtMs: number): Roster {
  const split = splitFleet(total);
  const rng = Random.derive(ROSTER_SEED, 'operators');
  const operators: OperatorRecord[] = OPERATORS.map((o) => ({ ...o, document: randomCnpj(rng) }));
  const plates = new Set<string>();
  const entries: RosterEntry[] = [];
  const counts: [Pack, number][] = [
    ['df-taxi', split.dfTaxis],
    ['belem-taxi', split.belemTaxis],
    ['sp-fretamento', split.spBuses],
  ];
  for (const [pack, n] of counts) {
    const packOperators = operators.filter((o) => o.pack === pack);
    const lines = CITIES[pack].charterLines ?? [];
    const assigner = new ViceAssigner(pack);
    for (let i = 1; i <= n; i++) {
      const operator = packOperators[(i - 1) % packOperators.length] as OperatorRecord;
      const line = lines.length > 0 ? lines[(i - 1) % lines.length] : undefined;
      entries.push(buildEntry(pack, i, operator, registeredAtMs, plates, line?.id, assigner));
    }
  }
  // Drawn after the fleet operators' documents, so theirs stay what they were.
  const radioOperators: OperatorRecord[] = RADIO_OPERATORS.map(({ cooperativeId, ...o }) => ({
    ...o,
    pack: 'belem-taxi',
    kind: 'radio-operator',
    document: randomCnpj(rng),
    credentialValidUntil: isoDate(registeredAtMs, RADIO_CREDENTIAL_DAYS),
    declaredVehicleIds: entries.filter((e) => e.vehicle.operatorId === cooperativeId).map((e) => e.vehicle.id),
  }));
  const cooperativeOf = new Map(RADIO_OPERATORS.map((r) => [r.id, r.cooperativeId]));
  const dispatchers: DispatcherRecord[] = [...operators.filter((o) => o.pack === 'df-taxi'), ...radioOperators].map(
    (o) => {
      const cooperative = cooperativeOf.get(o.id);
      return {
        id: `sim-usr-${o.id.replace(/^sim-op-/, '')}`,
        name: `Despacho ${o.name}`,
        role: 'dispatcher',
        operatorIds: cooperative ? [o.id, cooperative] : [o.id],
      };
    },
  );
  return { operators: [...operators, ...radioOperators], entries, dispatchers };
}

function buildEntry(
  pack: Pack,
  index: number,
  operator: OperatorRecord,
  registeredAtMs: number,
  plates: Set<string>,
  charterLineId: string | undefined,
  assigner: ViceAssigner,
): RosterEntry {
  const profile = PACK_PROFILES[pack];
  const rng = Random.derive(ROSTER_SEED, pack, index);
  const code = `${profile.prefix}-${String(index).padStart(4, '0')}`;
  const slug = code.toLowerCase();
  const vehicleId = `sim-veh-${slug}`;
  const isBus = pack === 'sp-fretamento';

  const driverCount = isBus ? rng.int(1, 2) : rng.chance(0.5) ? 2 : 1;
  const drivers: DriverRecord[] = Array.from({ length: driverCount }, (_, k) => ({
    id: `sim-drv-${slug}-${k + 1}`,
    name: `${rng.pick(FIRST_NAMES)} ${rng.pick(SURNAMES)} ${rng.pick(SURNAMES)}`,
    document: randomCpf(rng),
    licenceNumber: randomCnh(rng),
    operatorId: operator.id,
  }));
  // Belém drivers carry a current crachá (renewed yearly); drawn apart, so the rest of the roster stays as it was.
  if (pack === 'belem-taxi') {
    const badges = Random.derive(ROSTER_SEED, pack, index, 'badge');
    for (const d of drivers) d.badgeValidUntil = isoDate(registeredAtMs, badges.int(60, 330));
  }

  let plate = randomMercosulPlate(rng, profile.plateSeries);
  while (plates.has(plate)) plate = randomMercosulPlate(rng, profile.plateSeries);
  plates.add(plate);

  const registered = new Date(registeredAtMs);
  const year = registered.getUTCFullYear();
  const vehicle: VehicleRecord = {
    id: vehicleId,
    plate,
    pack,
    serviceType: profile.serviceType,
    capacity: isBus ? rng.int(44, 46) : 4,
    manufactureYear: year - rng.int(profile.ageYears[0], profile.ageYears[1]),
    make: isBus ? rng.pick(COACHES) : rng.pick(TAXI_MODELS),
    // DF and Belém taxis are white by regulation of their visual identity.
    colour: isBus ? rng.pick(COACH_COLOURS) : 'Branco',
    operatorId: operator.id,
    permitNumber: `${profile.prefix}-${isBus ? 'FRT' : 'TX'}-${String(rng.int(1000, 99999)).padStart(5, '0')}`,
    // Permits are revalidated yearly: valid for the next 4 to 11 months.
    permitValidUntil: isoDate(registeredAtMs, rng.int(120, 330)),
    // Inspected in the last 4 months: current for every age band of the SP decree (6 to 18 months).
    lastInspectionDate: isoDate(registeredAtMs, -rng.int(5, 120)),
    driverIds: drivers.map((d) => d.id),
  };
  if (pack === 'belem-taxi') vehicle.divValidUntil = isoDate(registeredAtMs, rng.int(90, 330));
  const vices = assigner.next(index, drivers.length, slug);
  // Registry facts of a dishonest operator: a vistoria two years old (overdue at every age band
  // of the SP decree), a permit not revalidated for a few weeks, a D.I.V. that expired months ago.
  if (vices?.inspectionOverdue) vehicle.lastInspectionDate = isoDate(registeredAtMs, -(700 + (index % 60)));
  if (vices?.permitExpired) vehicle.permitValidUntil = isoDate(registeredAtMs, -(10 + (index % 15)));
  if (vices?.divExpired) vehicle.divValidUntil = isoDate(registeredAtMs, -(60 + (index % 60)));

  const device: DeviceRecord = {
    id: `sim-dev-${slug}`,
    vehicleId,
    protocol: 'native',
    identifier: `SIM-${code}`,
  };
  return {
    vehicle,
    device,
    drivers,
    ...(charterLineId ? { charterLineId } : {}),
    ...(vices ? { vices } : {}),
  };
}

function isoDate(fromMs: number, plusDays: number): string {
  return new Date(fromMs + plusDays * 86_400_000).toISOString().slice(0, 10);
}
