import { performance } from 'node:perf_hooks';
import { belemConfigSchema, dfConfigSchema, localDateTime, spConfigSchema } from '@vigia/rules';
import { createTransport, type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { z } from 'zod';
import type { AlertChannel, AlertMessage, AlertTarget, DeliveryResult } from './alert-channel.js';
import { alertEmailText } from './messages.pt-BR.js';

/**
 * Alerts by e-mail, for agencies without a system of their own to receive webhooks: a short
 * message in Portuguese with the link to the violation in the dashboard. "Delivered" means the
 * SMTP server accepted the message (what a 2xx is to a webhook); a 4xx/5xx reply or no answer is a
 * failed attempt the worker retries like any other.
 */
export interface EmailChannelOptions {
  /** SMTP_URL: `smtp://user:pass@host:587` or `smtps://user:pass@host:465`. */
  smtpUrl: string;
  /** SMTP_FROM. */
  from: string;
  /** Base of the link to the violation (publicUrlOf(config)), without a trailing slash. */
  publicUrl: string;
  /** Bound on one attempt (connect, greeting, each reply), in milliseconds. */
  timeoutMs: number;
  /** The pack's legal time zone (from the rule packs' settings); default: each pack's default. */
  timeZoneOf?: (pack: string) => string;
}

/** The violation fields an e-mail states; the rest of the payload is ignored. */
const violationSchema = z.object({
  id: z.string().min(1),
  ruleId: z.string(),
  pack: z.string(),
  description: z.string(),
  plate: z.string().nullable().optional(),
  place: z.object({ name: z.string() }).loose().nullable().optional(),
  lat: z.number().nullable().optional(),
  lon: z.number().nullable().optional(),
  startedAt: z.string(),
  legalBasis: z.array(z.string()).default([]),
  confidence: z.string(),
  status: z.string().default('open'),
});

/** The packs' own defaults, so a deployment without RULES_CONFIG_FILE reads the same clock the rules did. */
let defaultZones: Record<string, string> | undefined;
function defaultTimeZoneOf(pack: string): string {
  defaultZones ??= {
    'sp-fretamento': spConfigSchema.parse({}).timeZone,
    'df-taxi': dfConfigSchema.parse({}).timeZone,
    'belem-taxi': belemConfigSchema.parse({}).timeZone,
  };
  return defaultZones[pack] ?? 'America/Sao_Paulo';
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `06/03/2026 19:59:00 (UTC−03:00)`: the Brazilian reading of the rules' local time. */
function localTimeLabel(iso: string, timeZone: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  const l = localDateTime(ms, timeZone);
  const abs = Math.abs(l.offsetMinutes);
  const offset = `UTC${l.offsetMinutes < 0 ? '−' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
  return `${pad2(l.day)}/${pad2(l.month)}/${l.year} ${pad2(l.hour)}:${pad2(l.minute)}:${pad2(l.second)} (${offset})`;
}

/** What nodemailer attaches to its errors (SMTP reply code, its own error code); typed loosely by @types. */
const smtpErrorSchema = z.object({
  code: z.string().optional(),
  responseCode: z.number().int().optional(),
  response: z.string().optional(),
  command: z.string().optional(),
  message: z.string().optional(),
});

/** The first line of the server's reply, without the URL's credentials should a server echo them. */
function safeErrorText(err: unknown, secrets: readonly string[]): { status: number | null; error: string } {
  const parsed = smtpErrorSchema.safeParse(err);
  const e = parsed.success ? parsed.data : {};
  const reply = (e.response ?? e.message ?? String(err)).split(/\r?\n/)[0] ?? '';
  let text = [e.code, e.command ? `after ${e.command}` : undefined, reply].filter(Boolean).join(' ').slice(0, 300);
  for (const s of secrets) if (s.length > 0) text = text.split(s).join('***');
  return { status: e.responseCode ?? null, error: text || 'SMTP error' };
}

export class EmailChannel implements AlertChannel {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo, SMTPTransport.Options>;
  private readonly secrets: string[];
  private readonly timeZoneOf: (pack: string) => string;

  constructor(private readonly options: EmailChannelOptions) {
    const url = new URL(options.smtpUrl);
    this.secrets = [decodeURIComponent(url.password), url.password].filter((s) => s.length > 0);
    this.timeZoneOf = options.timeZoneOf ?? defaultTimeZoneOf;
    // One connection per message, no pool: alert e-mails are few, and a fresh connection per
    // attempt keeps each attempt's timeout and failure its own (a pooled connection the server
    // dropped would fail the next message for a reason that is not its own).
    this.transport = createTransport({
      url: options.smtpUrl,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
    });
  }

  async deliver(target: AlertTarget, message: AlertMessage): Promise<DeliveryResult> {
    const started = performance.now();
    const took = (): number => Math.round(performance.now() - started);
    if (!target.email) return { ok: false, status: null, durationMs: 0, error: 'subscription has no e-mail address' };
    const parsed = violationSchema.safeParse(message.violation);
    if (!parsed.success) return { ok: false, status: null, durationMs: 0, error: 'event payload is not a violation' };
    const v = parsed.data;
    const place = v.place?.name ?? (v.lat != null && v.lon != null ? `${v.lat.toFixed(5)}, ${v.lon.toFixed(5)}` : null);
    const content = alertEmailText({
      type: message.type,
      ruleId: v.ruleId,
      description: v.description,
      pack: v.pack,
      plate: v.plate ?? null,
      place,
      localTime: localTimeLabel(v.startedAt, this.timeZoneOf(v.pack)),
      legalBasis: v.legalBasis,
      confidence: v.confidence,
      status: v.status,
      // The dashboard's address-bar parameters live in the hash (as `#token=`), never sent to the server.
      link: `${this.options.publicUrl}/#violation=${encodeURIComponent(v.id)}`,
    });
    try {
      const info = await this.transport.sendMail({
        from: this.options.from,
        to: target.email,
        subject: content.subject,
        text: content.text,
        html: content.html,
        // The same Message-ID on every retry of an event, so a mail system can drop a duplicate.
        messageId: `<${message.id}.${target.subscriptionId}@vigia>`,
        headers: { 'Vigia-Event-Id': message.id },
      });
      const status = Number.parseInt(String(info.response ?? '').slice(0, 3), 10);
      return { ok: true, status: Number.isFinite(status) ? status : 250, durationMs: took() };
    } catch (err) {
      return { ok: false, ...safeErrorText(err, this.secrets), durationMs: took() };
    }
  }

  close(): void {
    this.transport.close();
  }
}
