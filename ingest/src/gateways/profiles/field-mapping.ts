import type { DeviceProfile, FieldKind, FieldMapping, FieldValue, ProfileField } from './profile-schema.js';
import { PROFILE_FIELDS } from './profile-schema.js';

/**
 * Runs a profile's mappings over one record's raw inputs. The protocol supplies the raw values
 * (a Teltonika IO element, an OsmAnd attribute); this module turns each into the field's kind of
 * value or says why it cannot. Range checks are not made here: the telemetry schema of the HTTP
 * path makes them afterwards, so every path enforces the same limits.
 */

/** A raw input as a protocol delivers it. */
export type RawValue =
  /** A Teltonika integer IO element: unsigned as received, with its width in bytes. */
  | { kind: 'int'; value: bigint; bytes: number }
  /** A Teltonika Codec 8 Extended variable-length (NX) element. */
  | { kind: 'bytes'; value: Buffer }
  /** An OsmAnd query-string attribute (always text) or a JSON `extras` value. */
  | { kind: 'text'; value: string }
  | { kind: 'json'; value: number | boolean };

export type FieldResult = { ok: true; value: FieldValue } | { ok: false; reason: string };

export interface MappedFields {
  values: { field: ProfileField; value: FieldValue }[];
  /** Inputs present but unusable: left out of the record, logged and counted by the caller. */
  problems: { field: ProfileField; reason: string }[];
}

/** Applies every mapping of `profile` whose raw input is present in this record. */
export function mapProfileFields(
  profile: DeviceProfile,
  rawOf: (mapping: FieldMapping) => RawValue | undefined,
): MappedFields {
  const out: MappedFields = { values: [], problems: [] };
  for (const [field, mapping] of Object.entries(profile.fields) as [ProfileField, FieldMapping][]) {
    const raw = rawOf(mapping);
    if (raw === undefined) continue;
    const result = readField(PROFILE_FIELDS[field], mapping, raw);
    if (result.ok) out.values.push({ field, value: result.value });
    else out.problems.push({ field, reason: result.reason });
  }
  return out;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 'sim']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'nao', 'não']);
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function describe(raw: RawValue): string {
  switch (raw.kind) {
    case 'int':
      return raw.value.toString();
    case 'bytes':
      return `0x${raw.value.toString('hex')}`;
    case 'text':
      return JSON.stringify(raw.value);
    case 'json':
      return String(raw.value);
  }
}

/** Two's complement of an unsigned integer `bytes` wide. */
function toSigned(value: bigint, bytes: number): bigint {
  return BigInt.asIntN(bytes * 8, value);
}

/** The raw value after `bit` and `signed`, as an integer when it is one. */
function integerOf(raw: RawValue, m: FieldMapping): bigint | undefined {
  let v: bigint | undefined;
  if (raw.kind === 'int') v = m.signed ? toSigned(raw.value, raw.bytes) : raw.value;
  else if (raw.kind === 'text' && /^[-+]?\d{1,19}$/.test(raw.value.trim())) v = BigInt(raw.value.trim());
  else if (raw.kind === 'json' && typeof raw.value === 'number' && Number.isSafeInteger(raw.value))
    v = BigInt(raw.value);
  if (v !== undefined && m.bit !== undefined) v = (BigInt.asUintN(64, v) >> BigInt(m.bit)) & 1n;
  return v;
}

function numberOf(raw: RawValue, m: FieldMapping): number | undefined {
  const int = integerOf(raw, m);
  if (int !== undefined) return Number(int);
  if (m.bit !== undefined) return undefined;
  if (raw.kind === 'json' && typeof raw.value === 'number') return raw.value;
  if (raw.kind === 'text' && NUMBER.test(raw.value.trim())) return Number(raw.value.trim());
  return undefined;
}

/** The key a `map` table is looked up with: the value as text. */
function mapKey(raw: RawValue, m: FieldMapping): string {
  const int = integerOf(raw, m);
  if (int !== undefined) return int.toString();
  if (raw.kind === 'bytes') return raw.value.toString('hex');
  return String(raw.value).trim();
}

function stringOf(raw: RawValue, m: FieldMapping): string | undefined {
  if (raw.kind === 'text') return raw.value.trim();
  if (raw.kind === 'json') return String(raw.value);
  const bytes =
    raw.kind === 'bytes' ? raw.value : Buffer.from(raw.value.toString(16).padStart(raw.bytes * 2, '0'), 'hex');
  const encoding = m.encoding ?? (raw.kind === 'bytes' ? 'ascii' : 'decimal');
  switch (encoding) {
    case 'decimal':
      return bytes.length === 0 ? undefined : BigInt(`0x${bytes.toString('hex')}`).toString();
    case 'hex':
      return bytes.toString('hex').toUpperCase();
    case 'ascii': {
      // Fixed-width inputs (an 8-byte driver id) are padded with NULs or spaces.
      const text = trimPadding(bytes.toString('latin1'));
      return /^[ -~]*$/.test(text) ? text : undefined;
    }
  }
}

function trimPadding(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0) start++;
  while (end > start && (text.charCodeAt(end - 1) === 0 || text.charCodeAt(end - 1) === 0x20)) end--;
  return text.slice(start, end);
}

function booleanOf(raw: RawValue, m: FieldMapping): boolean | undefined {
  const int = integerOf(raw, m);
  if (int !== undefined) return int !== 0n;
  if (raw.kind === 'json' && typeof raw.value === 'boolean') return raw.value;
  if (raw.kind === 'text') {
    const word = raw.value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return undefined;
}

/** One raw input → its field's value, or why it cannot be one. */
export function readField(kind: FieldKind, m: FieldMapping, raw: RawValue): FieldResult {
  if (m.map) {
    const key = mapKey(raw, m);
    const value = Object.hasOwn(m.map, key) ? m.map[key] : undefined;
    if (value === undefined) return { ok: false, reason: `value ${describe(raw)} is not in the profile's map` };
    return { ok: true, value };
  }
  switch (kind) {
    case 'boolean': {
      const b = booleanOf(raw, m);
      if (b === undefined) return { ok: false, reason: `value ${describe(raw)} is not a boolean` };
      return { ok: true, value: m.invert ? !b : b };
    }
    case 'integer':
    case 'number':
    case 'tariff': {
      const n = numberOf(raw, m);
      if (n === undefined || !Number.isFinite(n))
        return { ok: false, reason: `value ${describe(raw)} is not a number` };
      const scaled = n * (m.scale ?? 1) + (m.offset ?? 0);
      // Integer fields are counts and cents: round away the scale's binary fractions.
      return { ok: true, value: kind === 'number' ? scaled : Math.round(scaled) };
    }
    case 'meterState':
    case 'string': {
      const s = stringOf(raw, m);
      if (s === undefined || s === '') return { ok: false, reason: `value ${describe(raw)} is not text` };
      return { ok: true, value: s };
    }
  }
}
