import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LiveViolation } from '@vigia/core';
import { upsertViolations, type ViolationUpsert } from '@vigia/ingest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from '../../api/test/support.js';
import { fieldColors } from '../src/field-layer.js';
import {
  chromiumPath,
  countColour,
  ensureDashboardBuilt,
  hasChromium,
  hexToRgb,
  launchChromium,
  mapScreenshot,
  type PageMap,
  phoneContext,
  screenshotDir,
  waitForIdleMap,
} from './browser-support.js';

/**
 * The field view on a phone: headless Chromium at 360 × 740 with geolocation granted at the
 * Rodoviária do Plano Piloto (Brasília), signed in as an enforcement agent. Taxis send telemetry
 * through the API; violations are stored the way the rule pipeline stores them and pushed on the
 * bus as it pushes them. The screenshots are kept (a temp folder, or VIGIA_TEST_SCREENSHOTS) and
 * checked to hold a drawn page; the assertions read what a person would see on it.
 */

if (!hasChromium) console.warn(`field view browser test skipped: ${chromiumPath} is not installed`);

interface PageGlobals {
  vigia?: { map: PageMap; vehicles(): Array<{ id: string }> };
  shownNotifications?: Array<{ title: string; body: string }>;
}

const agent = { lat: -15.7939, lon: -47.8828 };
/** Degrees per metre near Brasília: 1° of latitude ≈ 110.6 km, 1° of longitude ≈ 107.1 km. */
const north = (m: number) => ({ lat: agent.lat + m / 110_600, lon: agent.lon });
const east = (m: number) => ({ lat: agent.lat, lon: agent.lon + m / 107_100 });

type Taxi = Awaited<ReturnType<typeof registerVehicle>> & { plate: string };

