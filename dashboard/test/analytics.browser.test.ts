import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedStand } from '../../api/test/dispatch-bookings-support.js';
import {
  api,
  overCapacityRide,
  registerVehicle,
  startTestSystem,
  type TestSystem,
  waitFor,
} from '../../api/test/support.js';
import { addLocalDays, localToday } from '../src/analytics/analytics-period.js';
import { chromiumPath, ensureDashboardBuilt, hasChromium, launchChromium, waitForIdleMap } from './browser-support.js';

/**
 * The regulator's analytics pages in headless Chromium against the real system (PostgreSQL): a
 * registry made through the API (21 DF taxis of which two report, five Belém taxis of a company
 * and a cooperative, Belém's population set to 2 000), telemetry sent by the taxis' own devices and
 * a DF_OVER_CAPACITY violation the rule pipeline raises from it. Each page is opened as a
 * regulator: its chart is drawn (series read back from the ECharts instance, canvas not blank), its
 * table shows a figure worked out by hand from what was sent, and its CSV downloads those rows.
 * A dispatcher sees no "Análises" link and no figures.
 */

if (!hasChromium) console.warn(`analytics browser test skipped: ${chromiumPath} is not installed`);

const shotsDir = `/tmp/vigia-analytics-shots-${process.pid}`;
const DF_TZ = 'America/Sao_Paulo';
const BSB = { lat: -15.7942, lon: -47.8822 };
const BEL = { lat: -1.4521, lon: -48.5034 };
/** A fixed stand 1.1 km south of the Esplanada. */
const standAt = { lat: BSB.lat - 0.01, lon: BSB.lon };
const pct = (share: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'percent', maximumFractionDigits: 1 }).format(share);

interface SeriesDrawn {
  name: string;
  type: string;
  points: number;
}

