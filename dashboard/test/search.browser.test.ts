import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from '../../api/test/support.js';
import {
  chromiumPath,
  ensureDashboardBuilt,
  hasChromium,
  launchChromium,
  openDesk,
  type PageMap,
  waitForIdleMap,
} from './browser-support.js';

/**
 * The top bar's search box in headless Chromium against the real system: `/` focuses it, a plate
 * typed with its dash and in lower case finds the taxi, Enter flies the map to its live position
 * and opens its popup showing the plate; arrows and Esc work the list; a stop found without its
 * accents flies the map to it; `/` typed in another field stays a character there.
 */

if (!hasChromium) console.warn(`search browser test skipped: ${chromiumPath} is not installed`);

const shotsDir = `/tmp/vigia-search-shots-${process.pid}`;

interface PageGlobals {
  vigia?: { map: PageMap & { getCenter(): { lng: number; lat: number } } };
}

/** The taxi's live position: the Esplanada dos Ministérios. */
const taxiAt = { lat: -15.7989, lon: -47.8645 };
/** The stop: Rodoviária do Plano Piloto. */
const stopAt = { lat: -15.7937, lon: -47.8829 };

describe.skipIf(!hasChromium)('search box in headless Chromium', () => {
  let sys: TestSystem;
  let browser: Browser;
  let page: Page;
  let plate: string;
  let vehicleId: string;

  async function screenshot(name: string): Promise<void> {
    await mkdir(shotsDir, { recursive: true });
    await writeFile(join(shotsDir, `${name}.png`), await page.screenshot());
  }
  const center = () =>
    page.evaluate(() => {
      const c = (globalThis as unknown as PageGlobals).vigia?.map.getCenter();
      const zoom = (globalThis as unknown as PageGlobals).vigia?.map.getZoom();
      return c && zoom !== undefined ? { lon: c.lng, lat: c.lat, zoom } : null;
    });
  const waitForMapAt = async (at: { lat: number; lon: number }) => {
    await expect
      .poll(
        async () => {
          const c = await center();
          return c !== null && Math.abs(c.lat - at.lat) < 1e-4 && Math.abs(c.lon - at.lon) < 1e-4 && c.zoom >= 15.9;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
  };

  beforeAll(async () => {
    await ensureDashboardBuilt();
    sys = await startTestSystem('postgres', { OFFLINE_AFTER_S: '3600' });
    const taxi = await registerVehicle(sys, { pack: 'df-taxi' });
    vehicleId = taxi.vehicleId;
    plate = (await api<{ plate: string }>(sys, 'GET', `/v1/vehicles/${vehicleId}`)).body.plate;
    const sample = { deviceId: taxi.identifier, ts: new Date().toISOString(), ...taxiAt, meter: { state: 'free' } };
    expect((await api(sys, 'POST', '/v1/telemetry', sample, taxi.token)).status).toBe(200);
    expect(
      (await api(sys, 'POST', '/v1/stops', { id: 'stop-rodo', name: 'Rodoviária do Plano Piloto', ...stopAt })).status,
    ).toBe(201);
    browser = await launchChromium();
    page = await openDesk(browser, sys.url, sys.adminToken);
    await page.waitForFunction(
      (id) =>
        (globalThis as unknown as { vigia?: { vehicles(): { id: string }[] } }).vigia
          ?.vehicles()
          .some((v) => v.id === id),
      vehicleId,
      { timeout: 60_000 },
    );
    console.log(`search screenshots: ${shotsDir}`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('/ focuses the box, a plate typed with its dash finds the taxi, Enter flies there and opens its popup', async () => {
    // Far from the taxi to begin with.
    await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).vigia?.map.jumpTo({ center: [-46.63, -23.55], zoom: 11 }),
    );
    await page.locator('#map').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search-input');
    // The key focused the box; it was not typed into it.
    expect(await page.inputValue('#search-input')).toBe('');
    const typed = `${plate.slice(0, 3)}-${plate.slice(3)}`.toLowerCase();
    await page.keyboard.type(typed);
    const first = page.locator('.search-box__result').first();
    await first.waitFor({ timeout: 10_000 });
    expect(await first.getAttribute('data-kind')).toBe('vehicle');
    expect(await first.locator('.search-box__label-text').textContent()).toBe(plate);
    expect(await first.locator('.search-box__kind').textContent()).toBe('Veículo');
    expect(await first.getAttribute('aria-selected')).toBe('true');
    await screenshot('results');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.search-box__results').isHidden()).toBe(true);
    const popupPlate = page.locator('.vehicle-popup__plate');
    await popupPlate.waitFor({ timeout: 10_000 });
    expect(await popupPlate.textContent()).toBe(plate);
    await waitForMapAt(taxiAt);
    await waitForIdleMap(page);
    await screenshot('vehicle-chosen');
  }, 150_000);

  it('arrow keys move through the results, Esc closes the list, and a stop found without accents is flown to', async () => {
    await page.keyboard.press('Escape'); // out of anything focused
    await page.locator('#map').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    await page.keyboard.type('rodoviaria');
    const results = page.locator('.search-box__result');
    // The previous results stay until the new ones arrive.
    await expect.poll(() => results.first().getAttribute('data-kind'), { timeout: 10_000 }).toBe('stop');
    expect(await results.first().locator('.search-box__label-text').textContent()).toBe('Rodoviária do Plano Piloto');
    expect(await results.first().locator('.search-box__kind').textContent()).toBe('Parada');
    await page.keyboard.press('Escape');
    expect(await page.locator('.search-box__results').isHidden()).toBe(true);
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('.search-box__results').isVisible()).toBe(true);
    // One result: the arrow wraps round to it.
    await expect.poll(() => results.first().getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await waitForMapAt(stopAt);
    await waitForIdleMap(page);
    await screenshot('stop-chosen');
  });

  it('says so when nothing matches, and `/` typed in the search field is a character', async () => {
    await page.locator('#map').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    await page.keyboard.type('zzz/9');
    expect(await page.inputValue('#search-input')).toBe('zzz/9');
    const status = page.locator('.search-box__status');
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Nada encontrado para “zzz/9”.');
    await screenshot('no-results');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.id ?? '')).not.toBe('search-input');
  });
});
