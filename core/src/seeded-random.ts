/**
 * A deterministic pseudo-random source (mulberry32): the same `seed` gives the same sequence of
 * numbers in [0, 1), so two runs of a benchmark drive the same fleet and compare like with like.
 * Not for anything that must be unpredictable.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
