import type { FleetUpdate } from '@vigia/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from '../../api/test/support.js';
import { statusStyles } from '../src/vehicle-status.js';
import {
  chromiumPath,
  clickMapAt,
  colourDrawnAt,
  ensureDashboardBuilt,
  hasChromium,
  hexToRgb,
  launchChromium,
  openDesk,
  type PageMap,
} from './browser-support.js';

/**
 * The desk map follows its viewport on `/live` (dashboard/README.md, "The map at 20,000
 * vehicles"): in headless Chromium against the real system, with positions published on the bus
 * as ingest publishes them, the page gets `fleet-delta` pushes of what it shows; a taxi moving in
 * Belém while the map shows Brasília does not reach it, and is drawn where it is once the map is
 * panned to Belém. The outside refresh is set far longer than the test, so only the pan can
 * have brought it. Panned back, the Brasília taxi is drawn again and answers a click, though no
 * push carried it (the layer packs only what is near the view, and packs again when the view moves).
 */

if (!hasChromium) console.warn(`live viewport browser test skipped: ${chromiumPath} is not installed`);

interface PageGlobals {
  vigia?: {
    map: PageMap;
    vehicles(): Array<{ id: string; lat: number; lon: number }>;
    /** What the fleet's WebGL layer drew on its last frame. */
    drawn(): { vehicles: Array<{ id: string; lat: number; lon: number }> };
  };
}

const brasilia = { center: [-47.88, -15.79] as [number, number], zoom: 13 };
const belem = { center: [-48.49, -1.42] as [number, number], zoom: 13 };

describe.skipIf(!hasChromium)('live viewport in headless Chromium', () => {
  let sys: TestSystem;
  let browser: Browser;
  let page: Page;
  const received: string[] = [];
  const sent: string[] = [];
  let clock = Date.now() - 60_000;

  function update(vehicleId: string, lat: number, lon: number): FleetUpdate {
    clock += 1000;
    return {
      vehicleId,
      plate: `VP${vehicleId.slice(-5).toUpperCase()}`,
      operatorId: 'op-viewport',
      pack: vehicleId.includes('belem') ? 'belem-taxi' : 'df-taxi',
      serviceType: 'taxi',
      ts: new Date(clock).toISOString(),
      lat,
      lon,
      speedKmh: 30,
      headingDeg: 0,
      meterState: 'free',
      tariff: null,
      passengers: 0,
      doorOpen: false,
      ignition: true,
    };
  }

  const publish = (...updates: FleetUpdate[]) => sys.bus.publish({ type: 'fleet', updates });
  const vehicle = (id: string) =>
    page.evaluate(
      (vehicleId) => (globalThis as unknown as PageGlobals).vigia?.vehicles().find((v) => v.id === vehicleId),
      id,
    );
  const drawn = (id: string) =>
    page.evaluate(
      (vehicleId) =>
        (globalThis as unknown as PageGlobals).vigia?.drawn().vehicles.some((v) => v.id === vehicleId) === true,
      id,
    );
  /** A free taxi's green on the canvas where the map puts `position`. */
  const freeTaxiDrawnAt = (position: { lon: number; lat: number }, name: string) =>
    colourDrawnAt(page, position, hexToRgb(statusStyles.free.color), name);

  /** Moves the map and waits until the server acknowledged the viewport the move sent. */
  async function showArea(camera: { center: [number, number]; zoom: number }): Promise<void> {
    const acks = received.filter((frame) => frame.startsWith('43/live,')).length;
    await page.evaluate((options) => (globalThis as unknown as PageGlobals).vigia?.map.jumpTo(options), camera);
    await expect
      .poll(() => received.filter((frame) => frame.startsWith('43/live,') && frame.includes('"ok":true')).length, {
        timeout: 30_000,
      })
      .toBeGreaterThan(acks);
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    sys = await startTestSystem('pglite', { LIVE_OUTSIDE_REFRESH_MS: '3000000', OFFLINE_AFTER_S: '3600' });
    browser = await launchChromium();
    page = await openDesk(browser, sys.url, sys.adminToken, (opening) =>
      opening.on('websocket', (socket) => {
        socket.on('framereceived', (frame) => {
          if (typeof frame.payload === 'string') received.push(frame.payload);
        });
        socket.on('framesent', (frame) => {
          if (typeof frame.payload === 'string') sent.push(frame.payload);
        });
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('shows what is in view, not what moves elsewhere, and the vehicles of the view after panning', async () => {
    await showArea(brasilia);
    expect(sent.some((frame) => frame.includes('"viewport"') && frame.includes('-47.'))).toBe(true);

    // A taxi in view moves: it is drawn, through a delta push.
    await publish(update('vp-df-1', -15.79, -47.88));
    await expect.poll(() => drawn('vp-df-1'), { timeout: 30_000 }).toBe(true);
    expect(await freeTaxiDrawnAt({ lon: -47.88, lat: -15.79 }, 'viewport-brasilia')).toBe(true);
    expect(received.some((frame) => frame.startsWith('42/live,["fleet-delta"'))).toBe(true);
    expect(received.some((frame) => frame.startsWith('42/live,["fleet",'))).toBe(false);

    // A taxi in Belém moves, then the one in view again: the second reaching the page proves the
    // push that carried the first went by without it.
    await publish(update('vp-belem-1', -1.42, -48.49));
    await publish(update('vp-df-1', -15.791, -47.881));
    await expect.poll(async () => (await vehicle('vp-df-1'))?.lat, { timeout: 30_000 }).toBe(-15.791);
    expect(await vehicle('vp-belem-1')).toBeUndefined();

    // Panned to Belém, the map draws it where it is.
    await showArea(belem);
    await expect.poll(() => drawn('vp-belem-1'), { timeout: 30_000 }).toBe(true);
    expect(await vehicle('vp-belem-1')).toMatchObject({ lat: -1.42, lon: -48.49 });
    expect(await freeTaxiDrawnAt({ lon: -48.49, lat: -1.42 }, 'viewport-belem')).toBe(true);

    // The layer packs only what is near the view: the Brasília taxi, known to the page but 1 600 km
    // away, is not drawn now. Back over Brasília it is, brought by the camera move alone (it has
    // not moved since, so no push carries it), and a click on it opens its popup.
    expect(await drawn('vp-df-1')).toBe(false);
    await showArea(brasilia);
    await expect.poll(() => drawn('vp-df-1'), { timeout: 30_000 }).toBe(true);
    const taxi = { lon: -47.881, lat: -15.791 };
    expect(await freeTaxiDrawnAt(taxi, 'viewport-brasilia-again')).toBe(true);
    await clickMapAt(page, taxi);
    const popup = page.locator('.maplibregl-popup .vehicle-popup');
    await popup.waitFor({ timeout: 10_000 });
    expect(await popup.getAttribute('data-vehicle-id')).toBe('vp-df-1');
  }, 120_000);
});
