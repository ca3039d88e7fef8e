import { describe, expect, it } from 'vitest';
import { type Gt06Position, gt06PositionToDecoded } from '../../src/gateways/gt06/gt06-to-telemetry.js';
import { type DeviceProfile, deviceProfileSchema, ProfileRegistry } from '../../src/gateways/index.js';

/** The GT06 profiles: what each input gives, the ACC fallbacks, the clock setting, and what the schema refuses. */

const registry = ProfileRegistry.load();
const profile = (name: string) => registry.get(name) as DeviceProfile;

const position = (over: Partial<Gt06Position> = {}): Gt06Position => ({
  kind: 'position',
  gps: {
    time: { year: 2025, month: 10, day: 17, hour: 3, minute: 0, second: 45 },
    satellites: 9,
    latitude: -29.98,
    longitude: -51.17,
    speedKmh: 40,
    courseDeg: 180,
    positioned: true,
  },
  ...over,
});

const fieldsOf = (p: Gt06Position, name: string, state = {}) =>
  Object.fromEntries(
    gt06PositionToDecoded('869412074480093', p, state, profile(name), Buffer.alloc(0)).mapped.values.map((v) => [
      v.field,
      v.value,
    ]),
  );

describe('GT06 profiles', () => {
  it('ACC: the packet own ACC byte, else the alarm packet terminal info, else course bits, else the last heartbeat', () => {
    expect(fieldsOf(position({ acc: false }), 'gt06-default', { acc: true })).toEqual({ ignition: false });
    expect(
      fieldsOf(position({ status: { terminalInfo: 0x46, voltageLevel: 6, gsmSignal: 4 } }), 'gt06-default'),
    ).toEqual({ ignition: true });
    const fromCourse = position();
    fromCourse.gps.accFromCourse = false;
    expect(fieldsOf(fromCourse, 'gt06-default', { acc: true })).toEqual({ ignition: false });
    expect(fieldsOf(position(), 'gt06-default', { acc: true })).toEqual({ ignition: true });
    expect(fieldsOf(position(), 'gt06-default', {})).toEqual({});
  });

  it('gt06-taxi: door only on a door alarm (0x14), absent (never false) on any other packet', () => {
    const status = { terminalInfo: 0x46, voltageLevel: 6, gsmSignal: 4 };
    expect(fieldsOf(position({ status, alarm: 0x14 }), 'gt06-taxi')).toEqual({ ignition: true, doorOpen: true });
    expect(fieldsOf(position({ status, alarm: 0x01 }), 'gt06-taxi')).toEqual({ ignition: true });
    expect(fieldsOf(position({ acc: false }), 'gt06-taxi')).toEqual({ ignition: false });
  });

  it('the clock: UTC by default, the profile offset, else the login time zone; no speed or heading without a fix', () => {
    const utc = Date.UTC(2025, 9, 17, 3, 0, 45);
    const at = (name: string, state = {}) =>
      gt06PositionToDecoded('x', position(), state, profile(name), Buffer.alloc(0)).fix.tsMs;
    expect(at('gt06-default')).toBe(utc);
    expect(at('gt06-local-time-brt')).toBe(utc + 3 * 3_600_000);
    expect(at('gt06-default', { loginUtcOffsetMinutes: 480 })).toBe(utc - 8 * 3_600_000);
    expect(at('gt06-local-time-brt', { loginUtcOffsetMinutes: 480 })).toBe(utc + 3 * 3_600_000);
    const stale = position();
    stale.gps.positioned = false;
    expect(gt06PositionToDecoded('x', stale, {}, profile('gt06-default'), Buffer.alloc(0)).fix).toMatchObject({
      lat: -29.98,
      speedKmh: undefined,
      headingDeg: undefined,
    });
  });

  it('the schema refuses an alarm code on another input, an unknown input and an impossible offset', () => {
    const base = { name: 'x', title: 'x', protocol: 'gt06' };
    expect(
      deviceProfileSchema.safeParse({ ...base, fields: { doorOpen: { input: 'acc', alarmCode: 20 } } }).success,
    ).toBe(false);
    expect(deviceProfileSchema.safeParse({ ...base, fields: { doorOpen: { input: 'door' } } }).success).toBe(false);
    expect(deviceProfileSchema.safeParse({ ...base, clock: { utcOffsetMinutes: 15 * 60 }, fields: {} }).success).toBe(
      false,
    );
    expect(
      deviceProfileSchema.safeParse({
        ...base,
        clock: { utcOffsetMinutes: -180 },
        fields: { doorOpen: { input: 'alarm', alarmCode: 20 } },
      }).success,
    ).toBe(true);
  });
});
