/**
 * Sample times are stamped by devices and the server, but "offline for more than N seconds" is
 * judged in the browser. A workstation whose clock is a minute off would otherwise show the whole
 * fleet offline (or never offline), so the browser's clock is corrected by the offset seen in the
 * HTTP `Date` header of API responses.
 */
export class ServerClock {
  private offsetMs = 0;

  /** The header has one-second resolution; offsets within that are indistinguishable from none. */
  private static readonly minimumOffsetMs = 2000;

  observe(response: Response): void {
    const header = response.headers.get('date');
    if (!header) return;
    const serverMs = Date.parse(header);
    if (!Number.isFinite(serverMs)) return;
    const offset = serverMs - Date.now();
    this.offsetMs = Math.abs(offset) >= ServerClock.minimumOffsetMs ? offset : 0;
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }
}
