import { describe, expect, it } from 'vitest';
import { generateToken, hashToken, secretTokenMatcher, tokenDigest, tokensEqual } from '../src/tokens.js';

/** The token helpers every authenticated request goes through: the admin check and the lookup key. */
describe('tokens', () => {
  it('matches the secret by digest and nothing else', () => {
    const secret = generateToken('adm');
    const isSecret = secretTokenMatcher(secret);
    expect(isSecret(tokenDigest(secret))).toBe(true);
    expect(isSecret(tokenDigest(`${secret}x`))).toBe(false);
    expect(isSecret(tokenDigest(generateToken('adm')))).toBe(false);
    // A digest of another length (never made by tokenDigest) is refused, not thrown on.
    expect(isSecret(Buffer.alloc(16))).toBe(false);
  });

  it('keys lookups by the hex of the same digest the matcher compares', () => {
    const token = generateToken('dev');
    expect(hashToken(token)).toBe(tokenDigest(token).toString('hex'));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(token, generateToken('dev'))).toBe(false);
  });
});
