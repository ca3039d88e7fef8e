/**
 * A small seeded PRNG so that a fleet is reproducible from its seed: the same seed and the same
 * clock give the same telemetry, which tests and regulatory scenarios rely on. sfc32 is fast,
 * passes PractRand far beyond what a simulation needs, and its state fits in four integers.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string) {
    const [a, b, c, d] = seedWords(String(seed));
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    // Discard the first outputs: sfc32 needs a few rounds to mix a low-entropy seed.
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A uniform number in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /**
   * An independent stream derived from this one's seed material and a label. Each vehicle,
   * stand or roster entry draws from its own stream, so adding a vehicle does not change what
   * the others do.
   */
  static derive(seed: number | string, ...labels: (string | number)[]): Random {
    return new Random([String(seed), ...labels.map(String)].join('/'));
  }

  /** A uniform number in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** A uniform integer in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** An item chosen with probability proportional to its weight. */
  weighted<T>(items: readonly T[], weight: (item: T) => number): T {
    const total = items.reduce((sum, item) => sum + Math.max(0, weight(item)), 0);
    if (items.length === 0 || total <= 0) throw new Error('weighted pick needs a positive total weight');
    let r = this.next() * total;
    for (const item of items) {
      r -= Math.max(0, weight(item));
      if (r < 0) return item;
    }
    return items[items.length - 1] as T;
  }

  /** An exponentially distributed value with the given mean (waiting times of Poisson events). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** A standard normal value (Box–Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/** Four 32-bit words from a string (cyrb128), so any label makes a well-spread seed. */
function seedWords(str: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < str.length; i++) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}