describe.skipIf(!hasChromium)('field view at 360 × 740', () => {
  let sys: TestSystem;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shots: string;
  /** Live 300 m north, but the violation was recorded 4 km south: the list must go by the live position. */
  let near: Taxi;
  let middle: Taxi;
  let far: Taxi;
  let arriving: Taxi;
  /** A taxi in São Paulo: its violations are far outside the agent's area. */
  let paulista: Taxi;
  const ids: Record<'near' | 'middle' | 'far' | 'dismissed' | 'saoPaulo', string> = {
    near: '',
    middle: '',
    far: '',
    dismissed: '',
    saoPaulo: '',
  };
  const startedAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

  const event = (taxi: Taxi, key: string, position: { lat: number; lon: number }, minutesAgo: number) =>
    ({
      eventKey: `DF_BANDEIRA2_MISUSE:${taxi.vehicleId}:${key}`,
      ruleId: 'DF_BANDEIRA2_MISUSE',
      pack: 'df-taxi',
      legalBasis: ['Art. 45 III', 'Art. 48 III'],
      description: 'Bandeira II fora das condições permitidas',
      descriptionEn: 'Tariff 2 where none of its conditions held',
      vehicleId: taxi.vehicleId,
      plate: taxi.plate,
      operatorId: taxi.operatorId,
      permitNumber: null,
      variant: null,
      phase: 'ongoing',
      driverId: null,
      startedAt: startedAgo(minutesAgo),
      endedAt: null,
      lat: position.lat,
      lon: position.lon,
      place: null,
      confidence: 'confirmed',
      measured: { stretchM: 900, tariff: 2 },
      penalty: { group: 'C' },
      recidivism: { count: 0, windowDays: 730 },
      evidenceFrom: startedAgo(minutesAgo + 5),
      evidenceTo: startedAgo(minutesAgo),
    }) satisfies ViolationUpsert;

  async function store(events: ViolationUpsert[]): Promise<LiveViolation[]> {
    return sys.db.transaction((tx) => upsertViolations(tx, events));
  }

  async function taxiAt(position: { lat: number; lon: number }): Promise<Taxi> {
    const taxi = await registerVehicle(sys, { pack: 'df-taxi', operatorId: 'coop-candango' });
    const record = await api<{ plate: string }>(sys, 'GET', `/v1/vehicles/${taxi.vehicleId}`);
    // One recent sample, meter free and slow: the live rules have nothing of their own to say.
    const sample = {
      deviceId: taxi.identifier,
      ts: new Date(Date.now() - 2000).toISOString(),
      ...position,
      speedKmh: 0,
      meter: { state: 'free', tariff: 1, fareCents: 0 },
    };
    expect((await api(sys, 'POST', '/v1/telemetry', [sample], taxi.token)).status).toBe(200);
    return { ...taxi, plate: record.body.plate };
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    shots = screenshotDir ?? (await mkdtemp(join(tmpdir(), 'vigia-field-shots-')));
    await mkdir(shots, { recursive: true });
    sys = await startTestSystem('pglite');

    near = await taxiAt(north(300));
    middle = await taxiAt(east(1500));
    far = await taxiAt(east(-3000));
    arriving = await taxiAt(north(-800));
    paulista = await taxiAt({ lat: -23.55, lon: -46.63 });
    const [nearViolation, middleViolation, farViolation, dismissed, saoPaulo] = await store([
      event(near, 'near', north(-4000), 2),
      event(middle, 'middle', east(1500), 20),
      event(far, 'far', east(-3000), 1),
      event(middle, 'dismissed', east(1500), 40),
      event(paulista, 'sp', { lat: -23.55, lon: -46.63 }, 5),
    ]);
    if (!nearViolation || !middleViolation || !farViolation || !dismissed || !saoPaulo) throw new Error('not stored');
    Object.assign(ids, {
      near: nearViolation.id,
      middle: middleViolation.id,
      far: farViolation.id,
      dismissed: dismissed.id,
      saoPaulo: saoPaulo.id,
    });
    const review = await api(sys, 'POST', `/v1/violations/${dismissed.id}/review`, {
      decision: 'dismiss',
      reason: 'Tarifa correta: domingo',
    });
    expect(review.status).toBe(200);
    const agentUser = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: 'Agente de campo',
      role: 'enforcement',
    });
    expect(agentUser.status).toBe(201);

    // The chime plays after the "enable alerts" tap on a phone.
    browser = await launchChromium({ sound: true });
    context = await browser.newContext({
      ...phoneContext,
      geolocation: { latitude: agent.lat, longitude: agent.lon, accuracy: 15 },
      permissions: ['geolocation', 'notifications'],
    });
    // Records what the page hands to the Notifications API: headless Chromium shows it nowhere to look at.
    await context.addInitScript(() => {
      const Real = window.Notification;
      const shown: Array<{ title: string; body: string }> = [];
      (globalThis as unknown as PageGlobals).shownNotifications = shown;
      class Recording extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          shown.push({ title, body: options?.body ?? '' });
        }
      }
      Object.defineProperty(Recording, 'permission', { get: () => Real.permission });
      Object.defineProperty(window, 'Notification', { value: Recording, configurable: true, writable: true });
    });
    page = await context.newPage();
    await page.goto(`${sys.url}/#field&token=${agentUser.body.token}`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).vigia?.map.loaded() === true, null, {
      timeout: 30_000,
      polling: 250,
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  const rowIds = () =>
    page.locator('.field-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-violation-id')));

  it('lists the open violations near the agent, nearest first, with a line to each on the map', async () => {
    // Geolocation was granted: the list comes without a tap.
    await expect.poll(rowIds, { timeout: 15_000 }).toEqual([ids.near, ids.middle, ids.far]);
    const metres = await page
      .locator('.field-row__distance')
      .evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-metres'))));
    expect(metres[0]).toBeGreaterThan(250);
    expect(metres[0]).toBeLessThan(350);
    expect(metres[1]).toBeGreaterThan(1400);
    expect(metres[2]).toBeGreaterThan(2900);
    const first = (await page.locator('.field-row').first().textContent()) ?? '';
    expect(first).toContain(near.plate);
    expect(first).toContain('300 m');
    expect(first).toContain('N');
    expect(first).toContain('posição ao vivo');
    expect(first).toContain('Art. 45 III');
    expect(await page.locator('.field-heading').textContent()).toBe('3 infrações a até 5 km');
    expect(await page.locator('.field-status').textContent()).toBe('Sua posição (±15 m)');
    // Usable at 360 px: nothing runs off the side, the map and the list share the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const mapBox = await page.locator('#map').boundingBox();
    expect(mapBox?.width).toBe(360);
    expect(mapBox?.height).toBeGreaterThan(200);
    expect(await page.locator('.field-row').first().isVisible()).toBe(true);

    await waitForIdleMap(page);
    const map = await mapScreenshot(page, 'field-list-map');
    expect(countColour(map, hexToRgb(fieldColors.agent))).toBeGreaterThan(100);
    expect(countColour(map, hexToRgb(fieldColors.line))).toBeGreaterThan(150);
    await screenshot('field-list');
  });

  it('opens a violation with its plate, article, evidence and a one-tap confirm', async () => {
    await page.locator(`.field-row[data-violation-id="${ids.middle}"] button`).click();
    const detail = page.locator(`.field-detail .violation-detail[data-violation-id="${ids.middle}"]`);
    await detail.waitFor({ timeout: 5000 });
    expect(await page.locator('.field-list').isHidden()).toBe(true);
    expect(await page.locator('.field-controls').isHidden()).toBe(true);
    // The full record (with its evidence) has arrived once the evidence summary counts samples.
    await expect.poll(() => detail.locator('.evidence-summary').textContent(), patience).toContain('Amostras');
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain(middle.plate);
    expect(await detail.locator('.legal-basis__article').allTextContents()).toEqual(['Art. 45 III', 'Art. 48 III']);
    expect(await page.locator('.field-go').textContent()).toBe('Ir até lá: 1,5 km a L · posição ao vivo');
    expect(await page.locator('.field-actions').isVisible()).toBe(true);
    // The detail frames the evidence; one tap frames the way there, the agent and the vehicle.
    await page.locator('[data-action="frame"]').click();
    await waitForIdleMap(page);
    const way = await mapScreenshot(page, 'field-violation-map');
    expect(countColour(way, hexToRgb(fieldColors.agent))).toBeGreaterThan(100);
    expect(countColour(way, hexToRgb(fieldColors.line))).toBeGreaterThan(300);
    await screenshot('field-violation');

    // Confirm in one tap: the reason comes in a prompt.
    page.once('dialog', (dialog) => void dialog.accept('Bandeira II em dia útil às 14 h'));
    await page.locator('.field-actions button[data-decision="confirm"]').click();
    await expect.poll(() => page.locator('.field-message').textContent(), patience).toBe('Confirmar: registrado.');
    const onServer = await api<{ status: string; reviews: Array<{ reason: string }> }>(
      sys,
      'GET',
      `/v1/violations/${ids.middle}`,
    );
    expect(onServer.body.status).toBe('confirmed');
    expect(onServer.body.reviews.map((review) => review.reason)).toEqual(['Bandeira II em dia útil às 14 h']);
    expect(await page.locator('.field-actions button[data-decision="confirm"]').isDisabled()).toBe(true);
    expect(await page.locator('.field-actions button[data-decision="dismiss"]').isEnabled()).toBe(true);

    // The notice: a new tab with the PDF when the server has it, else the server's refusal on screen.
    const pdf = await fetch(`${sys.url}/v1/violations/${ids.middle}/notice.pdf`, {
      headers: { authorization: `Bearer ${sys.adminToken}` },
    });
    console.log(`field view: notice.pdf answers ${pdf.status}; the Notify button is tested on that branch`);
    if (pdf.ok) {
      const [tab] = await Promise.all([
        context.waitForEvent('page'),
        page.locator('.field-actions [data-action="notice"]').click(),
      ]);
      await expect.poll(() => tab.url(), patience).toMatch(/^blob:/);
      await tab.close();
    } else {
      await page.locator('.field-actions [data-action="notice"]').click();
      await expect
        .poll(() => page.locator('.field-message').textContent())
        .toMatch(/^Não foi possível abrir o auto de infração: /);
    }

    await page.locator('.detail-back').click();
    await expect.poll(rowIds, patience).toEqual([ids.near, ids.middle, ids.far]);
    expect(await page.locator(`.field-row[data-violation-id="${ids.middle}"] .field-row__status`).textContent()).toBe(
      'Confirmada',
    );
    expect(await page.locator('.field-actions').isHidden()).toBe(true);
  });

  it('announces a violation raised in the area live, with a banner, a chime and a notification', async () => {
    await page.locator('[data-action="alerts"]').click();
    await expect
      .poll(() => page.locator('[data-action="alerts"]').getAttribute('data-state'), patience)
      .toBe('granted');

    // One far away (São Paulo) first: not the agent's area, so no banner for it.
    const [elsewhere] = await store([event(paulista, 'sp-2', { lat: -23.55, lon: -46.63 }, 0)]);
    const [raised] = await store([event(arriving, 'arriving', north(-800), 0)]);
    if (!elsewhere || !raised) throw new Error('not stored');
    const pushedAt = Date.now();
    await sys.bus.publish({ type: 'violation', violations: [elsewhere] });
    await sys.bus.publish({ type: 'violation', violations: [raised] });

    const banner = page.locator('.field-banner');
    await banner.waitFor({ state: 'visible', timeout: 5000 });
    console.log(`field view: live arrival shown ${Date.now() - pushedAt} ms after the push`);
    expect(await banner.getAttribute('data-violation-id')).toBe(raised.id);
    const bannerText = (await banner.textContent()) ?? '';
    expect(bannerText).toContain('Nova infração perto de você');
    expect(bannerText).toContain(arriving.plate);
    expect(bannerText).toContain('800 m (S)');
    expect(await banner.getAttribute('data-sound')).toBe('played');
    expect(await banner.getAttribute('data-notification')).toBe('shown');
    const notifications = await page.evaluate(() => (globalThis as unknown as PageGlobals).shownNotifications ?? []);
    expect(notifications).toEqual([
      {
        title: 'Nova infração perto de você',
        body: `A 800 m (S): ${arriving.plate} — Bandeira II fora das condições permitidas`,
      },
    ]);
    await expect.poll(rowIds, patience).toEqual([ids.near, raised.id, ids.middle, ids.far]);
    await waitForIdleMap(page);
    await screenshot('field-arrival');

    // "Ver" opens it.
    await banner.locator('button', { hasText: 'Ver' }).click();
    await page.locator(`.field-detail .violation-detail[data-violation-id="${raised.id}"]`).waitFor({ timeout: 5000 });
    expect(await banner.isHidden()).toBe(true);
  });

  it('takes a city or a tapped point instead of the GPS fix', async () => {
    await page.locator('.detail-back').click();
    await page.locator('[data-city="belem"]').click();
    await expect
      .poll(() => page.locator('.field-heading').textContent(), patience)
      .toBe('Nenhuma infração aberta a até 5 km.');
    expect(await page.locator('.field-status').textContent()).toBe('Centro de Belém');

    // Back to Brasília by tapping the map right on the taxi 1.5 km east: its violation is now the nearest.
    await page.locator('[data-city="brasilia"]').click();
    await page.locator('[data-action="pick"]').click();
    expect(await page.locator('.field-status').textContent()).toBe(
      'Toque no mapa para escolher o ponto de referência.',
    );
    await waitForIdleMap(page);
    const target = east(1500);
    const point = await page.evaluate(
      (lngLat) => (globalThis as unknown as PageGlobals).vigia?.map.project(lngLat) ?? null,
      [target.lon, target.lat] as [number, number],
    );
    const box = await page.locator('#map').boundingBox();
    if (!point || !box) throw new Error('the map is not on the page');
    await page.mouse.click(box.x + point.x, box.y + point.y);
    await expect.poll(() => page.locator('.field-status').textContent(), patience).toBe('Ponto escolhido no mapa');
    await expect.poll(async () => (await rowIds())[0], patience).toBe(ids.middle);
    const metres = Number(await page.locator('.field-row__distance').first().getAttribute('data-metres'));
    // A tap is as good as a finger: within 150 m of the taxi at this zoom.
    expect(metres).toBeLessThan(150);
  });

  /** The whole phone screen, kept as a PNG and checked to be a drawn page rather than a blank one. */
  async function screenshot(name: string): Promise<void> {
    const png = await page.screenshot();
    await writeFile(join(shots, `${name}.png`), png);
    const image = PNG.sync.read(png);
    expect([image.width, image.height]).toEqual([360, 740]);
    const counts = new Map<number, number>();
    for (let offset = 0; offset < image.data.length; offset += 4) {
      const key =
        ((image.data[offset] ?? 0) << 16) | ((image.data[offset + 1] ?? 0) << 8) | (image.data[offset + 2] ?? 0);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const commonest = Math.max(...counts.values());
    expect(counts.size).toBeGreaterThan(50);
    expect(commonest / (image.width * image.height)).toBeLessThan(0.8);
  }
});

/** How long a poll waits for the page or the server: a UI wait on a shared machine, never a speed bound. */
const patience = { timeout: 15_000 };
