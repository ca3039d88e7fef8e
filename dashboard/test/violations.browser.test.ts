import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LiveViolation } from '@vigia/core';
import { upsertViolations, type ViolationUpsert } from '@vigia/ingest';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, registerVehicle, startTestSystem, type TestSystem } from '../../api/test/support.js';
import { fleetMessages } from '../src/fleet-messages.js';
import { violationMessages as vm } from '../src/violation-messages.js';
import { violationColors } from '../src/violation-style.js';
import {
  chromiumArgs,
  chromiumPath,
  countColour,
  ensureDashboardBuilt,
  hasChromium,
  hexToRgb,
  mapScreenshot,
  type PageMap,
  screenshotDir,
  waitForIdleMap,
} from './browser-support.js';

/**
 * Violations on the dashboard, end to end: the real system (PGlite, no simulated fleet) gets a
 * charter bus's telemetry through the API; a violation is stored the way the rule pipeline stores
 * it and pushed on the bus the way the pipeline will push it. Headless Chromium must show it in
 * the feed at once, ring the bus on the map, open it with its evidence drawn, review it through
 * the server, and keep one entry when the event grows.
 */

if (!hasChromium) console.warn(`violations browser test skipped: ${chromiumPath} is not installed`);

interface PageGlobals {
  vigia?: { map: PageMap; vehicles(): Array<{ id: string }> };
}

const mark = hexToRgb(violationColors.mark);
const trace = hexToRgb(violationColors.trace);
const place = hexToRgb(violationColors.place);

/** Av. Paulista, São Paulo: the bus drives east along it and dwells at a regular-service stop. */
const route = { lat: -23.563, lon: -46.66, stepLon: 0.0004 };
const stop = { id: 'stop-paulista-1000', name: 'Av. Paulista, 1000', lat: -23.5629, lon: -46.654 };
const sampleCount = 31;
/** Samples 15 to 18 are the dwell at the stop: door opening at 16, six passengers boarding. */
const dwell = { from: 15, to: 18 };
const sampleEveryMs = 10_000;

