import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildTelemetry,
  type DeviceProfile,
  deviceProfileSchema,
  mapProfileFields,
  PROFILE_FIELDS,
  ProfileRegistry,
  type RawValue,
  readField,
} from '../../src/gateways/index.js';

const int = (value: number | bigint, bytes = 1): RawValue => ({ kind: 'int', value: BigInt(value), bytes });
const textValue = (value: string): RawValue => ({ kind: 'text', value });

describe('shipped profiles', () => {
  const registry = ProfileRegistry.load();

  it('all validate, are named after their files, and each protocol has exactly one default', () => {
    expect(registry.names.sort()).toEqual([
      'gt06-default',
      'gt06-local-time-brt',
      'gt06-taxi',
      'osmand-traccar-client',
      'teltonika-default',
      'teltonika-fmc130-taxi',
      'teltonika-fmc650-bus',
      'teltonika-taxi-lamp-inputs',
    ]);
    expect(registry.defaultFor('teltonika').name).toBe('teltonika-default');
    expect(registry.defaultFor('osmand').name).toBe('osmand-traccar-client');
    expect(registry.defaultFor('gt06').name).toBe('gt06-default');
  });

  it('resolves a device profile: by name, the default when none, a reason otherwise', () => {
    expect(registry.resolve('teltonika', null)).toMatchObject({ ok: true, profile: { name: 'teltonika-default' } });
    expect(registry.resolve('teltonika', 'teltonika-fmc650-bus')).toMatchObject({ ok: true });
    expect(registry.resolve('teltonika', 'nope')).toMatchObject({ ok: false, code: 'UNKNOWN_PROFILE' });
    expect(registry.resolve('teltonika', 'osmand-traccar-client')).toMatchObject({
      ok: false,
      code: 'PROFILE_PROTOCOL_MISMATCH',
    });
  });

  it('the lamp-input profile: digital input 1 is the meter hired, digital input 2 the Bandeira II', () => {
    const profile = registry.get('teltonika-taxi-lamp-inputs') as DeviceProfile;
    const io = new Map<number, RawValue>([
      [1, int(1)],
      [2, int(1)],
      [3, int(0)],
      [239, int(1)],
    ]);
    const mapped = mapProfileFields(profile, (m) => ('io' in m ? io.get(m.io) : undefined));
    expect(Object.fromEntries(mapped.values.map((v) => [v.field, v.value]))).toEqual({
      ignition: true,
      'meter.state': 'hired',
      'meter.tariff': 2,
      doorOpen: false,
    });
  });
});

