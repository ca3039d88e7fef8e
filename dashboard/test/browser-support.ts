import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { PNG } from 'pngjs';

/** What the dashboard's browser tests share: the Chromium set-up, the build, and reading the map canvas. */

export const chromiumPath = '/usr/bin/chromium';
export const chromiumArgs = [
  '--no-sandbox',
  '--headless=new',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
  '--disable-gpu-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
export const hasChromium = existsSync(chromiumPath);

/**
 * Headless Chromium as the tests run it. `sound`: media may play without a tap, for the pages
 * that play a sound after one (headless Chromium has no real gesture model).
 */
export function launchChromium(opts: { sound?: boolean } = {}): Promise<Browser> {
  const args = opts.sound ? [...chromiumArgs, '--autoplay-policy=no-user-gesture-required'] : chromiumArgs;
  return chromium.launch({ executablePath: chromiumPath, args });
}

/** A phone as a field agent or a taxi driver holds it (360 × 740, touch), in Portuguese. */
export const phoneContext = {
  viewport: { width: 360, height: 740 },
  deviceScaleFactor: 1,
  isMobile: true,
  hasTouch: true,
  locale: 'pt-BR',
} satisfies BrowserContextOptions;

/** Set to a folder to keep the screenshots the assertions read (CI artefacts, debugging). */
export const screenshotDir = process.env.VIGIA_TEST_SCREENSHOTS;

const dashboardDir = fileURLToPath(new URL('..', import.meta.url));
/** Per checkout, so two clones tested at once do not wait for each other. */
const buildLockDir = join(
  tmpdir(),
  `vigia-dashboard-build-${createHash('sha256').update(dashboardDir).digest('hex').slice(0, 12)}.lock`,
);
/** A lock left by a crashed run is taken over after this long; a build takes a few seconds. */
const staleLockMs = 120_000;

/**
 * `npm test` builds first; a bare `vitest run dashboard` after editing the app would otherwise test
 * the previous build, so the bundle is rebuilt when any source is newer than it. The browser tests
 * run in parallel workers: the build is done under a lock, and the check repeated once it is held,
 * so one worker never empties dist/ under a page another worker is loading.
 */
export async function ensureDashboardBuilt(): Promise<void> {
  if (await isBuildCurrent()) return;
  await acquireBuildLock();
  try {
    if (await isBuildCurrent()) return;
    console.warn('dashboard/dist is missing or older than its sources: building it for the browser test');
    const { build } = await import('vite');
    await build({ root: dashboardDir, logLevel: 'warn' });
  } finally {
    await rm(buildLockDir, { recursive: true, force: true });
  }
}

async function isBuildCurrent(): Promise<boolean> {
  const builtAt = await modifiedAt(join(dashboardDir, 'dist', 'index.html'));
  if (builtAt === null) return false;
  const sources = await Promise.all(
    ['index.html', 'driver.html', 'vite.config.ts', 'src', 'public'].map((entry) =>
      newestModification(join(dashboardDir, entry)),
    ),
  );
  return sources.every((modified) => modified <= builtAt);
}

async function acquireBuildLock(): Promise<void> {
  for (;;) {
    try {
      // mkdir is atomic: exactly one worker creates the folder.
      await mkdir(buildLockDir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await modifiedAt(buildLockDir);
      if (since !== null && Date.now() - since > staleLockMs) await rm(buildLockDir, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function modifiedAt(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return null;
  }
}

async function newestModification(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  const times = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => (await stat(join(entry.parentPath, entry.name))).mtimeMs),
  );
  return Math.max(info.mtimeMs, ...times);
}

/** The map as page scripts see it through `window.vigia` (src/debug-handle.ts). */
export interface PageMap {
  loaded(): boolean;
  isMoving(): boolean;
  jumpTo(options: { center: [number, number]; zoom: number }): void;
  getCenter(): { lng: number; lat: number };
  getZoom(): number;
  project(lngLat: [number, number]): { x: number; y: number };
  once(event: 'idle', listener: () => void): void;
  on(event: 'render', listener: () => void): void;
  off(event: 'render', listener: () => void): void;
  areTilesLoaded(): boolean;
  triggerRepaint(): void;
  getCanvas(): { clientWidth: number; clientHeight: number };
}

/**
 * Opens a vehicle's popup as a user does: waits until the page has placed the vehicle, centres the
 * map on it at `zoom`, waits for the map to settle and clicks its marker. Returns where it was.
 */
export async function clickVehicle(page: Page, vehicleId: string, zoom = 15): Promise<{ lon: number; lat: number }> {
  type Handle = { vigia?: { map: PageMap; vehicles(): { id: string; lon: number; lat: number }[] } };
  await page.waitForFunction(
    (id) => (globalThis as unknown as Handle).vigia?.vehicles().some((v) => v.id === id) === true,
    vehicleId,
    { timeout: 60_000 },
  );
  const position = await page.evaluate(
    ([id, z]) => {
      const vigia = (globalThis as unknown as Handle).vigia;
      const v = vigia?.vehicles().find((x) => x.id === id);
      if (!vigia || !v) throw new Error(`vehicle ${id} is not on the map`);
      vigia.map.jumpTo({ center: [v.lon, v.lat], zoom: z });
      return { lon: v.lon, lat: v.lat };
    },
    [vehicleId, zoom] as const,
  );
  await waitForIdleMap(page);
  await clickMapAt(page, position);
  return position;
}

/** Clicks the map where it shows a geographic position, as a user does, without moving the camera. */
export async function clickMapAt(page: Page, position: { lon: number; lat: number }): Promise<void> {
  const point = await page.evaluate(
    (p) => (globalThis as unknown as { vigia?: { map: PageMap } }).vigia?.map.project([p.lon, p.lat]),
    position,
  );
  const box = await page.locator('#map').boundingBox();
  if (!point || !box) throw new Error('the map has no box');
  await page.mouse.click(box.x + point.x, box.y + point.y);
}

/**
 * Resolves once the map has drawn everything it has: no camera move, the style and every tile
 * loaded, then the symbol fade (300 ms) over. MapLibre's 'idle' event says the same but also needs
 * a frame with nothing left to draw, which a live fleet pushing positions every few hundred ms may
 * not give for tens of seconds on a loaded machine; a drawn frame with everything loaded is what a
 * screenshot needs, so whichever comes first.
 */
export async function waitForIdleMap(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const map = (globalThis as unknown as { vigia?: { map: PageMap } }).vigia?.map;
        if (!map) return resolve();
        let settled = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          map.off('render', onRender);
          resolve();
        };
        const onRender = () => {
          if (!settled && !map.isMoving() && map.loaded() && map.areTilesLoaded()) {
            map.off('render', onRender);
            setTimeout(finish, 350);
          }
        };
        map.once('idle', finish);
        map.on('render', onRender);
        map.triggerRepaint();
      }),
  );
}

