/**
 * A webhook receiver as an enforcement agency would run one: a real HTTP server that checks
 * `Vigia-Signature` (`t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`) over the raw
 * body and records every alert it is sent. The alert tests and the latency benchmark share it
 * (it lives under src/ so the built benchmark can run it). It can be told to answer 500, to hang
 * past the sender's timeout, or to be down (server closed, port kept for `up()`).
 *
 * Each subscription gets its own path (`url(name)`) with its own secret, so one receiver serves
 * several subscriptions and tells their deliveries apart.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverMode = 'ok' | 'fail' | 'hang';

/** One request the receiver got, whatever it answered. */
export interface ReceivedAlert {
  /** The path's name (the subscription it was registered for). */
  name: string;
  /** `Vigia-Event-Id` header. */
  headerEventId: string | null;
  /** The body's `id`, `type` and `violation.id`. */
  eventId: string;
  type: string;
  violationId: string;
  body: AlertBody;
  arrivedAt: number;
  /** The signature held (secret, body and a timestamp within 5 minutes of now). */
  signatureValid: boolean;
  /** What the receiver answered (0: it hung up or never answered). */
  answered: number;
}

export interface AlertBody {
  id: string;
  type: string;
  createdAt: string;
  violation: { id: string; [key: string]: unknown };
}

/** Verifies a `Vigia-Signature` header against the raw body, as a receiver must. */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secret: string,
  nowMs = Date.now(),
): boolean {
  if (!header) return false;
  const parts = new Map(
    header.split(',').map((p) => {
      const eq = p.indexOf('=');
      return [p.slice(0, eq).trim(), p.slice(eq + 1).trim()] as const;
    }),
  );
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !v1 || !/^\d+$/.test(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  // Replay window: a captured request re-sent later than this is refused.
  if (Math.abs(nowMs / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

export class AlertReceiver {
  /** Every request, in arrival order. */
  readonly requests: ReceivedAlert[] = [];
  mode: ReceiverMode = 'ok';
  private readonly secrets = new Map<string, string>();
  private server: Server;
  private hanging = new Set<ServerResponse>();
  private port = 0;

  private constructor() {
    this.server = this.makeServer();
  }

  static async start(): Promise<AlertReceiver> {
    const r = new AlertReceiver();
    await r.listen(0);
    return r;
  }

  /** The URL to subscribe with for `name`, whose deliveries are checked against `secret`. */
  url(name: string, secret: string): string {
    this.secrets.set(name, secret);
    return `http://127.0.0.1:${this.port}/hooks/${encodeURIComponent(name)}`;
  }

  /** The alerts answered 2xx (delivered), optionally for one path. */
  delivered(name?: string): ReceivedAlert[] {
    return this.requests.filter((r) => r.answered >= 200 && r.answered < 300 && (!name || r.name === name));
  }

  /** Stops listening (and drops open connections), keeping the port for `up()`. */
  async down(): Promise<void> {
    this.releaseHanging();
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.server.closeAllConnections();
    await closed;
  }

  async up(): Promise<void> {
    this.server = this.makeServer();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.down();
  }

  private releaseHanging(): void {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  private async listen(port: number): Promise<void> {
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  private makeServer(): Server {
    const server = createServer((req, res) => void this.handle(req, res));
    // Keep-alive sockets would otherwise outlive `down()` on the sender's side.
    server.keepAliveTimeout = 1000;
    return server;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const name = decodeURIComponent((req.url ?? '').replace(/^\/hooks\//, ''));
    const secret = this.secrets.get(name);
    let body: AlertBody;
    try {
      body = JSON.parse(raw.toString('utf8')) as AlertBody;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const sig = req.headers['vigia-signature'];
    const record: ReceivedAlert = {
      name,
      headerEventId: typeof req.headers['vigia-event-id'] === 'string' ? req.headers['vigia-event-id'] : null,
      eventId: body.id,
      type: body.type,
      violationId: body.violation?.id,
      body,
      arrivedAt: Date.now(),
      signatureValid: secret !== undefined && verifySignature(typeof sig === 'string' ? sig : undefined, raw, secret),
      answered: 0,
    };
    this.requests.push(record);
    if (!record.signatureValid) {
      record.answered = 401;
      res.writeHead(401).end();
      return;
    }
    if (this.mode === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    record.answered = this.mode === 'fail' ? 500 : 204;
    res.writeHead(record.answered).end();
  }
}
