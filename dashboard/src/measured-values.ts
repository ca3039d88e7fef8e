import type { Pack } from './api-types.js';
import { passengersTerm } from './format.js';
import { brlLabel, formatNumber, localDateTimeLabel } from './violation-format.js';
import { violationMessages } from './violation-messages.js';

const t = violationMessages.measuredValues;

/**
 * The measured values of a violation are free-form per rule (shared/RULES.md: distance to stop,
 * dwell seconds, tariff segment, passengers against capacity, queue snapshot ...). They follow the
 * API's naming convention, units in the field name (`distanceToStopM`, `dwellS`, `speedKmh`), so
 * the unit can be read off the key instead of keeping a table per rule that would fall behind.
 */

export interface MeasuredRow {
  key: string;
  label: string;
  /** The label is the rule's own field name made readable, not catalogue text (rules name their values freely). */
  labelFromKey: boolean;
  /** Text, or nested rows for a record or a list of records (a stand's queue snapshot, say). */
  value: string | MeasuredRow[];
}

interface UnitSuffix {
  suffix: string;
  unit: string;
  format?: (value: number) => string;
}

/** Longest first, so `Kmh` wins over `M` would-be matches and `Ms` over `S`. */
const unitSuffixes: readonly UnitSuffix[] = [
  { suffix: 'Cents', unit: 'R$', format: (value) => brlLabel(value / 100) },
  { suffix: 'Brl', unit: 'R$', format: brlLabel },
  { suffix: 'Kmh', unit: 'km/h' },
  { suffix: 'Pct', unit: '%' },
  { suffix: 'Min', unit: 'min' },
  { suffix: 'Deg', unit: '°' },
  { suffix: 'Km', unit: 'km' },
  { suffix: 'Ms', unit: 'ms' },
  { suffix: 'M', unit: 'm', format: (value) => `${formatNumber(value, 1)} m` },
  { suffix: 'S', unit: 's', format: (value) => `${formatNumber(value, 1)} s` },
];

/** Keys whose wording would otherwise come out wrong or in the wrong language. */
const knownLabels: Record<string, string> = {
  tariff: t.tariff,
  b1: 'Bandeira I',
  b2: 'Bandeira II',
  // Counts and capacities never include the driver.
  passengers: passengersTerm,
  passengersMax: t.mostPassengers,
  permittedPassengers: t.permittedPassengers,
  capacity: t.capacity,
};

const maxDepth = 3;

export function measuredRows(measured: Record<string, unknown>, pack: Pack, depth = 0): MeasuredRow[] {
  return Object.entries(measured).map(([key, value]) => row(key, value, pack, depth));
}

function row(key: string, value: unknown, pack: Pack, depth: number): MeasuredRow {
  const suffix = unitSuffixOf(key);
  const label = labelOf(key, suffix);
  return {
    key,
    label,
    labelFromKey: knownLabels[key] === undefined,
    value: displayValue(key, value, suffix, pack, depth),
  };
}

function displayValue(
  key: string,
  value: unknown,
  suffix: UnitSuffix | null,
  pack: Pack,
  depth: number,
): string | MeasuredRow[] {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? t.yes : t.no;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    if (key === 'tariff' && (value === 1 || value === 2)) return value === 2 ? 'Bandeira II' : 'Bandeira I';
    if (suffix?.format) return suffix.format(value);
    return suffix ? `${formatNumber(value)} ${suffix.unit}` : formatNumber(value);
  }
  if (typeof value === 'string') return isInstant(value) ? localDateTimeLabel(value, pack) : value;
  if (depth >= maxDepth) return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.every((entry) => entry === null || typeof entry !== 'object')) {
      return value.length === 0
        ? t.none
        : value.map((entry) => displayValue(key, entry, suffix, pack, depth)).join(', ');
    }
    return value.map((entry, index) => row(String(index + 1), entry, pack, depth + 1));
  }
  if (typeof value === 'object') return measuredRows(value as Record<string, unknown>, pack, depth + 1);
  return String(value);
}

function unitSuffixOf(key: string): UnitSuffix | null {
  for (const candidate of unitSuffixes) {
    // The unit must follow a lower-case letter or digit: `passengers` has no `S` unit, `dwellS` has.
    if (key.length > candidate.suffix.length && key.endsWith(candidate.suffix)) {
      const before = key.charAt(key.length - candidate.suffix.length - 1);
      if (/[a-z0-9]/.test(before)) return candidate;
    }
  }
  return null;
}

/** `distanceToStopM` → "Distance to stop (m)". */
function labelOf(key: string, suffix: UnitSuffix | null): string {
  const known = knownLabels[key];
  if (known) return known;
  const stem = suffix ? key.slice(0, -suffix.suffix.length) : key;
  const words = stem
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .split(/\s+/)
    // Acronyms (ORTN, UPDF, B1) keep their capitals; ordinary words are lower-cased after the first.
    .map((word, index) => (/^[A-Z0-9]{2,}$/.test(word) ? word : index === 0 ? word : word.toLowerCase()));
  const text = words.join(' ');
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return suffix ? `${sentence} (${suffix.unit})` : sentence;
}

function isInstant(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && Number.isFinite(Date.parse(value));
}
