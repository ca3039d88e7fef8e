import type { TelemetryInput } from '@vigia/core';
import type { Gt06Source, OsmandSource, TeltonikaSource } from './emulator-profile.js';

/**
 * A profile mapping run backwards: from a telemetry field's value to the raw input a real device
 * would send for it. Returns undefined when the mapping cannot represent the value (a lamp input
 * cannot say "stopped"; a code missing from the table); the emulated device then leaves that
 * input out, as a real installation without it would.
 */

/** The value of a dotted field (`meter.state`) of a record. */
export function fieldValue(record: TelemetryInput, field: string): unknown {
  const [head, leaf] = field.split('.') as [string, string | undefined];
  const top = (record as Record<string, unknown>)[head];
  if (leaf === undefined) return top;
  return top && typeof top === 'object' ? (top as Record<string, unknown>)[leaf] : undefined;
}

type Source = TeltonikaSource | OsmandSource | Gt06Source;

/** The key of `map` whose value is `value`. */
function inverseMap(m: Source, value: unknown): string | undefined {
  for (const [key, mapped] of Object.entries(m.map ?? {})) if (mapped === value) return key;
  return undefined;
}

/** A number field to the raw number before `scale`/`offset`. */
function unscale(m: Source, value: number): number {
  return (value - (m.offset ?? 0)) / (m.scale ?? 1);
}

export type TeltonikaRaw = { kind: 'int'; value: bigint; bits?: bigint } | { kind: 'bytes'; value: Buffer };

/** The raw IO value for a field value. Booleans read from one `bit` come back as that bit alone (`bits` says which). */
export function teltonikaRawFor(m: TeltonikaSource, value: unknown): TeltonikaRaw | undefined {
  if (value === undefined || value === null) return undefined;
  if (m.map) {
    const key = inverseMap(m, value);
    if (key === undefined || !/^-?\d+$/.test(key)) return undefined;
    return intOf(m, BigInt(key));
  }
  if (typeof value === 'boolean') {
    const on = m.invert ? !value : value;
    if (m.bit !== undefined) {
      const mask = 1n << BigInt(m.bit);
      return { kind: 'int', value: on ? mask : 0n, bits: mask };
    }
    return { kind: 'int', value: on ? 1n : 0n };
  }
  if (typeof value === 'number') {
    const raw = Math.round(unscale(m, value));
    return Number.isSafeInteger(raw) ? intOf(m, BigInt(raw)) : undefined;
  }
  if (typeof value === 'string') {
    const encoding = m.encoding ?? (m.size === 'variable' || m.size === undefined ? 'ascii' : 'decimal');
    if (encoding === 'decimal') return /^\d+$/.test(value) ? intOf(m, BigInt(value)) : undefined;
    const bytes = encoding === 'hex' ? Buffer.from(value, 'hex') : Buffer.from(value, 'latin1');
    if (m.size === undefined || m.size === 'variable') return { kind: 'bytes', value: bytes };
    // A fixed-width input: NUL-padded, and only if the text fits.
    if (bytes.length > m.size) return undefined;
    const padded = Buffer.alloc(m.size);
    bytes.copy(padded);
    return { kind: 'int', value: BigInt(`0x${padded.toString('hex')}`) };
  }
  return undefined;
}

function intOf(m: TeltonikaSource, raw: bigint): TeltonikaRaw | undefined {
  const bytes = typeof m.size === 'number' ? m.size : 8;
  const width = BigInt(bytes * 8);
  if (m.signed) {
    if (raw < -(1n << (width - 1n)) || raw >= 1n << (width - 1n)) return undefined;
    return { kind: 'int', value: BigInt.asUintN(Number(width), raw) };
  }
  if (raw < 0n || raw >= 1n << width) return undefined;
  return { kind: 'int', value: raw };
}

/** The attribute text for a field value, as a driver app would put it in the query string. */
export function osmandTextFor(m: OsmandSource, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (m.map) return inverseMap(m, value);
  if (typeof value === 'boolean') return String(m.invert ? !value : value);
  if (typeof value === 'number') return String(Math.round(unscale(m, value) * 1e6) / 1e6);
  if (typeof value === 'string') return value;
  return undefined;
}

/**
 * The raw GT06 input (a byte: the ACC line, a terminal info bit, an alarm code, a level) for a
 * field value: the Teltonika mapping run on a 1-byte input, since both read one integer.
 * A boolean read from one `bit` comes back as that bit alone (`bits` says which).
 */
export function gt06RawFor(m: Gt06Source, value: unknown): { value: number; bits?: number } | undefined {
  const raw = teltonikaRawFor({ ...m, io: 0, size: 1 }, value);
  if (raw?.kind !== 'int') return undefined;
  return raw.bits === undefined ? { value: Number(raw.value) } : { value: Number(raw.value), bits: Number(raw.bits) };
}
