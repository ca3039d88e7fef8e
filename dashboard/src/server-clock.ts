/**
 * Sample times are stamped by devices and the server, but "offline for more than N seconds" and an
 * offer's countdown are judged in the browser. A workstation whose clock is a minute off would
 * otherwise show the whole fleet offline (or never offline), so the browser's clock is corrected by
 * the offset seen in the HTTP `Date` header of API responses.
 *
 * One header does not give the offset, only a range: the server wrote it somewhere between the
 * request leaving and the response arriving, truncated to the second. On a loaded workstation a
 * response can sit seconds in the browser before the page sees it, and taking the header at face
 * value then moved the clock back by those seconds: an offer's countdown went up. So the offset
 * changes only when a response proves the current one wrong, and then to the middle of what that
 * response allows.
 */
export class ServerClock {
  private offsetMs = 0;

  /** `sentAtMs` is the browser's `Date.now()` when the request left. */
  observe(response: Response, sentAtMs: number): void {
    const header = response.headers.get('date');
    if (!header) return;
    const serverMs = Date.parse(header);
    if (!Number.isFinite(serverMs)) return;
    const receivedAtMs = Date.now();
    const range = offsetRange(serverMs, sentAtMs, receivedAtMs);
    if (this.offsetMs >= range.lowMs && this.offsetMs <= range.highMs) return;
    // Zero, when the response allows it, keeps a workstation with a good clock on its own clock.
    this.offsetMs = range.lowMs <= 0 && range.highMs >= 0 ? 0 : Math.round((range.lowMs + range.highMs) / 2);
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }
}

/** HTTP dates have whole seconds: the server's clock read [serverMs, serverMs + 1 s) when it wrote one. */
const headerResolutionMs = 1000;

/** The server-minus-browser offsets consistent with one response. */
export function offsetRange(
  serverMs: number,
  sentAtMs: number,
  receivedAtMs: number,
): { lowMs: number; highMs: number } {
  return { lowMs: serverMs - receivedAtMs, highMs: serverMs + headerResolutionMs - sentAtMs };
}
