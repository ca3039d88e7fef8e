/**
 * A time-window decision (is Bandeira II allowed now, and under which clause) depends on the
 * local minute and the holiday calendar, not on the second: the fleet's samples in one minute all
 * get the same answer. This keeps the last answer per decision and computes it again only when
 * the minute or the inputs change. Exact because the zones the packs run in are offset from UTC by
 * whole minutes and every calendar entry starts and ends on a whole minute (local midnight, or
 * the library's partial days such as 14:00), so no answer changes inside a UTC minute.
 */
export function perMinute<A, B, T>(decide: (ms: number, a: A, b: B) => T): (ms: number, a: A, b: B) => T {
  let minute = Number.NaN;
  let lastA: A | undefined;
  let lastB: B | undefined;
  let value: T | undefined;
  return (ms, a, b) => {
    const m = Math.floor(ms / 60_000);
    if (m !== minute || a !== lastA || b !== lastB) {
      value = decide(m * 60_000, a, b);
      minute = m;
      lastA = a;
      lastB = b;
    }
    return value as T;
  };
}
