import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Tokens are 32 random bytes, so a plain SHA-256 is a sound way to store them: nothing to
 * brute-force, and the hash doubles as the lookup key. The prefix says what kind a token is
 * when it turns up in a log or a support ticket.
 */
export type TokenKind = 'dev' | 'usr' | 'adm';

export function generateToken(kind: TokenKind): string {
  return `vg${kind}_${randomBytes(32).toString('base64url')}`;
}

/** A token's SHA-256 (32 bytes): hex-encoded it is the stored hash and the lookup key. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function hashToken(token: string): string {
  return tokenDigest(token).toString('hex');
}

/**
 * A constant-time check of presented tokens against one secret (the admin token): the secret's
 * digest is computed once, and the caller passes the presented token's digest, which it needs
 * anyway as the lookup key. Every request of a device paid for three SHA-256 before (the secret's,
 * the presented token's twice).
 */
export function secretTokenMatcher(secret: string): (presentedDigest: Buffer) => boolean {
  const expected = tokenDigest(secret);
  return (presentedDigest) => presentedDigest.length === expected.length && timingSafeEqual(presentedDigest, expected);
}

export function tokensEqual(a: string, b: string): boolean {
  return timingSafeEqual(tokenDigest(a), tokenDigest(b));
}
