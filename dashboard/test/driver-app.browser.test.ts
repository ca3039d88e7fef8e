import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from '../../api/test/support.js';
import {
  chromiumPath,
  countColour,
  ensureDashboardBuilt,
  hasChromium,
  hexToRgb,
  launchChromium,
  mapScreenshot,
  phoneContext,
  screenshotDir,
  waitForIdleMap,
} from './browser-support.js';

/**
 * The driver page (`/driver`) on a phone (360 × 740, touch) against a real system: opened with a
 * device token in the link, it shows the offer a booking makes to its taxi, accepts it with one
 * tap, then the pickup on the map; the booking on the server is accepted. The phone as tracker
 * moves the booking on (arrived, on board); the PWA's manifest and service worker are in place,
 * and the page opens and says it is offline without network.
 */

if (!hasChromium) console.warn(`driver page browser test skipped: ${chromiumPath} is not installed`);

const PICKUP = { lat: -15.7942, lon: -47.8822, address: 'Setor Comercial Sul, Quadra 2' };
/** booking-panel.ts pickupColour. */
const pickupColour = hexToRgb('#16a34a');

/** Differing pixels: a blank (one-colour) capture has none. */
function distinctColours(png: PNG): number {
  const seen = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4) {
    seen.add(((png.data[i] ?? 0) << 16) | ((png.data[i + 1] ?? 0) << 8) | (png.data[i + 2] ?? 0));
    if (seen.size > 50) break;
  }
  return seen.size;
}

async function pageShot(page: Page, name: string): Promise<PNG> {
  const png = await page.screenshot();
  if (screenshotDir) {
    await mkdir(screenshotDir, { recursive: true });
    await writeFile(join(screenshotDir, `${name}.png`), png);
  }
  return PNG.sync.read(png);
}

