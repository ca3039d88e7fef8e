import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy the test controls, between a service and the shared PostgreSQL server: `cut()`
 * drops every connection and refuses new ones (the database "goes away" without stopping the
 * server other tests use), `restore()` lets traffic through again. It serves Redis the same way.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private open = true;
  port = 0;
  /** Connections refused while cut: how many times the service behind tried again. */
  refused = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (!this.open) {
        this.refused++;
        client.destroy();
        return;
      }
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server?.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  cut(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.open = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
