import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * Verification codes: 12 characters of Crockford base32 (no I, L, O, U: nothing to misread when
 * typed from paper), grouped by four: `7KQ2-M9XD-P4HT`. 60 random bits, so codes cannot be
 * guessed or walked; the code only finds a notice, the PDF's SHA-256 proves its content.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const GROUPS = 3;
const GROUP_LEN = 4;

export function newNoticeCode(): string {
  const bytes = randomBytes(GROUPS * GROUP_LEN);
  const chars = [...bytes].map((b) => ALPHABET[b & 31]);
  return Array.from({ length: GROUPS }, (_, g) => chars.slice(g * GROUP_LEN, (g + 1) * GROUP_LEN).join('')).join('-');
}

/**
 * The `:code` of `GET /v1/notices/:code`, bounded in length and alphabet before any lookup.
 * Lower case and missing dashes are accepted (people type codes), and normalised.
 */
export const noticeCodeSchema = z
  .string()
  .max(20)
  .transform((s) => s.toUpperCase().replace(/-/g, ''))
  .pipe(
    z.string().regex(/^[0-9A-HJKMNP-TV-Z]{12}$/, 'a notice code is 12 characters of 0-9 and A-Z without I, L, O, U'),
  )
  .transform((s) => `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`);

/** `?sha256=` of the verification: the hex digest of the copy the citizen holds. */
export const verifyQuerySchema = z.object({
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'sha256 is 64 hexadecimal characters')
    .transform((s) => s.toLowerCase())
    .optional(),
});
