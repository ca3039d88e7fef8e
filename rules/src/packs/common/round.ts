/** Measured values are reported to a tenth (seconds, km/h) or as asked: enough for a notice, stable across runs. */
export const round = (value: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};