describe.skipIf(!hasChromium)('driver page on a phone', () => {
  let sys: TestSystem;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let taxi: Awaited<ReturnType<typeof registerVehicle>>;
  let bookingId = '';
  const cspViolations: string[] = [];

  beforeAll(async () => {
    await ensureDashboardBuilt();
    // Offers stay open long enough for a loaded machine to draw and tap them.
    sys = await startTestSystem('pglite', { DISPATCH_OFFER_TIMEOUT_S: '120', DISPATCH_POLL_INTERVAL_MS: '250' });
    taxi = await registerVehicle(sys);
    // Free and 400 m north of the pickup: the operator's only candidate.
    const free = await api(
      sys,
      'POST',
      '/v1/telemetry',
      {
        deviceId: taxi.identifier,
        ts: new Date().toISOString(),
        lat: PICKUP.lat + 400 / 111_195,
        lon: PICKUP.lon,
        meter: { state: 'free' },
      },
      taxi.token,
    );
    expect(free.status).toBe(200);
    browser = await launchChromium();
    context = await browser.newContext({
      ...phoneContext,
      // The phone is at the pickup: once it tracks, the taxi has arrived.
      geolocation: { latitude: PICKUP.lat, longitude: PICKUP.lon, accuracy: 8 },
      permissions: ['geolocation'],
    });
    // Headless Chromium has no motor: what the page asks of navigator.vibrate is recorded instead.
    await context.addInitScript(() => {
      const calls: unknown[] = [];
      (globalThis as unknown as { vibrations: unknown[] }).vibrations = calls;
      Object.defineProperty(navigator, 'vibrate', {
        value: (pattern: unknown) => {
          calls.push(pattern);
          return true;
        },
        configurable: true,
      });
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
        cspViolations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('shows the offer, accepts it with one tap, then the pickup on the map; the booking is accepted', async () => {
    const response = await page.goto(`${sys.url}/driver#token=${taxi.token}`);
    expect(response?.status()).toBe(200);
    expect((await response?.allHeaders())?.['content-security-policy']).toContain("default-src 'self'");
    await expect.poll(() => page.locator('#driver-connection').getAttribute('data-state')).toBe('live');
    await expect(page.locator('#driver-waiting').textContent()).resolves.toContain('Aguardando corridas');
    // The token left the address bar and is kept for the next visit, apart from a dashboard token.
    expect(page.url()).toBe(`${sys.url}/driver`);
    expect(await page.evaluate(() => localStorage.getItem('vigia.driverToken'))).toBe(taxi.token);

    const createdAt = Date.now();
    const created = await api<{ id: string }>(sys, 'POST', '/v1/bookings', {
      operatorId: taxi.operatorId,
      pickup: PICKUP,
      passengers: 3,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    bookingId = created.body.id;

    const offer = page.locator('#driver-offer');
    await offer.waitFor({ state: 'visible', timeout: 15_000 });
    console.log(`driver page: offer on screen ${Date.now() - createdAt} ms after POST /v1/bookings was sent`);
    const text = (await offer.textContent()) ?? '';
    expect(text).toContain('Nova corrida');
    expect(text).toContain(PICKUP.address);
    expect(text).toContain('3 passageiros');
    // 400 m straight line, the distance the offer carries.
    expect(text).toMatch(/Distância(39\d|40\d|41\d) m/);
    // The new offer buzzed the phone once.
    expect(await page.evaluate(() => (globalThis as unknown as { vibrations: unknown[] }).vibrations)).toEqual([
      [400, 150, 400],
    ]);
    const seconds = Number(await page.locator('.driver-offer__seconds').textContent());
    expect(seconds).toBeGreaterThan(60);
    expect(seconds).toBeLessThanOrEqual(120);

    // Thumb-sized, and the page fits the phone's width.
    const accept = page.getByRole('button', { name: 'Aceitar' });
    const decline = page.getByRole('button', { name: 'Recusar' });
    for (const button of [accept, decline]) {
      const box = await button.boundingBox();
      expect(box?.height).toBeGreaterThanOrEqual(48);
      expect(box?.width).toBeGreaterThanOrEqual(280);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const offerShot = await pageShot(page, 'driver-offer');
    expect(distinctColours(offerShot)).toBeGreaterThan(10);

    const tappedAt = Date.now();
    await accept.tap();

    const status = page.locator('#driver-booking-status');
    await status.waitFor({ state: 'visible', timeout: 15_000 });
    await expect.poll(() => status.textContent()).toBe('A caminho do embarque');
    console.log(`driver page: booking shown accepted ${Date.now() - tappedAt} ms after the tap`);
    await expect(offer.isHidden()).resolves.toBe(true);
    const booking = await api<{ status: string; vehicleId: string }>(sys, 'GET', `/v1/bookings/${created.body.id}`);
    expect(booking.body).toMatchObject({ status: 'accepted', vehicleId: taxi.vehicleId });

    // The pickup is drawn on the map, at its centre.
    await page.waitForFunction(
      () => (globalThis as unknown as { vigia?: { map: { loaded(): boolean } } }).vigia?.map.loaded() === true,
      null,
      { timeout: 30_000, polling: 250 },
    );
    await waitForIdleMap(page);
    const map = await mapScreenshot(page, 'driver-pickup-map');
    expect(countColour(map, pickupColour)).toBeGreaterThan(100);
    expect(distinctColours(await pageShot(page, 'driver-booking'))).toBeGreaterThan(10);
  }, 90_000);

  it('as the tracker, moves the booking on: at the pickup it has arrived, Ocupado puts the passenger on board', async () => {
    await page.locator('#tracker-toggle').check();
    await expect
      .poll(() => page.locator('#driver-booking-status').textContent(), { timeout: 20_000 })
      .toBe('No local de embarque');
    await page.getByRole('button', { name: 'Ocupado' }).tap();
    await expect
      .poll(() => page.locator('#driver-booking-status').textContent(), { timeout: 20_000 })
      .toBe('Passageiro a bordo');
    const vehicle = await api<{ live: { meterState: string } | null }>(sys, 'GET', `/v1/vehicles/${taxi.vehicleId}`);
    expect(vehicle.body.live?.meterState).toBe('hired');
  }, 60_000);

  it('keeps positions while offline and sends them when the network is back: Livre completes the ride', async () => {
    const trackerStatus = page.locator('.driver-tracker__status');
    const bookingStatus = async () =>
      (await api<{ status: string }>(sys, 'GET', `/v1/bookings/${bookingId}`)).body.status;
    await context.setOffline(true);
    try {
      await page.locator('#driver-offline').waitFor({ state: 'visible', timeout: 10_000 });
      // A tap at the button's place: while the context is offline Playwright's actionability
      // checks never see it stable (they scroll and retry), though it does not move.
      const livre = await page.getByRole('button', { name: 'Livre' }).boundingBox();
      if (!livre) throw new Error('no Livre button');
      await page.touchscreen.tap(livre.x + livre.width / 2, livre.y + livre.height / 2);
      await expect.poll(() => page.getByRole('button', { name: 'Livre' }).getAttribute('aria-pressed')).toBe('true');
      await expect.poll(() => trackerStatus.textContent(), { timeout: 10_000 }).toMatch(/\(\d+ aguardando envio\)/);
      expect(await bookingStatus()).toBe('on-board');
    } finally {
      await context.setOffline(false);
    }
    await expect.poll(bookingStatus, { timeout: 20_000 }).toBe('completed');
    await expect.poll(() => trackerStatus.textContent(), { timeout: 10_000 }).toBe('Enviando a posição.');
    const vehicle = await api<{ live: { meterState: string } | null }>(sys, 'GET', `/v1/vehicles/${taxi.vehicleId}`);
    expect(vehicle.body.live?.meterState).toBe('free');
  }, 60_000);

  it('is installable: a manifest for /driver with icons, a service worker scoped to /driver', async () => {
    const manifest = await api<{
      start_url: string;
      display: string;
      theme_color: string;
      icons: { src: string; sizes: string }[];
    }>(sys, 'GET', '/driver-manifest.webmanifest', undefined, null);
    expect(manifest.status).toBe(200);
    expect(manifest.body).toMatchObject({ start_url: '/driver', display: 'standalone', theme_color: '#0f172a' });
    expect(manifest.body.icons.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of manifest.body.icons) expect((await fetch(`${sys.url}${icon.src}`)).status).toBe(200);

    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${sys.url}/driver`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
  });

  it('without network it still opens from the cache and says it is offline', async () => {
    await context.setOffline(true);
    try {
      const banner = page.locator('#driver-offline');
      await banner.waitFor({ state: 'visible', timeout: 10_000 });
      expect(await banner.textContent()).toContain('Sem internet');
      await page.reload();
      await banner.waitFor({ state: 'visible', timeout: 15_000 });
      expect(await banner.textContent()).toContain('Sem internet');
      expect(await page.locator('#driver-connection').getAttribute('data-state')).toBe('offline');
    } finally {
      await context.setOffline(false);
    }
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
