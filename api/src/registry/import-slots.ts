/**
 * How many imports run at once in this process (`IMPORT_MAX_CONCURRENT`). An import is the
 * heaviest request there is (inflating, parsing, one large write): run side by side, eight of
 * them take turns on the one event loop and every other request waits behind all of them. The
 * others wait here, first come first served, with their bodies unread (the client's upload
 * simply pauses), bounded by the server's request timeout.
 */
export class ImportSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.max) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, so `active` stays counted.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
