import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import {
  createProject,
  describeBrowser,
  ensureDashboardBuilt,
  expectAccessible,
  launchChromium,
  STEP_MS,
  sendReports,
  signUp,
} from './browser.js';

/**
 * Control over grouping in a browser: one problem split over two issues is flagged in the list
 * as a possible duplicate, suggested on the issue page, merged there in one click, then split
 * back out with Unmerge; a grouping rule is added and deleted on its page.
 */
const CHECKOUT = [
  'Checkout failed: the payment gateway answered card_declined for a valid test card',
  'checkout failed, payment gateway said card_declined although the test card is valid',
  'Checkout failed: payment gateway card_declined on the valid test card again',
];

interface IssueJson {
  id: string;
  title: string;
  tool_name: string | null;
  report_count: number;
}

describeBrowser('grouping control in a browser', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';
  let main: IssueJson;
  let split: IssueJson;

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const issues = async (): Promise<IssueJson[]> =>
    (
      (await page.evaluate(
        `fetch('/v1/dashboard/${projectId}/issues?status=all&limit=100').then((r) => r.json())`,
      )) as { issues: IssueJson[] }
    ).issues;

  it('flags an issue split off by hand as a possible duplicate', async () => {
    await signUp(page, server.url);
    projectId = await createProject(page, 'Shop tools');
    const ids = await sendReports(
      page,
      server.url,
      projectId,
      CHECKOUT.map((details) => ({ outcome: 'failure', tool_name: 'checkout', details })),
    );
    await expect
      .poll(async () => (await issues()).reduce((sum, i) => sum + i.report_count, 0), {
        timeout: STEP_MS,
      })
      .toBe(3);
    // The developer's own move splits the problem in two (the session's CSRF token, as the UI).
    const status = await page.evaluate(`(async () => {
      const session = await (await fetch('/v1/auth/session')).json();
      const res = await fetch('/v1/dashboard/${projectId}/reports/${ids[2]}/move', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ new_issue: true }),
      });
      return res.status;
    })()`);
    expect(status).toBe(200);
    const all = await issues();
    main = all.find((i) => i.report_count === 2) as IssueJson;
    split = all.find((i) => i.report_count === 1) as IssueJson;
    expect(main && split).toBeTruthy();

    await page.goto(`${server.url}/projects/${projectId}`);
    const row = page.locator('.issue-row', {
      has: page.getByRole('link', { name: 'Possible duplicate' }),
    });
    await expect.poll(() => row.count(), { timeout: STEP_MS }).toBe(1);
    await row.getByRole('link', { name: 'Possible duplicate' }).click();
    await page.waitForURL(new RegExp(`/issues/${main.id}$`));
  });

  it('merges the suggested duplicate in one click, then unmerges it', async () => {
    const card = page.getByRole('region', { name: 'Possibly the same problem' });
    await card.getByTestId('similar-issue').first().waitFor();
    await expect
      .poll(() => card.getByTestId('similar-issue').first().textContent())
      .toContain('% alike');
    await expectAccessible(page, 'the issue page with a suggestion');
    await card
      .getByRole('button', { name: /^Merge here: / })
      .first()
      .click();

    const merged = page.getByRole('region', { name: 'Merged into this issue' });
    await merged.getByTestId('merged-issue').waitFor();
    await expectAccessible(page, 'the issue page with a merged issue');
    await page.getByRole('heading', { name: '3 reports', exact: true }).waitFor();
    expect((await issues()).map((i) => i.id)).not.toContain(split.id);
    // Merged: no longer suggested.
    await expect.poll(() => card.count()).toBe(0);

    await merged.getByRole('button', { name: /^Unmerge "/ }).click();
    await page.getByRole('heading', { name: '2 reports', exact: true }).waitFor();
    await expect.poll(() => merged.count()).toBe(0);
    const back = (await issues()).find((i) => i.id === split.id);
    expect(back?.report_count).toBe(1);
  });

  it('says "not the same" and the suggestion goes for good', async () => {
    const card = page.getByRole('region', { name: 'Possibly the same problem' });
    await card.getByTestId('similar-issue').first().waitFor();
    await card
      .getByRole('button', { name: /^Not the same: / })
      .first()
      .click();
    await expect.poll(() => card.count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: '2 reports', exact: true }).waitFor();
    expect(await card.count()).toBe(0);
  });

  it('adds and deletes a grouping rule on its page', async () => {
    await page.getByRole('link', { name: 'Grouping rules' }).click();
    await page.waitForURL(/\/rules$/);
    await page.getByText('No rule yet').waitFor();
    await page.getByLabel('Never join two tools').check();
    await page.getByLabel('Name').fill('checkout apart from cart');
    await page.getByLabel('Tool A').fill('checkout');
    await page.getByLabel('Tool B').fill('cart');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.getByTestId('grouping-rule');
    await rule.waitFor();
    await expectAccessible(page, 'the grouping rules page');
    expect(await rule.textContent()).toContain('Never join reports of checkout and cart');
    await page.getByRole('button', { name: 'Delete the rule "checkout apart from cart"' }).click();
    await page.getByText('No rule yet').waitFor();
  });
});