describe.skipIf(!hasChromium)('violations on the dashboard', () => {
  let sys: TestSystem;
  let browser: Browser;
  let page: Page;
  let bus: Awaited<ReturnType<typeof registerVehicle>>;
  let taxi: Awaited<ReturnType<typeof registerVehicle>>;
  let busPlate: string;
  let raised: LiveViolation;
  let earlierTaxiViolationId: string;
  let cameraBeforeOpening: { center: [number, number]; zoom: number };
  let missedWhileOffline: LiveViolation;
  // The last sample a couple of seconds ago: the bus is online when the page opens.
  const t0 = Date.now() - (sampleCount - 1) * sampleEveryMs - 2000;
  const at = (index: number) => new Date(t0 + index * sampleEveryMs);
  const busPosition = (index: number) =>
    index >= dwell.from && index <= dwell.to
      ? { lat: route.lat, lon: stop.lon }
      : { lat: route.lat, lon: route.lon + index * route.stepLon };

  const boardingEvent = (extra: Partial<ViolationUpsert> = {}): ViolationUpsert => ({
    eventKey: `FRET_BOARDING_AT_REGULAR_STOP:${bus.vehicleId}:${at(dwell.from).toISOString()}`,
    ruleId: 'FRET_BOARDING_AT_REGULAR_STOP',
    pack: 'sp-fretamento',
    legalBasis: ['Art. 10 §3', 'Art. 11 §3'],
    description: 'Embarque de passageiros em ponto de parada do serviço regular',
    descriptionEn: 'Boarding passengers at a regular-service stop',
    vehicleId: bus.vehicleId,
    plate: busPlate,
    operatorId: bus.operatorId,
    permitNumber: null,
    variant: null,
    phase: 'ongoing',
    driverId: 'D-SP-77',
    startedAt: at(dwell.from),
    endedAt: null,
    lat: route.lat,
    lon: stop.lon,
    place: { kind: 'stop', id: stop.id, name: stop.name },
    confidence: 'confirmed',
    measured: { distanceToStopM: 11.1, stopRadiusM: 30, dwellS: 30, boardings: 6, doorOpened: true },
    penalty: { units: 10, unit: 'ORTN', amountBrl: 354.2 },
    recidivism: { count: 1, windowDays: 365 },
    evidenceFrom: at(0),
    evidenceTo: at(sampleCount - 1),
    ...extra,
  });

  beforeAll(async () => {
    await ensureDashboardBuilt();
    sys = await startTestSystem('pglite');

    bus = await registerVehicle(sys, { pack: 'sp-fretamento', operatorId: 'fretadora-paulista' });
    const busRecord = await api<{ plate: string }>(sys, 'GET', `/v1/vehicles/${bus.vehicleId}`);
    busPlate = busRecord.body.plate;
    expect((await api(sys, 'POST', '/v1/stops', stop)).status).toBe(201);
    // The bus runs under a written contract (SP Art. 10) along its route, boarding at the stop's
    // spot as declared: the live rules have nothing of their own to say about it, so the feed
    // holds exactly the violations this test stores.
    const contract = await api(sys, 'POST', '/v1/contracts', {
      id: `contract-${bus.vehicleId}`,
      operatorId: bus.operatorId,
      kind: 'fretamento-continuo',
      client: 'Cliente do teste',
      vehicleIds: [bus.vehicleId],
      route: {
        type: 'LineString',
        coordinates: [
          [route.lon, route.lat],
          [route.lon + sampleCount * route.stepLon, route.lat],
        ],
      },
      boardingPlaces: [{ id: 'bolsao-paulista', name: 'Bolsão Paulista', lat: route.lat, lon: stop.lon, radiusM: 80 }],
      alightingPlaces: [],
      schedule: [{ daysOfWeek: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '24:00' }],
      validFrom: new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10),
    });
    expect(contract.status).toBe(201);
    const busSamples = Array.from({ length: sampleCount }, (_, index) => {
      const dwelling = index >= dwell.from && index <= dwell.to;
      return {
        deviceId: bus.identifier,
        ts: at(index).toISOString(),
        ...busPosition(index),
        speedKmh: dwelling ? 0 : 15,
        headingDeg: 90,
        ignition: true,
        doorOpen: index === dwell.from + 1,
        passengers: index > dwell.from ? 26 : 20,
        boardings: index === dwell.from + 1 ? 6 : 0,
        tacho: { speedKmh: dwelling ? 0 : 15, driverId: 'D-SP-77' },
      };
    });
    const sent = await api<{ accepted: number }>(sys, 'POST', '/v1/telemetry', busSamples, bus.token);
    expect(sent.body.accepted).toBe(sampleCount);

    // A Brasília taxi with a violation from before the page opened: the feed must load it on start.
    // Its meter is on tariff 1: tariff 2 on a weekday between 06:00 and 20:00 in Brasília is a
    // live DF_BANDEIRA2_MISUSE of its own, which would make the feed's count depend on the hour.
    taxi = await registerVehicle(sys, { pack: 'df-taxi', operatorId: 'coop-candango' });
    const taxiSamples = [0, 1, 2].map((index) => ({
      deviceId: taxi.identifier,
      ts: at(index).toISOString(),
      lat: -15.7942 + index * 0.001,
      lon: -47.8822,
      speedKmh: 40,
      meter: { state: 'hired', tariff: 1, fareCents: 1250 + index * 100 },
    }));
    expect((await api(sys, 'POST', '/v1/telemetry', taxiSamples, taxi.token)).status).toBe(200);
    const [earlier] = await sys.db.transaction((tx) =>
      upsertViolations(tx, [
        {
          ...boardingEvent(),
          eventKey: `DF_BANDEIRA2_MISUSE:${taxi.vehicleId}:earlier`,
          ruleId: 'DF_BANDEIRA2_MISUSE',
          pack: 'df-taxi',
          legalBasis: ['Art. 45 III', 'Art. 48 III'],
          description: 'Bandeira II fora das condições permitidas',
          descriptionEn: 'Tariff 2 where none of its conditions held',
          vehicleId: taxi.vehicleId,
          plate: 'JKL1A23',
          operatorId: taxi.operatorId,
          driverId: null,
          startedAt: new Date(t0 - 3_600_000),
          lat: -15.7942,
          lon: -47.8822,
          place: null,
          confidence: 'suspected',
          measured: { stretchM: 900, tariff: 2 },
          penalty: { group: 'C' },
          recidivism: { count: 0, windowDays: 730 },
        },
      ]),
    );
    if (!earlier) throw new Error('the earlier violation was not stored');
    earlierTaxiViolationId = earlier.id;

    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    await page.goto(`${sys.url}/#token=${sys.adminToken}`);
    await page.waitForFunction(
      (vehicleId) => {
        const vigia = (globalThis as unknown as PageGlobals).vigia;
        return vigia?.map.loaded() === true && vigia.vehicles().some((vehicle) => vehicle.id === vehicleId);
      },
      bus.vehicleId,
      { timeout: 60_000, polling: 250 },
    );
    // Street scale on the bus, so its ring is tens of pixels across.
    await page.evaluate((center) => (globalThis as unknown as PageGlobals).vigia?.map.jumpTo({ center, zoom: 15 }), [
      stop.lon,
      stop.lat,
    ] as [number, number]);
    await waitForIdleMap(page);
  });

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('loads the violations stored before the page opened', async () => {
    const row = page.locator(`#violation-feed [data-violation-id="${earlierTaxiViolationId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain('DF_BANDEIRA2_MISUSE');
    expect(await row.locator('.badge[data-confidence]').textContent()).toBe(vm.confidence.suspected.label);
    expect(await row.textContent()).toContain(vm.penalty.group('C'));
    expect(await row.locator('.violation-row__place').count()).toBe(0);
    await expect.poll(() => page.locator('[data-count="open-violations"]').textContent()).toBe('1');
  });

  it('shows a raised violation in the feed within a second or two', async () => {
    // No ring before there is a violation: the mark test below must not pass on an unrelated red.
    const before = countColour(await mapScreenshot(page, 'violation-before'), mark);
    expect(before).toBeLessThan(10);

    const [stored] = await sys.db.transaction((tx) => upsertViolations(tx, [boardingEvent()]));
    if (!stored) throw new Error('the violation was not stored');
    expect(stored.change).toBe('raised');
    raised = stored;

    const started = performance.now();
    await sys.bus.publish({ type: 'violation', violations: [stored] });
    const row = page.locator(`#violation-feed [data-violation-id="${stored.id}"]`);
    await row.waitFor({ state: 'visible', timeout: 5000 });
    const latencyMs = performance.now() - started;
    console.info(`violation push → feed row: ${latencyMs.toFixed(0)} ms`);
    expect(latencyMs).toBeLessThan(2000);

    // Newest first, highlighted as new, with what an officer scans for.
    const firstRow = page.locator('#violation-feed .violation-row').first();
    expect(await firstRow.getAttribute('data-violation-id')).toBe(stored.id);
    expect(await row.getAttribute('class')).toContain('violation-row--new');
    // Intl puts a no-break space between "R$" and the amount.
    const text = ((await row.textContent()) ?? '').replace(/\u00a0/g, ' ');
    expect(text).toContain('FRET_BOARDING_AT_REGULAR_STOP');
    expect(text).toContain('Embarque de passageiros em ponto de parada do serviço regular');
    expect(text).toContain(busPlate);
    expect(text).toContain(stop.name);
    expect(text).toContain('10 ORTN');
    expect(text).toContain('R$ 354,20');
    // Confidence `confirmed` is badged "Measured", apart from the workflow's "Confirmed".
    expect(await row.locator('.badge[data-confidence]').textContent()).toBe(vm.confidence.confirmed.label);
    expect(await row.locator('.badge[data-status]').textContent()).toBe(vm.status.open);
    await expect.poll(() => page.locator('[data-count="open-violations"]').textContent()).toBe('2');
  });

  it('rings the vehicle on the map and lists the violation in its popup', async () => {
    await waitForIdleMap(page);
    const ringed = countColour(await mapScreenshot(page, 'violation-mark'), mark);
    expect(ringed).toBeGreaterThan(100);

    // The bus has driven on since the stop: its marker is at its last sample.
    const point = await projectOnPage(page, busPosition(sampleCount - 1));
    await page.mouse.click(point.x, point.y);
    const entry = page.locator(`.vehicle-popup .vehicle-popup__violation[data-violation-id="${raised.id}"]`);
    await entry.waitFor({ timeout: 5000 });
    expect(await entry.textContent()).toContain('FRET_BOARDING_AT_REGULAR_STOP');
    expect(await page.locator('.vehicle-popup__violations-heading').textContent()).toBe(
      fleetMessages.popup.openViolations(1),
    );
    await page.locator('.maplibregl-popup-close-button').click();
  });

  it('opens the violation with its evidence drawn and its facts listed', async () => {
    const noTrace = countColour(await mapScreenshot(page, 'violation-no-trace'), trace);
    expect(noTrace).toBeLessThan(10);
    cameraBeforeOpening = await cameraOf(page);

    await page.locator(`#violation-feed [data-violation-id="${raised.id}"] button`).click();
    const detail = page.locator(`#violation-detail .violation-detail[data-violation-id="${raised.id}"]`);
    await detail.waitFor({ timeout: 5000 });
    expect(await page.locator('#violation-feed').isHidden()).toBe(true);
    // The full record (with its evidence) has arrived once the sample count is shown.
    await expect.poll(() => detail.locator('.evidence-summary').textContent()).toContain(String(sampleCount));

    const legalBasis = await detail.locator('.legal-basis__article').allTextContents();
    expect(legalBasis).toEqual(['Art. 10 §3', 'Art. 11 §3']);
    expect(await measured(detail, 'distanceToStopM')).toEqual(['Distance to stop (m)', '11,1 m']);
    expect(await measured(detail, 'dwellS')).toEqual(['Dwell (s)', '30 s']);
    expect(await measured(detail, 'boardings')).toEqual(['Boardings', '6']);
    expect(await measured(detail, 'doorOpened')).toEqual(['Door opened', vm.measuredValues.yes]);
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain('D-SP-77');
    expect(text).toContain(vm.penalty.within(vm.penalty.earlier(1), 365));
    expect(text).toContain(vm.placeCaptions.stopRadius('Av. Paulista, 1000', '30 m'));
    expect(text).toContain(vm.detail.notReviewed);

    await waitForIdleMap(page);
    const image = await mapScreenshot(page, 'violation-evidence');
    expect(countColour(image, trace)).toBeGreaterThan(200);
    if (screenshotDir) await page.screenshot({ path: join(screenshotDir, 'violation-detail-page.png') });
    // The whole trace is framed: its first and last samples are inside the map.
    for (const index of [0, sampleCount - 1]) {
      const { x, y } = await projectOnMap(page, busPosition(index));
      expect(x).toBeGreaterThan(0);
      expect(x).toBeLessThan(image.width);
      expect(y).toBeGreaterThan(0);
      expect(y).toBeLessThan(image.height);
    }
    // Close up on the stop: its 30 m circle (the rule's radius) is drawn around it.
    const framed = await cameraOf(page);
    await jumpTo(page, [stop.lon, stop.lat], 18);
    expect(countColour(await mapScreenshot(page, 'violation-stop'), place)).toBeGreaterThan(150);
    await jumpTo(page, framed.center, framed.zoom);

    // A sample's readings on hover (one on the way to the stop: the dwell's samples overlap each other).
    const samplePoint = await projectOnPage(page, busPosition(10));
    await page.mouse.move(samplePoint.x, samplePoint.y);
    const popup = page.locator('.sample-popup');
    await popup.waitFor({ timeout: 5000 });
    const readings = (await popup.textContent()) ?? '';
    expect(readings).toContain(await localTime(page, at(10)));
    expect(readings).toContain('15 km/h');
    expect(readings).toMatch(new RegExp(`${vm.sample.door}\\s*${vm.sample.doorClosed}`));
    expect(readings).toMatch(new RegExp(`${escapeRegExp(fleetMessages.passengersTerm)}\\s*20`));
    await page.mouse.move(5, 5);
    // Several idle-map waits and screenshots: 20–30 s on a quiet machine, more on a loaded one.
  }, 150_000);

  it('replaces the entry when the event grows, in the feed and in the open detail', async () => {
    const [grown] = await sys.db.transaction((tx) =>
      upsertViolations(tx, [
        boardingEvent({ endedAt: at(dwell.to), measured: { ...boardingEvent().measured, dwellS: 40 } }),
      ]),
    );
    if (!grown) throw new Error('the grown violation was not stored');
    expect(grown).toMatchObject({ id: raised.id, change: 'updated' });
    const rowsBefore = await page.locator('#violation-feed .violation-row').count();
    await sys.bus.publish({ type: 'violation', violations: [grown] });

    const detail = page.locator('#violation-detail .violation-detail');
    await expect.poll(() => measured(detail, 'dwellS')).toEqual(['Dwell (s)', '40 s']);
    expect(await page.locator(`#violation-feed [data-violation-id="${raised.id}"]`).count()).toBe(1);
    expect(await page.locator('#violation-feed .violation-row').count()).toBe(rowsBefore);
    expect(await page.locator('[data-count="open-violations"]').textContent()).toBe('2');
  });

  it('reviews through the UI, and shows another desk’s review live', async () => {
    const detail = page.locator('#violation-detail .violation-detail');
    await page.locator('#review-reason').fill('Porta aberta e seis embarques no ponto, conforme o traçado');
    await page.locator('button[data-decision="confirm"]').click();
    await expect
      .poll(() => detail.locator('.detail-header .badge[data-status]').textContent())
      .toBe(vm.status.confirmed);
    await expect.poll(() => detail.locator('.review-trail__item').count()).toBe(1);
    expect(await detail.locator('.review-trail__reason').textContent()).toBe(
      'Porta aberta e seis embarques no ponto, conforme o traçado',
    );
    const onServer = await api<{ status: string }>(sys, 'GET', `/v1/violations/${raised.id}`);
    expect(onServer.body.status).toBe('confirmed');
    await expect.poll(() => page.locator('[data-count="open-violations"]').textContent()).toBe('1');
    // Confirmed: notify and dismiss are the decisions left.
    expect(await page.locator('button[data-decision="confirm"]').isDisabled()).toBe(true);
    expect(await page.locator('button[data-decision="notify"]').isEnabled()).toBe(true);

    // Another desk dismisses it meanwhile: the review reaches this page live, trail and all.
    const elsewhere = await api(sys, 'POST', `/v1/violations/${raised.id}/review`, {
      decision: 'dismiss',
      reason: 'Dismissed from another desk',
    });
    expect(elsewhere.status).toBe(200);
    await expect
      .poll(() => detail.locator('.detail-header .badge[data-status]').textContent())
      .toBe(vm.status.dismissed);
    await expect.poll(() => detail.locator('.review-trail__item').count()).toBe(2);
    expect(await page.locator('button[data-decision="confirm"]').isDisabled()).toBe(true);
  });

  it('returns to the live fleet on close, without the evidence, and without the ring once nothing is open', async () => {
    await page.locator('.detail-back').click();
    await page.locator('#violation-feed').waitFor({ state: 'visible' });
    expect(await page.locator('#violation-detail').isHidden()).toBe(true);
    // Back at the view from before opening, the bus's only violation no longer open.
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).vigia?.map.isMoving() === false);
    await waitForIdleMap(page);
    const camera = await cameraOf(page);
    expect(camera.zoom).toBeCloseTo(cameraBeforeOpening.zoom, 3);
    expect(camera.center[0]).toBeCloseTo(cameraBeforeOpening.center[0], 5);
    expect(camera.center[1]).toBeCloseTo(cameraBeforeOpening.center[1], 5);
    const image = await mapScreenshot(page, 'violation-closed');
    expect(countColour(image, trace)).toBeLessThan(10);
    expect(countColour(image, mark)).toBeLessThan(10);
    if (screenshotDir) await page.screenshot({ path: join(screenshotDir, 'violation-page.png') });
  });

  it('catches up after a reconnect with what was raised while it was disconnected', async () => {
    await page.context().setOffline(true);
    await expect.poll(() => page.locator('#connection').getAttribute('data-state')).toBe('reconnecting');
    const [missed] = await sys.db.transaction((tx) =>
      upsertViolations(tx, [
        boardingEvent({
          eventKey: `FRET_TACHOGRAPH_MISSING:${bus.vehicleId}:offline`,
          ruleId: 'FRET_TACHOGRAPH_MISSING',
          legalBasis: ['Art. 14', 'Art. 25 IV'],
          startedAt: at(sampleCount - 1),
          place: null,
        }),
      ]),
    );
    if (!missed) throw new Error('the missed violation was not stored');
    missedWhileOffline = missed;
    // Pushed to nobody: the page is offline.
    await sys.bus.publish({ type: 'violation', violations: [missed] });
    await page.waitForTimeout(300);
    expect(await page.locator(`#violation-feed [data-violation-id="${missed.id}"]`).count()).toBe(0);

    await page.context().setOffline(false);
    await expect.poll(() => page.locator('#connection').getAttribute('data-state'), { timeout: 15_000 }).toBe('live');
    await page.locator(`#violation-feed [data-violation-id="${missed.id}"]`).waitFor({ timeout: 10_000 });
    // The dismissal made at the other desk is picked up too: reviews are not pushed, the reload brings them.
    expect(
      await page.locator(`#violation-feed [data-violation-id="${raised.id}"] .badge[data-status]`).textContent(),
    ).toBe(vm.status.dismissed);
    await expect.poll(() => page.locator('[data-count="open-violations"]').textContent()).toBe('2');
  });

  it('filters the feed and exports the filtered list as CSV', async () => {
    const feedIds = () =>
      page
        .locator('#violation-feed .violation-row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-violation-id')));
    await page.locator('select[name="pack"]').selectOption('sp-fretamento');
    await expect.poll(feedIds).toEqual([missedWhileOffline.id, raised.id]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.violation-export').click()]);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toMatch(/^id,ruleId,pack,legalBasis/);
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual([missedWhileOffline.id, raised.id]);
    expect(download.suggestedFilename()).toMatch(/^infracoes-.*\.csv$/);

    await page.locator('select[name="pack"]').selectOption('');
    await page.locator('select[name="confidence"]').selectOption('suspected');
    await expect.poll(feedIds).toEqual([earlierTaxiViolationId]);
    await page.locator('select[name="confidence"]').selectOption('');
    await page.locator('select[name="status"]').selectOption('dismissed');
    await expect.poll(feedIds).toEqual([raised.id]);
    await page.locator('select[name="status"]').selectOption('');
    await expect.poll(feedIds).toEqual([missedWhileOffline.id, raised.id, earlierTaxiViolationId]);
  });

  it('opens the violation an address names (/#violation=<id>, as alert e-mails link), then drops it from the address', async () => {
    const linked = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await linked.goto(`${sys.url}/#token=${sys.adminToken}&violation=${earlierTaxiViolationId}`);
      const detail = linked.locator(
        `#violation-detail .violation-detail[data-violation-id="${earlierTaxiViolationId}"]`,
      );
      await detail.waitFor({ timeout: 30_000 });
      expect(await detail.textContent()).toContain('DF_BANDEIRA2_MISUSE');
      expect(new URL(linked.url()).hash).not.toContain('violation');
    } finally {
      await linked.close();
    }
  });
});

