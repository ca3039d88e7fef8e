import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  overCapacityRide,
  registerVehicle,
  startTestSystem,
  type TestSystem,
  waitFor,
} from '../../api/test/support.js';
import {
  chromiumPath,
  ensureDashboardBuilt,
  hasChromium,
  launchChromium,
  type PageMap,
  waitForIdleMap,
} from './browser-support.js';

/**
 * Every string the interface shows comes from a message catalogue. The pages run in the test-only
 * pseudo-locale `qps` (src/i18n.ts), where every catalogue string, and every string a catalogue
 * function returns, is wrapped in ⟦…⟧. The test then reads every visible text, and the title,
 * aria-label and placeholder of every visible element, on the desk (as the admin and as a
 * dispatcher), the violation detail, the vehicle popup, the dispatch console, the field view and
 * the driver page: each must be wrapped, or be data the page marks as such (`data-value`, a
 * `<time>`), or hold no letters at all (counts, coordinates, punctuation, SI units). An English
 * literal left in a view fails here with the text and where it is.
 *
 * Then the same pages in the real default locale: screenshots of the Portuguese interface.
 */

if (!hasChromium) console.warn(`catalogue browser test skipped: ${chromiumPath} is not installed`);

/** `window.vigia` (src/debug-handle.ts) as page scripts see it. */
interface PageVigia {
  map: PageMap;
  vehicles(): Array<{ id: string; lat: number; lon: number }>;
}

interface Finding {
  text: string;
  where: string;
}

/** Runs in the page: what is shown and neither from a catalogue nor marked as data. */
function unmarkedTexts(): Finding[] {
  const open = '⟦';
  const close = '⟧';
  /** Removes wrapped segments, innermost first (a catalogue function may wrap another's output). */
  const strip = (text: string) => {
    let rest = text;
    for (;;) {
      const next = rest.replace(new RegExp(`${open}[^${open}${close}]*${close}`, 'g'), '');
      if (next === rest) return rest;
      rest = next;
    }
  };
  // SI units and the real's sign read the same in every language.
  const neutral = (text: string) => !/\p{L}/u.test(strip(text).replace(/\b(?:km\/h|km|m|s|ms|min|h)\b|R\$|UTC/g, ''));
  const describe = (element: Element) => {
    const parts: string[] = [];
    for (let node: Element | null = element; node && parts.length < 4; node = node.parentElement) {
      parts.unshift(
        `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}${node.classList.length ? `.${[...node.classList].join('.')}` : ''}`,
      );
    }
    return parts.join(' > ');
  };
  const isData = (element: Element) => element.closest('[data-value], time') !== null;
  // The map's attribution is the data sources' own notice (ODbL requires it as written).
  const isAttribution = (element: Element) => element.closest('.maplibregl-ctrl-attrib') !== null;
  const visible = (element: Element) =>
    element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) || element instanceof HTMLOptionElement;
  const findings: Finding[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent?.trim() ?? '';
    const parent = node.parentElement;
    if (!text || !parent || !visible(parent) || parent.closest('script, style')) continue;
    if (isData(parent) || isAttribution(parent) || neutral(text)) continue;
    findings.push({ text, where: describe(parent) });
  }
  for (const element of document.body.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (!visible(element) || isAttribution(element)) continue;
    for (const attribute of ['title', 'aria-label', 'placeholder']) {
      const value = element.getAttribute(attribute)?.trim();
      if (!value || neutral(value)) continue;
      if (element.hasAttribute('data-value')) continue;
      if (attribute === 'title' && element.hasAttribute('data-value-title')) continue;
      findings.push({ text: value, where: `${describe(element)} [${attribute}]` });
    }
  }
  return findings;
}

const rodoviaria = { lat: -15.7939, lon: -47.8828 };