describe.skipIf(!hasChromium)('analytics pages in headless Chromium', () => {
  let sys: TestSystem;
  let browser: Browser;
  let page: Page;
  const run = Math.random().toString(36).slice(2, 7);
  const coop = `coop-${run}`;
  const company = `emp-${run}`;
  const coopBel = `coopbel-${run}`;
  let regulator: string;
  let dispatcher: string;
  let taxiA: Awaited<ReturnType<typeof registerVehicle>>;
  /** Taxi B's wait at the stand, from its entry in the queue to its hire. */
  let standWaitS = 0;
  const now = Date.now();
  const today = localToday(DF_TZ, now);
  const yesterday = addLocalDays(today, -1);
  const validFrom = new Date(now - 3 * 86_400_000).toISOString();

  async function screenshot(name: string): Promise<PNG> {
    await mkdir(shotsDir, { recursive: true });
    const png = await page.screenshot({ fullPage: false });
    await writeFile(join(shotsDir, `${name}.png`), png);
    return PNG.sync.read(png);
  }

  async function send(token: string, samples: unknown[]): Promise<void> {
    const res = await api(sys, 'POST', '/v1/telemetry', samples, token);
    expect(res.status).toBe(200);
  }

  /** Opens an analytics page by its link and waits for its table. */
  async function openPage(id: string, table: string): Promise<void> {
    await page.locator(`.analytics-nav__link[data-page="${id}"]`).click();
    await page.locator(`[data-table="${table}"]`).waitFor({ timeout: 20_000 });
  }

  /** The series of the page's n-th chart, as the ECharts instance holds them. */
  async function series(n = 0): Promise<SeriesDrawn[]> {
    const canvas = page.locator('.analytics-chart__canvas').nth(n);
    await expect.poll(() => canvas.getAttribute('data-series'), { timeout: 10_000 }).not.toBeNull();
    return JSON.parse((await canvas.getAttribute('data-series')) ?? '[]') as SeriesDrawn[];
  }

  /** Pixels of the n-th chart's canvas that are not background: the chart is drawn, not blank. */
  async function inkedPixels(n = 0): Promise<number> {
    const png = PNG.sync.read(await page.locator('.analytics-chart__canvas').nth(n).screenshot());
    let inked = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      const [r, g, b] = [png.data[i] ?? 255, png.data[i + 1] ?? 255, png.data[i + 2] ?? 255];
      if (r < 235 || g < 235 || b < 235) inked++;
    }
    return inked;
  }

  /** Clicks "Baixar CSV" and reads the file the browser saves. */
  async function downloadCsv(): Promise<string[]> {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-action="csv"]').click()]);
    const path = await download.path();
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    return (await readFile(path, 'utf8')).trim().split(/\r?\n/);
  }

  const cellText = (table: string, row: number, column: number) =>
    page.locator(`[data-table="${table}"] tbody tr`).nth(row).locator('td').nth(column).textContent();

  beforeAll(async () => {
    await ensureDashboardBuilt();
    sys = await startTestSystem('postgres', { BELEM_POPULATION: '2000', OFFLINE_AFTER_S: '3600' });
    const operators = await api(sys, 'POST', '/v1/operators', [
      { id: coop, name: 'Cooperativa Candanga', pack: 'df-taxi', kind: 'cooperative', validFrom },
      { id: company, name: 'Táxi Empresa Ltda', pack: 'belem-taxi', kind: 'company', validFrom },
      { id: coopBel, name: 'Cooperativa Paraense', pack: 'belem-taxi', kind: 'cooperative', validFrom },
    ]);
    expect(operators.status).toBe(201);
    const taxi = (pack: string, operatorId: string) =>
      registerVehicle(sys, { pack, operatorId, vehicle: { validFrom } });
    taxiA = await taxi('df-taxi', coop);
    const taxiB = await taxi('df-taxi', coop);
    // 19 DF taxis that never report: a fleet of 21, so one taxi is 4.8 % of it (below the 5 % minimum), two 9.5 %.
    for (let i = 0; i < 19; i++) await taxi('df-taxi', coop);
    // Belém: one company taxi and four of the cooperative: 5 authorized, 20 % held by a legal person.
    await taxi('belem-taxi', company);
    const belem = [];
    for (let i = 0; i < 4; i++) belem.push(await taxi('belem-taxi', coopBel));
    const user = async (role: string) =>
      (await api<{ token: string }>(sys, 'POST', '/v1/users', { name: `${role} ${run}`, role, operatorIds: [] })).body
        .token;
    regulator = await user('regulator');
    const dispatcherUser = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      name: `dispatcher ${run}`,
      role: 'dispatcher',
      operatorIds: [coop],
    });
    expect(dispatcherUser.status).toBe(201);
    dispatcher = dispatcherUser.body.token;

    // Taxi A yesterday at local noon: free, hired on Bandeira I, hired on Bandeira II, free, free —
    // 240 s observed, 120 s hired (the sample ending each minute gives its state): 50 % by time.
    const noon = Date.parse(`${yesterday}T12:00:00-03:00`);
    const meters = [
      { state: 'free' },
      { state: 'hired', tariff: 1 },
      { state: 'hired', tariff: 2 },
      { state: 'free' },
      { state: 'free' },
    ];
    await send(
      taxiA.token,
      meters.map((meter, i) => ({
        deviceId: taxiA.identifier,
        ts: new Date(noon + i * 60_000).toISOString(),
        lat: BSB.lat + i * 0.003,
        lon: BSB.lon,
        speedKmh: 30,
        meter,
      })),
    );
    // Today: taxi A carries six passengers in four seats for a minute (DF_OVER_CAPACITY), taxi B drives free.
    await send(taxiA.token, overCapacityRide(taxiA.identifier, now - 10 * 60_000, `trip-${run}`));
    // Taxi B waits 3 minutes at a fixed stand and leaves it hired: one stand visit of its cooperative.
    const stand = await fixedStand(sys, `Ponto ${run}`, standAt, [taxiB.vehicleId]);
    const t0 = now - 20 * 60_000;
    const waiting = [];
    for (let t = 0; t <= 180; t += 5) {
      waiting.push({
        deviceId: taxiB.identifier,
        ts: new Date(t0 + t * 1000).toISOString(),
        ...standAt,
        speedKmh: 0,
        passengers: 0,
        meter: { state: 'free' },
      });
    }
    await send(taxiB.token, waiting);
    const entered = await waitFor('the stand queue', async () => {
      const queue = await api<{ items: { enteredAt: string }[] }>(sys, 'GET', `/v1/stands/${stand.id}/queue`);
      return queue.body.items[0]?.enteredAt;
    });
    const hiredAt = t0 + 185_000;
    await send(taxiB.token, [
      {
        deviceId: taxiB.identifier,
        ts: new Date(hiredAt).toISOString(),
        ...standAt,
        speedKmh: 0,
        passengers: 1,
        meter: { state: 'hired' },
      },
    ]);
    standWaitS = (hiredAt - Date.parse(entered)) / 1000;
    await waitFor(
      'the stand visit',
      async () =>
        (await api<{ standWaits: { totals: { visits: number } } }>(sys, 'GET', `/v1/analytics/operators/${coop}`)).body
          .standWaits.totals.visits > 0,
      30_000,
    );
    const belemTaxi = belem[0];
    if (!belemTaxi) throw new Error('no Belém taxi');
    await send(belemTaxi.token, [
      {
        deviceId: belemTaxi.identifier,
        ts: new Date(now - 5 * 60_000).toISOString(),
        ...BEL,
        meter: { state: 'free' },
      },
    ]);
    await waitFor(
      'the over-capacity violation',
      async () =>
        (
          await api<{ items: unknown[] }>(
            sys,
            'GET',
            `/v1/violations?vehicleId=${taxiA.vehicleId}&ruleId=DF_OVER_CAPACITY`,
          )
        ).body.items.length > 0,
      30_000,
    );

    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1366, height: 900 },
      locale: 'pt-BR',
      acceptDownloads: true,
    });
    page = await context.newPage();
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    await page.goto(`${sys.url}/#token=${regulator}`);
    const link = page.locator('a.view-switch[href="#analytics/occupancy"]');
    await link.waitFor({ state: 'visible', timeout: 60_000 });
    expect(await link.textContent()).toBe('Análises');
    await link.click();
    await page.locator('#analytics [data-table="occupancy"]').waitFor({ timeout: 60_000 });
    console.log(`analytics screenshots: ${shotsDir}`);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('occupancy: every day of the last 30 charted, yesterday at 50 % with its sample flagged below 5 %', async () => {
    expect(await page.locator('.analytics-nav__link[aria-current="page"]').getAttribute('data-page')).toBe('occupancy');
    // The default period: the 30 local days up to today, in Brasília's zone, named under the dates.
    expect(await page.locator('[data-period="from"]').inputValue()).toBe(addLocalDays(today, -29));
    expect(await page.locator('[data-period="to"]').inputValue()).toBe(today);
    expect(await page.locator('.analytics-period__zone').textContent()).toContain('horário de Brasília');
    const drawn = await series(0);
    expect(drawn.map((s) => [s.type, s.points])).toEqual([
      ['bar', 30],
      ['line', 30],
    ]);
    expect((await series(1))[0]?.points).toBe(30);
    expect(await inkedPixels(0)).toBeGreaterThan(500);
    // Yesterday is the 29th row: one taxi of 21 (4.8 %, flagged), 50 % of the time hired.
    const row = page.locator('[data-table="occupancy"] tbody tr').nth(28);
    expect(await row.getAttribute('data-flag')).toBe('insufficient');
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('1');
    expect(cells[2]).toContain(pct(1 / 21));
    expect(cells[2]).toContain('abaixo do mínimo');
    expect(cells[3]).toBe(pct(0.5));
    // Today: two taxis of 21, a valid sample.
    expect(await page.locator('[data-table="occupancy"] tbody tr').nth(29).getAttribute('data-flag')).toBeNull();
    expect(await page.locator('.analytics-flag').textContent()).toContain('abaixo do mínimo de 5 %');
    await screenshot('occupancy');
    // The CSV: a header, the 30 days and the total; yesterday with 240 s observed and 120 s hired.
    const lines = await downloadCsv();
    expect(lines.length).toBe(32);
    expect(lines.find((l) => l.startsWith(yesterday))).toMatch(
      new RegExp(`^${yesterday},21,1,[0-9.e-]+,false,240,120,0\\.5,`),
    );
  });

  it('occupancy by hour: the 24 hours of one day, noon at 50 %', async () => {
    await page.locator('[data-period="from"]').fill(yesterday);
    await page.locator('[data-period="to"]').fill(yesterday);
    await page.locator('.analytics-period button[type="submit"]').click();
    await expect.poll(async () => (await series(0))[0]?.points, { timeout: 10_000 }).toBe(1);
    await page.locator('select[name="by"]').selectOption('hour');
    await expect.poll(async () => (await series(0))[0]?.points, { timeout: 10_000 }).toBe(24);
    expect(await page.locator('[data-table="occupancy"] tbody tr').count()).toBe(24);
    expect(await cellText('occupancy', 12, 3)).toBe(pct(0.5));
    expect(await cellText('occupancy', 12, 0)).toContain('12:00');
    // More than a month of hours is refused on the page, in words, before asking the API.
    await page.locator('[data-period="from"]').fill(addLocalDays(yesterday, -40));
    await page.locator('.analytics-period button[type="submit"]').click();
    await expect
      .poll(() => page.locator('.analytics-state[data-state="message"]').textContent())
      .toContain('Por hora, o período vai até 31 dias');
    expect(await page.locator('[data-table="occupancy"]').count()).toBe(0);
  });

  it('Belém fleet sizing: 400 inhabitants per authorized taxi against 500, over the limit', async () => {
    await openPage('fleet-sizing', 'fleet-sizing');
    expect(await page.locator('.analytics-period__zone').textContent()).toContain('horário de Belém');
    const drawn = await series(0);
    expect(drawn).toEqual([expect.objectContaining({ type: 'bar', points: 2 })]);
    expect(await inkedPixels(0)).toBeGreaterThan(300);
    const rows = await page.locator('[data-table="fleet-sizing"] tbody tr').allTextContents();
    // Population 2 000 → 4 allowed; 5 authorized, 1 in service; 400 and 2 000 inhabitants per taxi; surplus 1.
    expect(rows).toEqual([
      expect.stringMatching(/^População2\.000$/),
      expect.stringMatching(/^Frota permitida \(1 por 500\)4$/),
      expect.stringMatching(/^Táxis autorizados5$/),
      expect.stringMatching(/^Táxis em serviço no período1$/),
      expect.stringMatching(/^Habitantes por táxi autorizado400$/),
      expect.stringMatching(/^Habitantes por táxi em serviço2\.000$/),
      expect.stringMatching(/^Excedente \(autorizados − permitidos\)1$/),
    ]);
    expect(await page.locator('[data-over-limit]').getAttribute('data-over-limit')).toBe('true');
    await screenshot('fleet-sizing');
    const lines = await downloadCsv();
    expect(lines.length).toBe(2);
    expect(lines[1]).toContain('2000');
  });

  it('authorizations per company: the company at 20 %, over the 10 % cap drawn as a line', async () => {
    await openPage('authorization-shares', 'authorization-shares');
    const drawn = await series(0);
    // The legal persons together, then each operator of the pack.
    expect(drawn).toEqual([expect.objectContaining({ type: 'bar', points: 3 })]);
    expect(await inkedPixels(0)).toBeGreaterThan(300);
    const rows = page.locator('[data-table="authorization-shares"] tbody tr');
    // Most authorizations first: the cooperative's 4, then the company's 1 of 5.
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(1).locator('td').allTextContents()).toEqual([
      'Táxi Empresa Ltda',
      'Empresa',
      'Sim',
      '1',
      pct(0.2),
      'Sim',
    ]);
    expect(await rows.nth(1).getAttribute('data-flag')).toBe('over-cap');
    expect(await page.locator('[data-over-cap]').getAttribute('data-over-cap')).toBe('true');
    await screenshot('authorization-shares');
    const lines = await downloadCsv();
    expect(lines.some((l) => l.includes(company) && l.includes(',1,0.2,'))).toBe(true);
  });

  it('a vehicle’s record: the violation by rule and month as stacked bars, Bandeira II share and hours', async () => {
    await page.locator('.analytics-nav__link[data-page="vehicles"]').click();
    const picker = page.locator('select[data-picker="vehicles"]');
    await expect.poll(() => picker.locator('option').count(), { timeout: 20_000 }).toBeGreaterThan(20);
    await picker.selectOption(taxiA.vehicleId);
    await page.locator('[data-table="record-months"]').waitFor({ timeout: 20_000 });
    expect(page.url()).toContain(`#analytics/vehicles/${taxiA.vehicleId}`);
    const violations = await series(0);
    expect(violations).toEqual([expect.objectContaining({ name: 'DF_OVER_CAPACITY', type: 'bar' })]);
    const activity = await series(1);
    expect(activity.map((s) => s.type)).toEqual(['bar', 'bar', 'bar']);
    expect(await inkedPixels(0)).toBeGreaterThan(200);
    const violationRows = await page.locator('[data-table="record-violations"] tbody tr td').allTextContents();
    expect(violationRows.slice(1)).toEqual(['DF_OVER_CAPACITY', expect.stringMatching(/^[1-9]\d*$/)]);
    // Hired 120 s yesterday (60 s on Bandeira II), then today's ride on Bandeira I: its 55 s plus
    // the 300 s its first sample counts after the overnight silence (a gap counts at most 5 min).
    expect(await page.locator('.analytics-summary').textContent()).toContain(
      `${pct(60 / 475)} do tempo ocupado em Bandeira II`,
    );
    await screenshot('vehicle-record');
    const lines = await downloadCsv();
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.some((l) => l.includes('DF_OVER_CAPACITY'))).toBe(true);
  });

  it('an operator’s record: its taxis together', async () => {
    await page.locator('.analytics-nav__link[data-page="operators"]').click();
    const picker = page.locator('select[data-picker="operators"]');
    await expect.poll(() => picker.locator('option').count(), { timeout: 20_000 }).toBeGreaterThan(3);
    await picker.selectOption(coop);
    await page.locator('[data-table="record-months"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('.analytics-record__name').textContent()).toBe('Cooperativa Candanga');
    expect(await page.locator('.analytics-summary').textContent()).toContain('21 veículos');
    expect((await series(0))[0]?.name).toBe('DF_OVER_CAPACITY');
    // Taxi B's visit to the stand: one visit, left hired, its wait in minutes.
    const minutes = `${new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 1 }).format(standWaitS / 60)} min`;
    await expect
      .poll(() => page.locator('[data-table="record-stands"] tbody tr td').allTextContents(), { timeout: 15_000 })
      .toEqual([`Ponto ${run}`, '1', '1', minutes, minutes, minutes]);
    await page.locator('[data-table="record-stands"]').scrollIntoViewIfNeeded();
    await screenshot('operator-record');
  });

  it('the heat map: the violation’s cell drawn on the map beside the page, by rule', async () => {
    await openPage('violation-heat', 'violation-heat');
    await expect.poll(() => page.locator('.map').isVisible()).toBe(true);
    expect(await page.locator('[data-total]').getAttribute('data-total')).toMatch(/^[1-9]\d*$/);
    const drawn = await series(0);
    expect(drawn[0]?.points).toBeGreaterThanOrEqual(1);
    expect(await page.locator('select[name="ruleId"] option').allTextContents()).toContain('DF_OVER_CAPACITY');
    await page.locator('select[name="ruleId"]').selectOption('DF_OVER_CAPACITY');
    await expect.poll(() => page.locator('[data-table="violation-heat"] tbody tr').count()).toBeGreaterThanOrEqual(1);
    await waitForIdleMap(page);
    const heat = await page.evaluate(() => {
      const vigia = (globalThis as unknown as { vigia?: { map: { queryRenderedFeatures(o: object): unknown[] } } })
        .vigia;
      return vigia?.map.queryRenderedFeatures({ layers: ['analytics-heat'] }).length ?? 0;
    });
    expect(heat).toBeGreaterThanOrEqual(1);
    await screenshot('violation-heat');
    const lines = await downloadCsv();
    expect(lines.length).toBeGreaterThanOrEqual(2);
  });

  it('in the catalogue test’s pseudo-locale, every text of every page is a catalogue string or marked as data', async () => {
    const pseudo = await browser.newContext({ viewport: { width: 1366, height: 900 }, locale: 'pt-BR' });
    // The test-only locale wraps every catalogue string in ⟦…⟧ (src/i18n.ts).
    await pseudo.addInitScript(() => window.localStorage.setItem('vigia.locale', 'qps'));
    const other = await pseudo.newPage();
    await other.goto(`${sys.url}/#token=${regulator}`);
    await other.locator('.session-user[data-role="regulator"]').waitFor({ timeout: 60_000 });
    const routes: Array<[string, string]> = [
      ['occupancy', 'occupancy'],
      ['fleet-sizing', 'fleet-sizing'],
      ['authorization-shares', 'authorization-shares'],
      [`vehicles/${taxiA.vehicleId}`, 'record-violations'],
      [`operators/${coop}`, 'record-months'],
      ['violation-heat', 'violation-heat'],
    ];
    for (const [route, table] of routes) {
      await other.evaluate((hash) => {
        window.location.hash = hash;
      }, `#analytics/${route}`);
      await other.locator(`[data-table="${table}"]`).waitFor({ timeout: 60_000 });
      const unwrapped = await other.evaluate(() => {
        const strip = (text: string) => {
          let rest = text;
          for (let next = rest.replace(/⟦[^⟦⟧]*⟧/g, ''); next !== rest; next = rest.replace(/⟦[^⟦⟧]*⟧/g, ''))
            rest = next;
          return rest;
        };
        const lettered = (text: string) => /\p{L}/u.test(strip(text).replace(/\b(?:km|h|min|UTC)\b/g, ''));
        const root = document.querySelector('#analytics');
        const found: string[] = [];
        if (!root) return ['no #analytics'];
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const parent = node.parentElement;
          const text = node.textContent?.trim() ?? '';
          if (!parent || parent.closest('[data-value], time') || !lettered(text)) continue;
          found.push(text);
        }
        for (const element of root.querySelectorAll('[title], [aria-label]')) {
          for (const name of ['title', 'aria-label']) {
            const value = element.getAttribute(name) ?? '';
            if (lettered(value) && !element.hasAttribute('data-value')) found.push(`${name}: ${value}`);
          }
        }
        return found;
      });
      expect(unwrapped, route).toEqual([]);
    }
    await pseudo.close();
  }, 180_000);

  it('a dispatcher sees no "Análises" link, and the analytics route shows no figures', async () => {
    const other = await browser.newPage({ viewport: { width: 1366, height: 900 }, locale: 'pt-BR' });
    other.on('pageerror', (error) => console.error(`dispatcher page error: ${error.message}`));
    await other.goto(`${sys.url}/#token=${dispatcher}`);
    try {
      await other.locator('.session-user[data-role="dispatcher"]').waitFor({ timeout: 30_000 });
    } finally {
      await mkdir(shotsDir, { recursive: true });
      await other.screenshot({ path: join(shotsDir, 'dispatcher-desk.png') });
    }
    expect(await other.locator('a.view-switch[href="#analytics/occupancy"]').isVisible()).toBe(false);
    await other.evaluate(() => {
      window.location.hash = '#analytics/occupancy';
    });
    await other.locator('#analytics .analytics-state').waitFor({ timeout: 60_000 });
    await expect
      .poll(() => other.locator('#analytics .analytics-state').textContent(), { timeout: 30_000 })
      .toBe('As análises estão disponíveis ao órgão regulador e ao administrador.');
    expect(await other.locator('[data-table]').count()).toBe(0);
    await other.close();
  }, 120_000);
});