/** The pt-BR catalogue's text inside a pattern (its parentheses are literal). */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The page coordinates of a map position, for the mouse. */
async function projectOnPage(page: Page, position: { lat: number; lon: number }): Promise<{ x: number; y: number }> {
  const point = await projectOnMap(page, position);
  const box = await page.locator('#map').boundingBox();
  if (!box) throw new Error('the map is not on the page');
  return { x: box.x + point.x, y: box.y + point.y };
}

/** The map canvas's coordinates of a map position. */
async function projectOnMap(page: Page, position: { lat: number; lon: number }): Promise<{ x: number; y: number }> {
  const point = await page.evaluate(
    (lngLat) => (globalThis as unknown as PageGlobals).vigia?.map.project(lngLat) ?? null,
    [position.lon, position.lat] as [number, number],
  );
  if (!point) throw new Error('the map is not on the page');
  return { x: point.x, y: point.y };
}

async function jumpTo(page: Page, center: [number, number], zoom: number): Promise<void> {
  await page.evaluate(
    ({ center, zoom }) => (globalThis as unknown as PageGlobals).vigia?.map.jumpTo({ center, zoom }),
    { center, zoom },
  );
  await waitForIdleMap(page);
}

async function cameraOf(page: Page): Promise<{ center: [number, number]; zoom: number }> {
  const camera = await page.evaluate(() => {
    const map = (globalThis as unknown as PageGlobals).vigia?.map;
    if (!map) return null;
    const { lng, lat } = map.getCenter();
    return { center: [lng, lat] as [number, number], zoom: map.getZoom() };
  });
  if (!camera) throw new Error('the map is not on the page');
  return camera;
}

/** What the dashboard shows for an instant in the São Paulo time zone (sample popups: weekday and time). */
async function localTime(page: Page, instant: Date): Promise<string> {
  return page.evaluate(
    (ms) =>
      new Intl.DateTimeFormat('pt-BR', {
        timeZone: 'America/Sao_Paulo',
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      }).format(ms),
    instant.getTime(),
  );
}

/** The label and value of one measured value in the detail's table. */
async function measured(detail: ReturnType<Page['locator']>, key: string): Promise<[string | null, string | null]> {
  const row = detail.locator(`.measured-table tr[data-key="${key}"]`).first();
  return [await row.locator('th').textContent(), await row.locator('td').textContent()];
}
