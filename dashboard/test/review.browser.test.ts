import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, registerVehicle, startTestSystem, storeViolation, type TestSystem } from '../../api/test/support.js';
import { reviewMessages } from '../src/review-messages.js';
import { chromiumPath, ensureDashboardBuilt, hasChromium, launchChromium } from './browser-support.js';

/**
 * The review form's safeguards, end to end (api/src/violations/README.md): dismissing asks for
 * confirmation first (going back changes nothing), a dismissed violation offers "Reabrir" and
 * goes back to open with its reason, and the trail names the reviewer by name, not by a token or
 * user id. A regulator signs in with their own token.
 */

if (!hasChromium) console.warn(`review browser test skipped: ${chromiumPath} is not installed`);

const shots = `/tmp/vigia-review-shots-${process.pid}`;
const reviewerName = 'Regina Alves (SEMOB)';

describe.skipIf(!hasChromium)('reviewing a violation: confirm before dismissing, reopen with a reason', () => {
  let sys: TestSystem;
  let browser: Browser;
  let page: Page;
  let violationId: string;

  const statusOnServer = async () =>
    (await api<{ status: string }>(sys, 'GET', `/v1/violations/${violationId}`)).body.status;
  const detail = () => page.locator('#violation-detail .violation-detail');
  const statusShown = () => detail().locator('.detail-header .badge[data-status]').getAttribute('data-status');

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    console.log(`review screenshots: ${shots}`);
    await ensureDashboardBuilt();
    sys = await startTestSystem('pglite');
    const taxi = await registerVehicle(sys, { pack: 'df-taxi', operatorId: 'coop-review' });
    const user = await api<{ token: string }>(sys, 'POST', '/v1/users', {
      id: 'u-regina',
      name: reviewerName,
      role: 'regulator',
    });
    expect(user.status).toBe(201);
    violationId = await storeViolation(sys, taxi, `DF_OVER_CAPACITY:${taxi.vehicleId}:review`);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${sys.url}/#token=${user.body.token}`);
    const row = page.locator(`#violation-feed [data-violation-id="${violationId}"]`);
    await row.waitFor({ timeout: 60_000 });
    await row.click();
    // On a loaded machine the feed may redraw the row (its address line arrives late) as the
    // click lands: click again until the detail is open, rather than fail on a lost click.
    const reason = detail().locator('#review-reason');
    const deadline = Date.now() + 90_000;
    while (!(await reason.isVisible())) {
      if (Date.now() > deadline) throw new Error('the violation detail with its review form never opened');
      await reason.waitFor({ timeout: 5_000 }).catch(() => row.click({ timeout: 10_000 }).catch(() => undefined));
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });

  it('asks before dismissing; going back leaves the violation open', async () => {
    const dismiss = page.locator('button[data-decision="dismiss"]');
    const confirmBox = page.locator('.review-form__confirm');
    // Reopening is offered only once dismissed.
    expect(await page.locator('button[data-decision="reopen"]').isHidden()).toBe(true);
    await page.locator('#review-reason').fill('Contagem do sensor duvidosa');
    await dismiss.click();
    await confirmBox.waitFor({ state: 'visible' });
    expect(await confirmBox.locator('.review-form__confirm-question').textContent()).toBe(
      reviewMessages.confirmDismissQuestion,
    );
    // While asking, no other decision can be taken.
    expect(await dismiss.isDisabled()).toBe(true);
    expect(await page.locator('button[data-decision="confirm"]').isDisabled()).toBe(true);
    await page.screenshot({ path: join(shots, 'confirm-dismiss.png') });

    await confirmBox.locator('.review-form__confirm-no').click();
    expect(await confirmBox.isHidden()).toBe(true);
    expect(await statusOnServer()).toBe('open');
    expect(await statusShown()).toBe('open');
    expect(await dismiss.isEnabled()).toBe(true);
    // The reason typed is kept for the second try.
    expect(await page.locator('#review-reason').inputValue()).toBe('Contagem do sensor duvidosa');
  });

  it('dismisses once confirmed, and names the reviewer in the trail', async () => {
    await page.locator('button[data-decision="dismiss"]').click();
    await page.locator('.review-form__confirm-yes').click();
    await expect.poll(statusShown).toBe('dismissed');
    expect(await statusOnServer()).toBe('dismissed');
    const meta = detail().locator('.review-trail__item .review-trail__meta');
    await expect.poll(() => meta.count()).toBe(1);
    expect(await meta.first().textContent()).toContain(reviewerName);
    expect(await meta.first().textContent()).not.toContain('u-regina');
  });

  it('reopens a dismissed violation with a reason', async () => {
    const reopen = page.locator('button[data-decision="reopen"]');
    await expect.poll(() => reopen.isVisible()).toBe(true);
    expect(await reopen.textContent()).toBe(reviewMessages.reopen);
    expect(await page.locator('button[data-decision="dismiss"]').isDisabled()).toBe(true);
    await page.locator('#review-reason').fill('Vídeo da garagem mostra seis passageiros');
    await scrollTo(reopen);
    await page.screenshot({ path: join(shots, 'dismissed-reopen.png') });
    await reopen.click();
    await expect.poll(statusShown).toBe('open');
    expect(await statusOnServer()).toBe('open');
    const items = detail().locator('.review-trail__item');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.nth(1).getAttribute('data-decision')).toBe('reopen');
    expect(await items.nth(1).locator('.review-trail__reason').textContent()).toBe(
      'Vídeo da garagem mostra seis passageiros',
    );
    expect(await items.nth(1).locator('.review-trail__meta').textContent()).toContain(reviewerName);
    // Open again: reopening is no longer offered, confirming is.
    expect(await reopen.isHidden()).toBe(true);
    expect(await page.locator('button[data-decision="confirm"]').isEnabled()).toBe(true);
    await scrollTo(items.nth(1));
    await page.screenshot({ path: join(shots, 'reopened.png') });
  });
});

/**
 * Scrolls to what the locator finds, again if the panel re-rendered meanwhile: the detail is drawn
 * anew when the violation's live update arrives, and a CI run saw the trail item detached in the
 * middle of the scroll ("Element is not attached to the DOM").
 */
async function scrollTo(locator: Locator): Promise<void> {
  await vi.waitFor(() => locator.scrollIntoViewIfNeeded({ timeout: 2_000 }), { timeout: 15_000, interval: 100 });
}