describe.skipIf(!hasChromium)('every string shown comes from a catalogue', () => {
  let sys: TestSystem;
  let browser: Browser;
  let pseudo: BrowserContext;
  let dispatcherToken = '';
  let deviceToken = '';
  let violationId = '';
  let vehicleId = '';
  let heartbeat: NodeJS.Timeout | undefined;
  const shots = join(tmpdir(), `vigia-i18n-shots-${process.pid}`);

  beforeAll(async () => {
    await ensureDashboardBuilt();
    await mkdir(shots, { recursive: true });
    console.log(`catalogue test screenshots: ${shots}`);
    sys = await startTestSystem('pglite', { LIVE_PUSH_INTERVAL_MS: '250', DEMO_BOOKING_INTERVAL_S: '0' });
    const operatorId = `coop-i18n-${process.pid}`;
    // One taxi that broke a rule (an open violation in the feed, its detail and the popup), one free taxi for dispatch.
    const offender = await registerVehicle(sys, { operatorId });
    const free = await registerVehicle(sys, { operatorId });
    vehicleId = offender.vehicleId;
    deviceToken = free.token;
    const ride = await api(
      sys,
      'POST',
      '/v1/telemetry',
      overCapacityRide(offender.identifier, Date.now() - 90_000, `trip-${process.pid}`),
      offender.token,
    );
    expect(ride.status, JSON.stringify(ride.body)).toBeLessThan(300);
    violationId = await waitFor(
      'the over-capacity violation',
      async () =>
        (await api<{ items: Array<{ id: string }> }>(sys, 'GET', `/v1/violations?vehicleId=${offender.vehicleId}`)).body
          .items[0]?.id,
      20_000,
    );
    const beat = () =>
      api(
        sys,
        'POST',
        '/v1/telemetry',
        [
          {
            deviceId: free.identifier,
            ts: new Date().toISOString(),
            ...rodoviaria,
            speedKmh: 0,
            meter: { state: 'free' },
          },
        ],
        free.token,
      );
    await beat();
    heartbeat = setInterval(() => void beat().catch(() => undefined), 5000);
    const user = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Central de rádio',
      role: 'dispatcher',
      operatorIds: [operatorId],
    });
    dispatcherToken = user.body.token;
    const booking = await api(
      sys,
      'POST',
      '/v1/bookings',
      { operatorId, pickup: { ...rodoviaria, address: 'Rodoviária do Plano Piloto' }, mode: 'manual', passengers: 2 },
      dispatcherToken,
    );
    expect(booking.status, JSON.stringify(booking.body)).toBe(201);

    browser = await launchChromium();
    pseudo = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'pt-BR' });
    await pseudo.addInitScript(() => window.localStorage.setItem('vigia.locale', 'qps'));
  }, 90_000);

  afterAll(async () => {
    clearInterval(heartbeat);
    await pseudo?.close();
    await browser?.close();
    await sys?.stop();
  });

  /** Opens a page in the pseudo-locale, waits for `ready`, and returns what is not from a catalogue. */
  const check = async (path: string, ready: (page: Page) => Promise<void>): Promise<Finding[]> => {
    const page = await pseudo.newPage();
    try {
      await page.goto(`${sys.url}${path}`);
      await ready(page);
      // Let the first live push and the periodic refreshes land before reading.
      await page.waitForTimeout(1500);
      return await page.evaluate(unmarkedTexts);
    } finally {
      await page.close();
    }
  };

  const expectNone = (findings: Finding[]) =>
    expect.soft(findings.map((finding) => `${finding.text}  ←  ${finding.where}`)).toEqual([]);

  it('marks the pseudo-locale wrapping on the page (the test would prove nothing otherwise)', async () => {
    const page = await pseudo.newPage();
    await page.goto(`${sys.url}/#token=${sys.adminToken}`);
    await page.locator('.session-signout').waitFor({ state: 'visible', timeout: 45_000 });
    expect(await page.locator('.session-signout').textContent()).toBe('⟦Sair⟧');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('pt-BR');
    await page.close();
  });

  it('on the desk as the admin: fleet, feed, top bar, a violation open and a vehicle popup', async () => {
    expectNone(
      await check(`/#token=${sys.adminToken}`, async (page) => {
        await page.locator(`[data-violation-id="${violationId}"] button`).first().waitFor({ timeout: 45_000 });
        await page.locator('.session-user__role').waitFor({ state: 'visible' });
      }),
    );
    expectNone(
      await check(`/#violation=${violationId}&token=${sys.adminToken}`, async (page) => {
        await page.locator('.violation-detail .review-trail, .violation-detail .detail-note').first().waitFor({
          timeout: 45_000,
        });
        await page.locator('.evidence-summary .detail-facts').waitFor({ timeout: 45_000 });
      }),
    );
    expectNone(
      await check(`/#token=${sys.adminToken}`, async (page) => {
        await page.waitForFunction(
          (id) => {
            const vigia = (globalThis as { vigia?: { vehicles(): Array<{ id: string }> } }).vigia;
            return vigia?.vehicles().some((vehicle) => vehicle.id === id) ?? false;
          },
          vehicleId,
          { timeout: 45_000 },
        );
        // Street zoom on the vehicle, then a click on its marker opens the popup.
        const at = await page.evaluate((id) => {
          const vigia = (globalThis as unknown as { vigia: PageVigia }).vigia;
          const vehicle = vigia.vehicles().find((candidate) => candidate.id === id);
          if (!vehicle) throw new Error('vehicle not on the map');
          vigia.map.jumpTo({ center: [vehicle.lon, vehicle.lat], zoom: 15 });
          return [vehicle.lon, vehicle.lat] as [number, number];
        }, vehicleId);
        await waitForIdleMap(page);
        const point = await page.evaluate(
          (lngLat) => (globalThis as unknown as { vigia: PageVigia }).vigia.map.project(lngLat),
          at,
        );
        await page.locator('#map canvas.maplibregl-canvas').click({ position: { x: point.x, y: point.y } });
        await page.locator('.vehicle-popup').waitFor({ state: 'visible', timeout: 10_000 });
      }),
    );
  }, 240_000);

  it('on the desk and the dispatch console as a dispatcher', async () => {
    expectNone(
      await check(`/#token=${dispatcherToken}`, async (page) => {
        await page.locator('.session-user__role').waitFor({ state: 'visible', timeout: 45_000 });
        await page.locator(`[data-violation-id="${violationId}"] button`).first().waitFor({ timeout: 45_000 });
      }),
    );
    expectNone(
      await check(`/#dispatch&token=${dispatcherToken}`, async (page) => {
        await page.locator('.dispatch-booking').first().waitFor({ timeout: 45_000 });
        await page.locator('.dispatch-booking').first().click();
        await page.locator('.session-user__role').waitFor({ state: 'visible' });
      }),
    );
  }, 240_000);

  it('on the field view and the driver page', async () => {
    expectNone(
      await check(`/#field&token=${sys.adminToken}`, async (page) => {
        await page.locator('[data-city="brasilia"]').click({ timeout: 45_000 });
        await page.locator('.field-row').first().waitFor({ timeout: 45_000 });
      }),
    );
    expectNone(
      await check(`/driver#token=${deviceToken}`, async (page) => {
        await page.locator('#driver-waiting').waitFor({ state: 'visible', timeout: 45_000 });
      }),
    );
  }, 240_000);

  it('shows the Portuguese interface by default (screenshots)', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(`${sys.url}/#violation=${violationId}&token=${sys.adminToken}`);
      await page.locator('.evidence-summary .detail-facts').waitFor({ timeout: 45_000 });
      await page.locator('.session-user__role').waitFor({ state: 'visible' });
      // A browser in English still gets Portuguese: the interface's default is the users' language.
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('pt-BR');
      expect(await page.locator('.session-signout').textContent()).toBe('Sair');
      expect(await page.locator('.session-user__role').textContent()).toBe('Administrador');
      await page.waitForTimeout(1000);
      await writeFile(join(shots, 'desk-violation-pt-BR.png'), await page.screenshot());

      // The switch: EN reloads in English, and the choice is kept.
      await page.locator('.language-switch__option[data-locale="en"]').click();
      await page.locator('.session-signout').waitFor({ state: 'visible', timeout: 45_000 });
      await expect.poll(() => page.locator('.session-signout').textContent()).toBe('Sign out');
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
      await page.locator('.language-switch__option[data-locale="pt-BR"]').click();
      await expect.poll(() => page.locator('.session-signout').textContent(), { timeout: 45_000 }).toBe('Sair');

      // A new document (a hash change alone would be a same-page navigation the app reloads itself on).
      await page.goto('about:blank');
      await page.goto(`${sys.url}/#dispatch&token=${dispatcherToken}`);
      await page.locator('.dispatch-booking').first().waitFor({ timeout: 45_000 });
      await page.locator('.session-user__role').waitFor({ state: 'visible' });
      expect(await page.locator('.session-user__role').textContent()).toBe('Despachante');
      await page.waitForTimeout(1000);
      await writeFile(join(shots, 'dispatch-pt-BR.png'), await page.screenshot());

      // Sair forgets the token and starts over at the sign-in dialog.
      await page.locator('.session-signout').click();
      await page.locator('#token-dialog[open]').waitFor({ timeout: 45_000 });
      expect(await page.locator('#token-title').textContent()).toBe('Entrar no Vigia');
      expect(await page.evaluate(() => window.localStorage.getItem('vigia.apiToken'))).toBeNull();
      await writeFile(join(shots, 'signed-out-pt-BR.png'), await page.screenshot());
    } finally {
      await context.close();
    }
  }, 240_000);
});
