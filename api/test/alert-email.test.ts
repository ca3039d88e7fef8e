import { type AddressInfo, createServer, type Socket } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertMessage, AlertTarget } from '../src/alerts/alert-channel.js';
import { EmailChannel } from '../src/alerts/email-channel.js';
import { api, overCapacityRide, registerVehicle, startTestSystem, type TestSystem } from './support.js';

/** One message as the SMTP server received it. */
interface Received {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on a free loopback port: it accepts every recipient except those whose
 * local part starts with `refuse` (550, as a server answers an unknown mailbox), and requires the
 * credentials `vigia` / `s3cret-pass` when a client authenticates.
 */
async function startSmtp(): Promise<{ port: number; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'vigia' && auth.password === 's3cret-pass') callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Authentication failed'), { responseCode: 535 }));
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (address.address.startsWith('refuse')) {
        callback(Object.assign(new Error('5.1.1 Mailbox unavailable'), { responseCode: 550 }));
      } else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        received.push({
          from,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

// ---- A small MIME reader: enough of RFC 2045/2047 to read what nodemailer writes. -----------

function decodeQuotedPrintable(s: string): string {
  const bytes: number[] = [];
  const soft = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i];
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c ?? '', 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A header's value, unfolded, with RFC 2047 encoded words decoded. */
function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  if (line === undefined) return undefined;
  const value = line.slice(name.length + 1).trim();
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
      enc.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

/** The decoded body of the first part with this content type. */
function part(raw: string, contentType: string): string {
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(raw)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`) : [raw];
  const found = parts.find((p) => new RegExp(`content-type:\\s*${contentType}`, 'i').test(p));
  if (!found) throw new Error(`no ${contentType} part`);
  const [head = '', ...bodyParts] = found.split(/\r?\n\r?\n/);
  const body = bodyParts.join('\n\n');
  const encoding = /content-transfer-encoding:\s*([\w-]+)/i.exec(head)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

// -----------------------------------------------------------------------------------------------

const violationId = '5b0c4c6e-8f7e-4a39-9d2c-6f1e2d3c4b5a';
const message: AlertMessage = {
  id: 'evt-0001',
  type: 'violation.raised',
  createdAt: '2026-03-06T23:00:05.000Z',
  violation: {
    id: violationId,
    ruleId: 'BEL_BANDEIRA2_MISUSE',
    pack: 'belem-taxi',
    legalBasis: ['Art. 35', 'Art. 58 II'],
    description: 'Bandeira 2 usada fora do horário permitido',
    descriptionEn: 'Bandeira 2 used outside the permitted hours',
    vehicleId: 'veh-1',
    plate: 'QEZ1A23',
    operatorId: 'op-1',
    driverId: null,
    // 22:59 UTC is 19:59 in Belém (UTC−03:00, no daylight saving).
    startedAt: '2026-03-06T22:59:00.000Z',
    endedAt: null,
    detectedAt: '2026-03-06T23:00:00.000Z',
    lat: -1.4558,
    lon: -48.4902,
    place: { kind: 'stand', id: 'stand-9', name: 'Ponto Praça da República' },
    confidence: 'confirmed',
    measured: {},
    penalty: { group: 'II' },
    recidivism: { count: 0, windowDays: 365 },
    status: 'open',
  },
};
const target = (email: string): AlertTarget => ({
  subscriptionId: 'sub-1',
  name: 'SEMOB plantão',
  url: null,
  email,
  secret: 'unused-for-email',
});

describe('e-mail alert channel', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const channels: EmailChannel[] = [];
  const channel = (smtpUrl: string, timeoutMs = 5000): EmailChannel => {
    const c = new EmailChannel({
      smtpUrl,
      from: 'Vigia <alertas@vigia.test>',
      publicUrl: 'https://vigia.semob.example',
      timeoutMs,
    });
    channels.push(c);
    return c;
  };

  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    for (const c of channels) c.close();
    await smtp.close();
  });

  it('sends a Portuguese message with the rule, plate, place, local time, legal basis and the link', async () => {
    const result = await channel(`smtp://127.0.0.1:${smtp.port}`).deliver(target('fiscal@semob.example'), message);
    expect(result).toMatchObject({ ok: true, status: 250 });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0];
    if (!mail) throw new Error('nothing received');
    expect(mail.from).toBe('alertas@vigia.test');
    expect(mail.to).toEqual(['fiscal@semob.example']);

    expect(header(mail.raw, 'Subject')).toBe(
      '[Vigia] Nova infração: BEL_BANDEIRA2_MISUSE — placa QEZ1A23 — Ponto Praça da República',
    );
    expect(header(mail.raw, 'Vigia-Event-Id')).toBe('evt-0001');
    expect(header(mail.raw, 'Message-ID')).toBe('<evt-0001.sub-1@vigia>');

    const link = `https://vigia.semob.example/#violation=${violationId}`;
    const text = part(mail.raw, 'text/plain');
    expect(text).toContain('O que aconteceu: Bandeira 2 usada fora do horário permitido');
    // The pack's local clock, not UTC and not the server's.
    expect(text).toContain('Data e hora (local): 06/03/2026 19:59:00 (UTC−03:00)');
    expect(text).toContain('Base legal: Art. 35; Art. 58 II');
    expect(text).toContain('Confiabilidade: confirmada');
    expect(text).toContain('Serviço: Táxi (Belém)');
    expect(text).toContain(link);

    const html = part(mail.raw, 'text/html');
    expect(html).toContain(`<a href="${link}">`);
    expect(html).toContain('Ponto Praça da República');
    expect(html).toContain('06/03/2026 19:59:00');
  });

