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

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function tokensEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
