import fc from 'fast-check';

/**
 * Damage of the kinds a radio link, a buggy firmware or an attacker produces: bytes changed,
 * bytes lost, bytes added, a message cut short or with garbage after it. Applied anywhere,
 * headers included, so length fields and counts disagree with what follows.
 */
type Mutation =
  | { op: 'flip'; at: number; xor: number }
  | { op: 'set'; at: number; value: number }
  | { op: 'delete'; at: number; length: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'truncate'; keep: number }
  | { op: 'append'; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  // The values that break parsers most: zero, all ones, the sign bit.
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: fc.constantFrom(0x00, 0xff, 0x7f, 0x80, 0x01) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
  fc.record({ op: fc.constant('truncate' as const), keep: fc.nat() }),
  fc.record({ op: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
);

function apply(buf: Buffer, m: Mutation): Buffer {
  if (buf.length === 0) return m.op === 'insert' || m.op === 'append' ? Buffer.from(m.bytes) : buf;
  switch (m.op) {
    case 'flip': {
      const out = Buffer.from(buf);
      const i = m.at % out.length;
      out[i] = (out[i] as number) ^ m.xor;
      return out;
    }
    case 'set': {
      const out = Buffer.from(buf);
      out[m.at % out.length] = m.value;
      return out;
    }
    case 'delete': {
      const i = m.at % buf.length;
      return Buffer.concat([buf.subarray(0, i), buf.subarray(i + m.length)]);
    }
    case 'insert': {
      const i = m.at % (buf.length + 1);
      return Buffer.concat([buf.subarray(0, i), m.bytes, buf.subarray(i)]);
    }
    case 'truncate':
      return buf.subarray(0, m.keep % buf.length);
    case 'append':
      return Buffer.concat([buf, m.bytes]);
  }
}

/** `valid` with one to four mutations applied. */
export function mutated(valid: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer> {
  return fc
    .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([buf, ms]) => ms.reduce(apply, Buffer.from(buf)));
}