  it('escapes the violation text in the HTML part', async () => {
    const before = smtp.received.length;
    const hostile: AlertMessage = {
      ...message,
      id: 'evt-html',
      violation: { ...message.violation, description: '<script>alert(1)</script> & "x"' },
    };
    const result = await channel(`smtp://127.0.0.1:${smtp.port}`).deliver(target('fiscal@semob.example'), hostile);
    expect(result.ok).toBe(true);
    const mail = smtp.received[before];
    if (!mail) throw new Error('nothing received');
    const html = part(mail.raw, 'text/html');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;x&#34;');
  });

  it('a recipient the server refuses is a failed attempt with the SMTP code, and nothing is delivered', async () => {
    const before = smtp.received.length;
    const result = await channel(`smtp://127.0.0.1:${smtp.port}`).deliver(target('refuse@semob.example'), message);
    expect(result.ok).toBe(false);
    expect(result.status).toBe(550);
    expect(result.error).toMatch(/Mailbox unavailable/);
    expect(smtp.received).toHaveLength(before);
  });

  it('refused credentials are a failed attempt whose error does not carry the password', async () => {
    const result = await channel(`smtp://vigia:wrong-pass@127.0.0.1:${smtp.port}`).deliver(
      target('fiscal@semob.example'),
      message,
    );
    expect(result.ok).toBe(false);
    expect(result.status).toBe(535);
    expect(result.error).not.toContain('wrong-pass');
    // And the right credentials do deliver.
    const ok = await channel(`smtp://vigia:s3cret-pass@127.0.0.1:${smtp.port}`).deliver(
      target('fiscal@semob.example'),
      message,
    );
    expect(ok).toMatchObject({ ok: true, status: 250 });
  });

