import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { upsertViolations } from '@vigia/ingest';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestSystem, type TestSystem } from '../../api/test/support.js';
import { chromiumArgs, chromiumPath, ensureDashboardBuilt, hasChromium } from './browser-support.js';

/**
 * The desk layout's "Alertas" section, end to end: a real system whose retry window is 1.5 s
 * (ALERT_MAX_AGE_MS) sends a violation's alert to a receiver on a closed port and to a healthy
 * one; headless Chromium must show the first with its "Falhando desde" badge and the second
 * without, and a dispatcher (who may not read subscriptions) must see no section at all.
 */

if (!hasChromium) console.warn(`alert status browser test skipped: ${chromiumPath} is not installed`);

interface Subscription {
  id: string;
  failing: boolean;
  failingSince: string | null;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!hasChromium)('alert subscriptions on the dashboard', () => {
  let sys: TestSystem;
  let browser: Browser;
  const healthy = createServer((_req, res) => res.writeHead(200).end());
  let healthyPort = 0;
  let closedPort = 0;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    healthyPort = await listen(healthy);
    // A port that was just free and is closed again: every attempt is refused.
    const probe = createServer();
    closedPort = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));
    sys = await startTestSystem('pglite', {
      ALERT_POLL_INTERVAL_MS: '50',
      ALERT_BACKOFF_BASE_MS: '100',
      ALERT_BACKOFF_MAX_MS: '200',
      ALERT_TIMEOUT_MS: '1000',
      ALERT_MAX_AGE_MS: '1500',
    });
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
    await new Promise((resolve) => healthy.close(resolve));
  });

  it('shows a failing receiver with a Portuguese badge, a healthy one without, and nothing to a dispatcher', async () => {
    const subscribe = async (name: string, url: string) => {
      const res = await api<Subscription>(sys, 'POST', '/v1/alert-subscriptions', { name, url });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const down = await subscribe('Central fora do ar', `http://127.0.0.1:${closedPort}/hook?key=secret`);
    const up = await subscribe('Central ativa', `http://127.0.0.1:${healthyPort}/hook`);

    const t0 = Date.now() - 600_000;
    await sys.db.transaction((tx) =>
      upsertViolations(tx, [
        {
          eventKey: `alert-status-${Date.now()}`,
          ruleId: 'DF_BANDEIRA2_MISUSE',
          pack: 'df-taxi',
          legalBasis: ['Art. 45 III'],
          description: 'Bandeira II fora do horário permitido',
          descriptionEn: 'Tariff 2 outside its hours',
          vehicleId: 'veh-alert-status',
          plate: 'JKL1A23',
          operatorId: 'op-alert-status',
          permitNumber: null,
          driverId: null,
          variant: null,
          phase: 'ongoing',
          startedAt: new Date(t0),
          endedAt: null,
          lat: -15.79,
          lon: -47.88,
          place: null,
          confidence: 'confirmed',
          measured: { stretchM: 250 },
          penalty: { group: 'C' },
          recidivism: { count: 0 },
          evidenceFrom: new Date(t0 - 60_000),
          evidenceTo: new Date(t0 + 60_000),
        },
      ]),
    );
    // The API's own verdict first: the closed port fails for the whole (short) window, the other delivers.
    const failing = await waitFor('the closed-port subscription to be failing', async () => {
      const res = await api<Subscription>(sys, 'GET', `/v1/alert-subscriptions/${down.id}`);
      return res.body.failing ? res.body : undefined;
    });
    const ok = await api<Subscription>(sys, 'GET', `/v1/alert-subscriptions/${up.id}`);
    expect(ok.body).toMatchObject({ failing: false, failingSince: null });

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${sys.url}/#token=${sys.adminToken}`);
      const section = page.locator('#alert-status');
      await section.waitFor({ state: 'visible', timeout: 15_000 });
      expect(await section.locator('.panel-heading').textContent()).toBe('Alertas');

      const downRow = section.locator(`[data-subscription-id="${down.id}"]`);
      const badge = downRow.locator('.alert-status__badge');
      await badge.waitFor({ state: 'visible', timeout: 5_000 });
      // On Brazil's official clock, named (a subscription belongs to no pack), whatever the browser's zone.
      const expected = `${new Intl.DateTimeFormat('pt-BR', {
        timeZone: 'America/Sao_Paulo',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(failing.failingSince ?? ''))} horário de Brasília (UTC−3)`;
      expect(await badge.textContent()).toBe(`Falhando desde ${expected}`);
      expect(expected).toMatch(/^\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}:\d{2} horário de Brasília \(UTC−3\)$/);
      // The target is the host only: a webhook's path and query may carry a secret.
      expect(await downRow.locator('.alert-status__target').textContent()).toBe(`127.0.0.1:${closedPort}`);
      // Clearly visible: white on red, not the muted text of the list.
      const colours = await badge.evaluate((node) => {
        const style = getComputedStyle(node);
        return { color: style.color, background: style.backgroundColor };
      });
      expect(colours).toEqual({ color: 'rgb(255, 255, 255)', background: 'rgb(180, 35, 24)' });

      const upRow = section.locator(`[data-subscription-id="${up.id}"]`);
      expect(await upRow.locator('.alert-status__name').textContent()).toBe('Central ativa');
      expect(await upRow.locator('.alert-status__badge').count()).toBe(0);
      expect(await upRow.getAttribute('data-failing')).toBe('false');
    } finally {
      await page.close();
    }

    // A dispatcher may not read subscriptions (403): the section stays hidden, and no error is shown.
    await api(sys, 'POST', '/v1/operators', {
      id: 'op-alert-status',
      name: 'op-alert-status',
      pack: 'df-taxi',
      validFrom: new Date(Date.now() - 86_400_000).toISOString(),
    });
    const user = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'despacho',
      role: 'dispatcher',
      operatorIds: ['op-alert-status'],
    });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const forbidden = await api(sys, 'GET', '/v1/alert-subscriptions', undefined, user.body.token);
    expect(forbidden.status).toBe(403);
    const dispatcherPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      const answered = dispatcherPage.waitForResponse((r) => r.url().endsWith('/v1/alert-subscriptions'));
      await dispatcherPage.goto(`${sys.url}/#token=${user.body.token}`);
      expect((await answered).status()).toBe(403);
      expect(await dispatcherPage.locator('#alert-status').isHidden()).toBe(true);
      expect(await dispatcherPage.locator('#notice').isHidden()).toBe(true);
    } finally {
      await dispatcherPage.close();
    }
  }, 40_000);
});
