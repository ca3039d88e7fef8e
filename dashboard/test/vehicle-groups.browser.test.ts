import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetUpdate } from '../../api/test/fleet-support.js';
import { startTestSystem, type TestSystem } from '../../api/test/support.js';
import { statusStyles } from '../src/vehicle-status.js';
import {
  chromiumPath,
  colourDrawnAt,
  ensureDashboardBuilt,
  hasChromium,
  hexToRgb,
  launchChromium,
  mapScreenshot,
  openDesk,
  type PageMap,
  waitForIdleMap,
} from './browser-support.js';

/**
 * The fleet's WebGL layer zoomed out (dashboard/README.md, "Markers"): 30 taxis on one block of
 * Brasília are one group at regional scale, drawn as a dark circle with its count written in it,
 * and a click on it zooms in until each taxi is its own green marker again.
 */

if (!hasChromium) console.warn(`vehicle groups browser test skipped: ${chromiumPath} is not installed`);

interface PageGlobals {
  vigia?: {
    map: PageMap;
    drawn(): {
      vehicles: Array<{ id: string; lat: number; lon: number }>;
      clusters: Array<{ lat: number; lon: number; count: number }>;
    };
  };
}

const centre = { lat: -15.79, lon: -47.88 };
const taxis = Array.from({ length: 30 }, (_, i) => ({
  id: `group-${String(i).padStart(2, '0')}`,
  lat: centre.lat + Math.floor(i / 6) * 0.0002,
  lon: centre.lon + (i % 6) * 0.0002,
}));

describe.skipIf(!hasChromium)('vehicle groups in headless Chromium', () => {
  let sys: TestSystem;
  let browser: Browser;
  let page: Page;

  const drawn = () => page.evaluate(() => (globalThis as unknown as PageGlobals).vigia?.drawn());

  beforeAll(async () => {
    await ensureDashboardBuilt();
    sys = await startTestSystem('pglite', { OFFLINE_AFTER_S: '3600' });
    browser = await launchChromium();
    page = await openDesk(browser, sys.url, sys.adminToken);
    await page.evaluate(
      (c) => (globalThis as unknown as PageGlobals).vigia?.map.jumpTo({ center: [c.lon, c.lat], zoom: 9 }),
      centre,
    );
    await waitForIdleMap(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('draws a dense block as one group with its count, and comes apart into markers on a click', async () => {
    await sys.bus.publish({ type: 'fleet', updates: taxis.map((taxi) => fleetUpdate(taxi.id, taxi)) });
    await expect
      .poll(async () => (await drawn())?.clusters.map((cluster) => cluster.count), { timeout: 30_000 })
      .toEqual([30]);
    expect((await drawn())?.vehicles.filter((v) => v.id.startsWith('group-'))).toEqual([]);

    // On the canvas: the group's dark circle with white digits in it where the block is.
    await waitForIdleMap(page);
    const group = (await drawn())?.clusters[0];
    if (!group) throw new Error('no group drawn');
    const point = await page.evaluate(
      (g) => (globalThis as unknown as PageGlobals).vigia?.map.project([g.lon, g.lat]),
      group,
    );
    if (!point) throw new Error('the map did not project the group');
    const image = await mapScreenshot(page, 'vehicle-group');
    let dark = 0;
    let white = 0;
    for (let dy = -8; dy <= 8; dy++)
      for (let dx = -8; dx <= 8; dx++) {
        if (dx * dx + dy * dy > 64) continue;
        const offset = ((Math.round(point.y) + dy) * image.width + Math.round(point.x) + dx) * 4;
        const [r = 0, g = 0, b = 0] = [image.data[offset], image.data[offset + 1], image.data[offset + 2]];
        if (r < 120 && g < 130 && b < 140) dark++;
        if (r > 200 && g > 200 && b > 200) white++;
      }
    // The circle is 9 px in radius: most of the 8 px disc is its grey, a few pixels the count's white.
    expect(dark).toBeGreaterThan(100);
    expect(white).toBeGreaterThan(3);

    const box = await page.locator('#map').boundingBox();
    if (!box) throw new Error('the map has no box');
    await page.mouse.click(box.x + point.x, box.y + point.y);
    await expect
      .poll(async () => (await drawn())?.vehicles.filter((v) => v.id.startsWith('group-')).length, {
        timeout: 30_000,
      })
      .toBe(30);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).vigia?.map.getZoom())).toBeGreaterThan(11);
    expect((await drawn())?.clusters).toEqual([]);
    const first = taxis[0];
    if (!first) throw new Error('no taxi');
    expect(await colourDrawnAt(page, first, hexToRgb(statusStyles.free.color), 'vehicle-group-apart')).toBe(true);
  }, 120_000);
});