  it('no SMTP server listening is a failed attempt without a status', async () => {
    const closed = await startSmtp();
    await closed.close();
    const result = await channel(`smtp://127.0.0.1:${closed.port}`, 2000).deliver(
      target('fiscal@semob.example'),
      message,
    );
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/ECONNECTION|ECONNREFUSED/);
  });

  it('a server that never answers fails the attempt within the timeout', async () => {
    // Accepts the connection and stays silent: no greeting ever comes.
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (silent.address() as AddressInfo).port;
      const result = await channel(`smtp://127.0.0.1:${port}`, 300).deliver(target('fiscal@semob.example'), message);
      expect(result).toMatchObject({ ok: false, status: null });
      expect(result.error).toMatch(/ETIMEDOUT|timeout/i);
      expect(result.durationMs).toBeGreaterThanOrEqual(250);
      expect(result.durationMs).toBeLessThan(3000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('e-mail alerts end to end: a raised violation reaches a subscribed mailbox through the worker', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sys: TestSystem;

  beforeAll(async () => {
    smtp = await startSmtp();
    sys = await startTestSystem('postgres', {
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      SMTP_URL: `smtp://vigia:s3cret-pass@127.0.0.1:${smtp.port}`,
      SMTP_FROM: 'Vigia SEMOB <alertas@vigia.test>',
      PUBLIC_URL: 'https://vigia.semob.example/',
      ALERT_POLL_INTERVAL_MS: '100',
      ALERT_TIMEOUT_MS: '2000',
    });
  });
  afterAll(async () => {
    await sys?.stop();
    await smtp?.close();
  });

  it('delivers the violation to the address, with the link, and logs the SMTP acceptance', async () => {
    const sub = await api<{ id: string; email: string | null; url: string | null }>(
      sys,
      'POST',
      '/v1/alert-subscriptions',
      { name: 'DETRAN-DF plantão', email: 'plantao@detran.example' },
    );
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    expect(sub.body).toMatchObject({ email: 'plantao@detran.example', url: null });

    // A DF taxi carrying 6 passengers in 4 seats for a minute, an hour ago: DF_OVER_CAPACITY.
    const dev = await registerVehicle(sys, { pack: 'df-taxi' });
    const t0 = Date.now() - 3_600_000;
    const samples = overCapacityRide(dev.identifier, t0, `trip-${dev.vehicleId}`);
    const sent = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', samples, dev.token);
    expect(sent.body.accepted).toBe(samples.length);
    const violation = await until('the violation', async () => {
      const list = await api<{ items: { id: string; plate: string | null }[] }>(
        sys,
        'GET',
        `/v1/violations?vehicleId=${dev.vehicleId}&ruleId=DF_OVER_CAPACITY`,
      );
      return list.body.items[0];
    });

    const mail = await until('the e-mail', () =>
      smtp.received.find((m) => part(m.raw, 'text/plain').includes(violation.id)),
    );
    expect(mail.to).toEqual(['plantao@detran.example']);
    expect(mail.from).toBe('alertas@vigia.test');
    // No named stop or stand for this rule: the place is the violation's coordinates.
    expect(header(mail.raw, 'Subject')).toMatch(
      new RegExp(
        `^\\[Vigia\\] Nova infração: DF_OVER_CAPACITY — placa ${violation.plate} — -15\\.79\\d+, -47\\.88\\d+$`,
      ),
    );
    const eventId = header(mail.raw, 'Vigia-Event-Id');
    expect(eventId).toMatch(/.+/);
    const text = part(mail.raw, 'text/plain');
    // PUBLIC_URL's trailing slash is not doubled.
    expect(text).toContain(`https://vigia.semob.example/#violation=${violation.id}`);
    expect(text).toContain('Serviço: Táxi (Distrito Federal)');

    const log = await until('the delivery logged as delivered', async () => {
      const res = await api<{ items: { status: string; attempts: number; lastResponseStatus: number | null }[] }>(
        sys,
        'GET',
        `/v1/alert-subscriptions/${sub.body.id}/deliveries`,
      );
      const done = res.body.items.filter((d) => d.status === 'delivered');
      return done.length > 0 ? done : undefined;
    });
    expect(log[0]).toMatchObject({ status: 'delivered', attempts: 1, lastResponseStatus: 250 });
    // One event, one e-mail: the worker did not send it twice.
    expect(smtp.received.filter((m) => header(m.raw, 'Vigia-Event-Id') === eventId)).toHaveLength(1);
  });

  it('a mailbox the SMTP server refuses stays pending for a retry, with the 550 in the delivery log', async () => {
    const sub = await api<{ id: string }>(sys, 'POST', '/v1/alert-subscriptions', {
      name: 'caixa inexistente',
      email: 'refuse-me@detran.example',
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const dev = await registerVehicle(sys, { pack: 'df-taxi' });
    const t0 = Date.now() - 1_800_000;
    const samples = overCapacityRide(dev.identifier, t0, `trip-${dev.vehicleId}`);
    await api(sys, 'POST', '/v1/telemetry', samples, dev.token);
    const attempt = await until('a failed attempt', async () => {
      const res = await api<{
        items: {
          status: string;
          attempts: number;
          lastResponseStatus: number | null;
          lastDurationMs: number | null;
          lastError?: string | null;
        }[];
      }>(sys, 'GET', `/v1/alert-subscriptions/${sub.body.id}/deliveries`);
      // A claimed attempt counts at once; its outcome is recorded when it ends.
      return res.body.items.find((d) => d.attempts >= 1 && d.lastDurationMs !== null);
    });
    expect(attempt).toMatchObject({ status: 'pending', lastResponseStatus: 550 });
    expect(attempt.lastError).toMatch(/Mailbox unavailable/);
    expect(attempt.lastError).not.toContain('s3cret-pass');
    expect(smtp.received.some((m) => m.to.includes('refuse-me@detran.example'))).toBe(false);
  });
});
