import type { Random } from '../random.js';

/**
 * Registry documents with valid check digits, so a registry that validates CPF/CNPJ accepts the
 * simulated fleet. They are random numbers, not anybody's document.
 */

function digits(rng: Random, n: number): number[] {
  return Array.from({ length: n }, () => rng.int(0, 9));
}

function mod11CheckDigit(body: readonly number[], weights: readonly number[]): number {
  const sum = body.reduce((acc, d, i) => acc + d * (weights[i] ?? 0), 0);
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** A CPF (individual taxpayer number), formatted 000.000.000-00. */
export function randomCpf(rng: Random): string {
  let body = digits(rng, 9);
  // All-equal digits pass the arithmetic but are invalid by rule.
  while (body.every((d) => d === body[0])) body = digits(rng, 9);
  const d1 = mod11CheckDigit(body, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = mod11CheckDigit([...body, d1], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const s = [...body, d1, d2].join('');
  return `${s.slice(0, 3)}.${s.slice(3, 6)}.${s.slice(6, 9)}-${s.slice(9)}`;
}

/** A CNPJ (company number, head office 0001), formatted 00.000.000/0001-00. */
export function randomCnpj(rng: Random): string {
  const body = [...digits(rng, 8), 0, 0, 0, 1];
  const d1 = mod11CheckDigit(body, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = mod11CheckDigit([...body, d1], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const s = [...body, d1, d2].join('');
  return `${s.slice(0, 2)}.${s.slice(2, 5)}.${s.slice(5, 8)}/${s.slice(8, 12)}-${s.slice(12)}`;
}

/** An 11-digit CNH (driving licence) register number. */
export function randomCnh(rng: Random): string {
  return [rng.int(1, 9), ...digits(rng, 10)].join('');
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A Mercosul plate (LLLNLNN) whose three letters fall in the series the state issued before the
 * Mercosul format, the way converted plates keep their state's letters.
 */
export function randomMercosulPlate(rng: Random, series: readonly (readonly [string, string])[]): string {
  const [from, to] = rng.pick(series);
  const lo = seriesIndex(from);
  const hi = seriesIndex(to);
  const n = rng.int(lo, hi);
  const prefix = `${LETTERS[Math.floor(n / 676)]}${LETTERS[Math.floor(n / 26) % 26]}${LETTERS[n % 26]}`;
  return `${prefix}${rng.int(0, 9)}${LETTERS[rng.int(0, 25)]}${rng.int(0, 9)}${rng.int(0, 9)}`;
}

function seriesIndex(letters: string): number {
  const [a, b, c] = [...letters].map((ch) => LETTERS.indexOf(ch));
  return (a ?? 0) * 676 + (b ?? 0) * 26 + (c ?? 0);
}

/** Letter series of the old plates by state (DENATRAN allocation). */
export const PLATE_SERIES = {
  DF: [
    ['JDP', 'JKR'],
    ['OZW', 'PAZ'],
  ],
  PA: [
    ['JTA', 'JWE'],
    ['NSE', 'NTC'],
    ['OBT', 'OCA'],
  ],
  SP: [['BFA', 'GKI']],
} as const satisfies Record<string, readonly (readonly [string, string])[]>;