describe('profile validation', () => {
  const base = { name: 'x', title: 'X', protocol: 'teltonika' };
  const problems = (profile: unknown) => {
    const r = deviceProfileSchema.safeParse(profile);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('refuses mappings that cannot yield their field', () => {
    expect(problems({ ...base, fields: { 'meter.state': { io: 1, map: { '1': 'busy' } } } })).toEqual([
      'fields.meter.state: map: "1" → "busy" is not a valid meterState value',
    ]);
    expect(problems({ ...base, fields: { 'meter.tariff': { io: 1, map: { '1': 3 } } } })).toHaveLength(1);
    expect(problems({ ...base, fields: { ignition: { io: 239, scale: 2 } } })).toHaveLength(1);
    expect(problems({ ...base, fields: { passengers: { io: 9, encoding: 'ascii' } } })).toHaveLength(1);
    expect(problems({ ...base, fields: { passengers: { io: 9, invert: true } } })).toHaveLength(1);
  });

  it('refuses unknown fields, sources of the other protocol, ids out of range and stray keys', () => {
    expect(problems({ ...base, fields: { speed: { io: 24 } } }).length).toBeGreaterThan(0);
    expect(problems({ ...base, fields: { ignition: { attr: 'ignition' } } }).length).toBeGreaterThan(0);
    expect(problems({ ...base, protocol: 'osmand', fields: { ignition: { io: 239 } } }).length).toBeGreaterThan(0);
    expect(problems({ ...base, fields: { ignition: { io: 70_000 } } }).length).toBeGreaterThan(0);
    expect(problems({ ...base, fields: { ignition: { io: 239, typo: true } } }).length).toBeGreaterThan(0);
    expect(problems({ ...base, name: 'Bad Name', fields: {} }).length).toBeGreaterThan(0);
  });

  it('refuses a directory without a default per protocol, or whose file name and profile name differ', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigia-profiles-'));
    try {
      writeFileSync(join(dir, 'a.json'), JSON.stringify({ ...base, name: 'a', default: true, fields: {} }));
      expect(() => ProfileRegistry.load(dir)).toThrow(/default for osmand/);
      writeFileSync(
        join(dir, 'b.json'),
        JSON.stringify({ ...base, name: 'c', protocol: 'osmand', default: true, fields: {} }),
      );
      expect(() => ProfileRegistry.load(dir)).toThrow(/name and file must match/);
      writeFileSync(join(dir, 'b.json'), '{ nope');
      expect(() => ProfileRegistry.load(dir)).toThrow(/not valid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('reading raw inputs', () => {
  it('booleans: non-zero, a bit, active-low, words', () => {
    expect(readField('boolean', { io: 1 }, int(2))).toEqual({ ok: true, value: true });
    expect(readField('boolean', { io: 1, bit: 3 }, int(0b0100))).toEqual({ ok: true, value: false });
    expect(readField('boolean', { io: 1, bit: 2 }, int(0b0100))).toEqual({ ok: true, value: true });
    expect(readField('boolean', { io: 1, invert: true }, int(0))).toEqual({ ok: true, value: true });
    expect(readField('boolean', { attr: 'door' }, textValue('sim'))).toEqual({ ok: true, value: true });
    expect(readField('boolean', { attr: 'door' }, textValue('maybe'))).toMatchObject({ ok: false });
  });

  it('numbers: scale and offset, two’s complement, rounding for counts', () => {
    expect(readField('integer', { io: 9, scale: 0.001 }, int(2499, 2))).toEqual({ ok: true, value: 2 });
    expect(readField('number', { io: 72, scale: 0.1, signed: true }, int(0xff9c, 2))).toEqual({ ok: true, value: -10 });
    // Read unsigned, the same bytes are 65 436.
    const unsigned = readField('number', { io: 72, scale: 0.1 }, int(0xff9c, 2));
    expect(unsigned.ok && unsigned.value).toBeCloseTo(6543.6, 6);
    expect(readField('number', { attr: 'x', offset: -40 }, textValue('65'))).toEqual({ ok: true, value: 25 });
    expect(readField('integer', { attr: 'x' }, textValue('1e400'))).toMatchObject({ ok: false });
  });

  it('text: ASCII with padding trimmed, hex, decimal of an 8-byte id; control bytes refused', () => {
    const nx = (s: string): RawValue => ({ kind: 'bytes', value: Buffer.from(s, 'latin1') });
    expect(readField('string', { io: 1 }, nx('D-123\u0000\u0000'))).toEqual({ ok: true, value: 'D-123' });
    expect(readField('string', { io: 78, encoding: 'hex' }, int(0x01020304, 8))).toEqual({
      ok: true,
      value: '0000000001020304',
    });
    expect(readField('string', { io: 78 }, int(123456789012n, 8))).toEqual({ ok: true, value: '123456789012' });
    expect(readField('string', { io: 78, encoding: 'ascii' }, int(0x4431323300000000n, 8))).toEqual({
      ok: true,
      value: 'D123',
    });
    expect(readField('string', { io: 1 }, nx('a\u0007b'))).toMatchObject({ ok: false });
  });

  it('maps: a code the table lacks is a problem, not a guess', () => {
    const m = { io: 12000, map: { '0': 'off', '1': 'free', '2': 'hired', '3': 'stopped' } };
    expect(readField('meterState', m, int(2))).toEqual({ ok: true, value: 'hired' });
    expect(readField('meterState', m, int(7))).toEqual({ ok: false, reason: "value 7 is not in the profile's map" });
    expect(readField('meterState', { attr: 'm', map: { constructor: 'free' } }, textValue('toString'))).toMatchObject({
      ok: false,
    });
  });

  it('every field of the contract a profile may fill has a kind', () => {
    expect(Object.keys(PROFILE_FIELDS)).toHaveLength(13);
  });
});

describe('building the telemetry record', () => {
  const now = new Date();
  const limits = { receivedAt: now, maxFutureSkewS: 300 };
  const fix = { deviceId: 'X', tsMs: now.getTime() - 60_000, lat: -1.45, lon: -48.49 };
  const mapped = (values: [string, boolean | number | string][]) => ({
    values: values.map(([field, value]) => ({ field: field as keyof typeof PROFILE_FIELDS, value })),
    problems: [],
  });

  it('refuses an impossible fix, a future time and 0,0', () => {
    expect(buildTelemetry({ ...fix, lat: 200 }, mapped([]), limits)).toMatchObject({ ok: false, code: 'INVALID_FIX' });
    expect(buildTelemetry({ ...fix, speedKmh: 900 }, mapped([]), limits)).toMatchObject({
      ok: false,
      code: 'INVALID_FIX',
    });
    expect(buildTelemetry({ ...fix, tsMs: now.getTime() + 301_000 }, mapped([]), limits)).toMatchObject({
      ok: false,
      code: 'FUTURE_TIMESTAMP',
    });
    expect(buildTelemetry({ ...fix, tsMs: now.getTime() + 299_000 }, mapped([]), limits)).toMatchObject({ ok: true });
    expect(buildTelemetry({ ...fix, lat: 0, lon: 0 }, mapped([]), limits)).toMatchObject({
      ok: false,
      code: 'NO_POSITION',
    });
  });

  it('drops impossible profile inputs and meter readings left without a state, keeping the rest', () => {
    const built = buildTelemetry(
      fix,
      mapped([
        ['passengers', 9_999],
        ['meter.state', 'busy'],
        ['meter.tariff', 2],
        ['doorOpen', true],
      ]),
      limits,
    );
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.input).toMatchObject({ lat: -1.45, doorOpen: true });
    expect(built.input.passengers).toBeUndefined();
    expect(built.input.meter).toBeUndefined();
    expect(built.dropped.map((d) => d.field).sort()).toEqual(['meter.state', 'meter.tariff', 'passengers']);
  });

  it('prefers the fix’s own accuracy to one estimated from HDOP', () => {
    const built = buildTelemetry({ ...fix, accuracyM: 4 }, mapped([['accuracyM', 9]]), limits);
    expect(built).toMatchObject({ ok: true, input: { accuracyM: 4 } });
  });
});