/** Only the map's region of the page (DOM popups over it included): the panels show the same colours. */
export async function mapScreenshot(page: Page, name: string): Promise<PNG> {
  const png = await page.locator('#map canvas.maplibregl-canvas').screenshot();
  if (screenshotDir) {
    await mkdir(screenshotDir, { recursive: true });
    await writeFile(join(screenshotDir, `${name}.png`), png);
  }
  return PNG.sync.read(png);
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** Shape interiors come out exact; the tolerance absorbs colour-space rounding in software rendering. */
export const colourTolerance = 12;

/** 1 where the pixel is one of `colours`, else 0. */
export function colourMask(image: PNG, colours: readonly Rgb[], tolerance = colourTolerance): Uint8Array {
  const mask = new Uint8Array(image.width * image.height);
  for (let pixel = 0; pixel < mask.length; pixel += 1) {
    const offset = pixel * 4;
    const r = image.data[offset] ?? 0;
    const g = image.data[offset + 1] ?? 0;
    const b = image.data[offset + 2] ?? 0;
    if (
      colours.some(
        (colour) =>
          Math.abs(colour.r - r) <= tolerance &&
          Math.abs(colour.g - g) <= tolerance &&
          Math.abs(colour.b - b) <= tolerance,
      )
    ) {
      mask[pixel] = 1;
    }
  }
  return mask;
}

export function countColour(image: PNG, colour: Rgb, tolerance = colourTolerance): number {
  return countSet(colourMask(image, [colour], tolerance));
}

export function countSet(mask: Uint8Array): number {
  let count = 0;
  for (const value of mask) count += value;
  return count;
}

export function hexToRgb(hex: string): Rgb {
  const value = Number.parseInt(hex.slice(1), 16);
  return { r: (value >> 16) & 0xff, g: (value >> 8) & 0xff, b: value & 0xff };
}

/**
 * A desk page (1366 × 900, Portuguese) signed in with `token`, its errors printed, once the map
 * has loaded: how most browser tests begin.
 */
export async function openDesk(
  browser: Browser,
  url: string,
  token: string,
  /** Called before the page loads: to listen to what it will open (its WebSocket, say). */
  prepare?: (page: Page) => void,
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 }, locale: 'pt-BR' });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  prepare?.(page);
  await page.goto(`${url}/#token=${token}`);
  await page.waitForFunction(
    () => (globalThis as unknown as { vigia?: { map: PageMap } }).vigia?.map.loaded() === true,
    undefined,
    { timeout: 60_000 },
  );
  return page;
}

/**
 * Whether the map shows `colour` at a geographic position (within 2 px of where it projects): a
 * marker actually drawn there, read from the canvas rather than from what a layer says it drew.
 */
export async function colourDrawnAt(
  page: Page,
  position: { lon: number; lat: number },
  colour: Rgb,
  name: string,
): Promise<boolean> {
  await waitForIdleMap(page);
  const point = await page.evaluate(
    (p) => (globalThis as unknown as { vigia?: { map: PageMap } }).vigia?.map.project([p.lon, p.lat]),
    position,
  );
  if (!point) return false;
  const image = await mapScreenshot(page, name);
  const mask = colourMask(image, [colour]);
  for (let dy = -2; dy <= 2; dy++)
    for (let dx = -2; dx <= 2; dx++) {
      const x = Math.round(point.x) + dx;
      const y = Math.round(point.y) + dy;
      if (x >= 0 && y >= 0 && x < image.width && y < image.height && mask[y * image.width + x] === 1) return true;
    }
  return false;
}
