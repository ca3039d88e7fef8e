import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '@vigia/core';
import { type DeviceProfile, deviceProfileSchema, PROFILE_PROTOCOLS, type ProfileProtocol } from './profile-schema.js';

/** The profiles shipped with vigia: `ingest/profiles/*.json` (the same path from src/ and dist/). */
export const SHIPPED_PROFILES_DIR = fileURLToPath(new URL('../../../profiles/', import.meta.url));

/** Why a device's profile cannot be used. */
export type ProfileResolution =
  | { ok: true; profile: DeviceProfile }
  | { ok: false; code: 'UNKNOWN_PROFILE' | 'PROFILE_PROTOCOL_MISMATCH'; message: string };

/**
 * Every profile by name, validated once at start: a broken profile file stops the gateways from
 * starting with the file and the problem named, instead of mis-mapping data at run time.
 */
export class ProfileRegistry {
  private readonly byName: ReadonlyMap<string, DeviceProfile>;
  private readonly defaults: ReadonlyMap<ProfileProtocol, DeviceProfile>;

  constructor(profiles: readonly DeviceProfile[]) {
    const byName = new Map<string, DeviceProfile>();
    const defaults = new Map<ProfileProtocol, DeviceProfile>();
    for (const p of profiles) {
      if (byName.has(p.name)) throw new AppError('INVALID_PROFILE', `Two profiles are named '${p.name}'`, 500);
      byName.set(p.name, p);
      if (p.default) {
        const other = defaults.get(p.protocol);
        if (other) {
          throw new AppError(
            'INVALID_PROFILE',
            `Profiles '${other.name}' and '${p.name}' are both the default for ${p.protocol}`,
            500,
          );
        }
        defaults.set(p.protocol, p);
      }
    }
    for (const protocol of PROFILE_PROTOCOLS) {
      if (!defaults.has(protocol)) {
        throw new AppError('INVALID_PROFILE', `No profile is the default for ${protocol} ("default": true)`, 500);
      }
    }
    this.byName = byName;
    this.defaults = defaults;
  }

  /** Reads and validates every `*.json` in `dir`; the file name must be the profile's name. */
  static load(dir: string = SHIPPED_PROFILES_DIR): ProfileRegistry {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    const profiles = files.map((file) => {
      const path = join(dir, file);
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(path, 'utf8'));
      } catch (err) {
        throw new AppError('INVALID_PROFILE', `Profile ${path} is not valid JSON: ${(err as Error).message}`, 500);
      }
      const parsed = deviceProfileSchema.safeParse(json);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'profile'}: ${i.message}`);
        throw new AppError('INVALID_PROFILE', `Profile ${path} is invalid: ${problems.join('; ')}`, 500, problems);
      }
      if (`${parsed.data.name}.json` !== file) {
        throw new AppError(
          'INVALID_PROFILE',
          `Profile ${path} is named '${parsed.data.name}': name and file must match`,
          500,
        );
      }
      return parsed.data;
    });
    return new ProfileRegistry(profiles);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** The protocols devices with a profile speak (each has a default profile). */
  get protocols(): ProfileProtocol[] {
    return [...this.defaults.keys()];
  }

  /** The names a device of `protocol` may give as its profile, sorted; none for another protocol. */
  namesFor(protocol: string): string[] {
    return [...this.byName.values()]
      .filter((p) => p.protocol === protocol)
      .map((p) => p.name)
      .sort();
  }

  get(name: string): DeviceProfile | undefined {
    return this.byName.get(name);
  }

  defaultFor(protocol: ProfileProtocol): DeviceProfile {
    const profile = this.defaults.get(protocol);
    if (!profile) throw new Error(`No default profile for ${protocol}`);
    return profile;
  }

  /** The profile a device of `protocol` uses: the one its registry entry names, else the default. */
  resolve(protocol: ProfileProtocol, name: string | null): ProfileResolution {
    if (name === null || name === '') return { ok: true, profile: this.defaultFor(protocol) };
    const profile = this.byName.get(name);
    if (!profile) return { ok: false, code: 'UNKNOWN_PROFILE', message: `No device profile named '${name}'` };
    if (profile.protocol !== protocol) {
      return {
        ok: false,
        code: 'PROFILE_PROTOCOL_MISMATCH',
        message: `Profile '${name}' is for ${profile.protocol} devices, not ${protocol}`,
      };
    }
    return { ok: true, profile };
  }
}
