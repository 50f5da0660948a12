import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import {
  artifacts,
  createProject,
  describeBrowser,
  ensureDashboardBuilt,
  launchChromium,
  STEP_MS,
  sendReports,
  signUp,
  submitReports,
} from './browser.js';

/**
 * The dashboard's layout on a phone (390 px) and a laptop (1280 px), keyboard focus, and the
 * small defects a first hour with the dashboard turned up: each `it` is one of them.
 */

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 900 };
/** How far the document scrolls sideways beyond the viewport, in CSS pixels (0 = no pan). */
const PAN = 'document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth';

describeBrowser('dashboard layout', { timeout: 60_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';

  const reportsPage = async (query = '') => {
    await page.goto(`${server.url}/projects/${projectId}/reports${query}`);
    await page.locator('.report-list > li').first().waitFor();
  };
  const sidewaysPan = () => page.evaluate(PAN) as Promise<number>;
  /** The chart and tool table: behind a toggle on phones, always shown on wide screens. */
  const showInsights = async () => {
    const toggle = page.getByRole('button', { name: 'Chart and tools' });
    if (await toggle.isVisible()) {
      if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    }
    await page.locator('.chart svg').waitFor();
    await page.locator('.tools-table').waitFor();
  };

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    await signUp(page, server.url);
    projectId = await createProject(page, 'Weather API');
    await submitReports(page, server.url, projectId, 14);
    // A tool with only feature requests, and one that fails half the time.
    await sendReports(page, server.url, projectId, [
      { outcome: 'request', tool_name: 'wishlist', details: 'Please add hourly data.' },
      { outcome: 'request', tool_name: 'wishlist', details: 'And a UV index.' },
      { outcome: 'success', tool_name: 'flaky', details: 'Worked.' },
      { outcome: 'failure', tool_name: 'flaky', details: 'Timed out.' },
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('no page pans sideways on a 390 px phone', async () => {
    const paths = [
      `/projects/${projectId}`,
      `/projects/${projectId}/reports`,
      `/projects/${projectId}/integrate`,
      `/projects/${projectId}/keys`,
      '/api-keys',
      '/',
      `/projects/${'0'.repeat(32)}`,
    ];
    const signedOut = await browser.newContext({ viewport: PHONE, isMobile: true });
    const pans: Record<string, number> = {};
    try {
      const visitor = await signedOut.newPage();
      for (const path of ['/signin', '/signup']) {
        await visitor.goto(`${server.url}${path}`);
        await visitor.getByLabel('Password').waitFor({ timeout: STEP_MS });
        pans[path] = (await visitor.evaluate(PAN)) as number;
      }
    } finally {
      await signedOut.close();
    }
    await page.setViewportSize(PHONE);
    try {
      for (const path of paths) {
        await page.goto(`${server.url}${path}`);
        await page.locator('h1').first().waitFor();
        await page.getByText('Loading…').first().waitFor({ state: 'hidden' });
        if (path === `/projects/${projectId}/reports`) {
          await page.locator('.report-list > li').first().waitFor();
          pans[path] = await sidewaysPan();
          await showInsights();
          pans[`${path} (chart and tools shown)`] = await sidewaysPan();
        } else {
          pans[path] = await sidewaysPan();
        }
      }
    } finally {
      await page.setViewportSize(LAPTOP);
    }
    expect(Object.entries(pans).filter(([, pan]) => pan > 0)).toEqual([]);
  });

  it('on a phone the first report is within 1.5 screens, and chart and tools fit', async () => {
    await page.setViewportSize(PHONE);
    try {
      await reportsPage();
      const top = await page
        .locator('.report-list > li')
        .first()
        .evaluate(
          (item) => item.getBoundingClientRect().top + item.ownerDocument.defaultView!.scrollY,
        );
      expect(top).toBeLessThanOrEqual(PHONE.height * 1.5);
      await page.screenshot({ path: join(artifacts, 'layout-reports-390.png'), fullPage: true });
      await page.screenshot({ path: join(artifacts, 'layout-reports-390-first-screen.png') });

      await showInsights();
      // Every column of the tool table, the success rate included, is on screen: no scroller.
      const scroller = await page.locator('.tools-table').evaluate((table) => {
        const box = table.parentElement!;
        return { scroll: box.scrollWidth, client: box.clientWidth };
      });
      expect(scroller.scroll).toBeLessThanOrEqual(scroller.client);
      const rate = await page
        .locator('.tools-table thead th')
        .last()
        .evaluate((th) => th.getBoundingClientRect().right);
      expect(rate).toBeLessThanOrEqual(PHONE.width);
      await page.locator('.insights').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(artifacts, 'layout-reports-390-insights.png') });
    } finally {
      await page.setViewportSize(LAPTOP);
    }
  });

  it("the chart's last date label is not clipped on a phone", async () => {
    await page.setViewportSize(PHONE);
    try {
      await reportsPage();
      await showInsights();
      const overflow = await page.locator('.chart svg').evaluate((svg) => {
        const right = svg.getBoundingClientRect().right;
        const labels = [...svg.querySelectorAll('.chart-label')];
        return labels.map((label) => label.getBoundingClientRect().right - right);
      });
      expect(overflow.length).toBeGreaterThan(1);
      expect(Math.max(...overflow)).toBeLessThanOrEqual(0.5);
    } finally {
      await page.setViewportSize(LAPTOP);
    }
  });

  it('at 1280 px the tool table shows every column, each headed by text', async () => {
    await reportsPage();
    await showInsights();
    const table = page.locator('.tools-table');
    const fit = await table.evaluate((element) => ({
      scroll: element.parentElement!.scrollWidth,
      client: element.parentElement!.clientWidth,
    }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    // Sighted users read a word over every column, not only a coloured dot.
    const headers = await table.locator('thead th').evaluateAll((cells) =>
      cells.map((cell) => ({
        text: cell.innerText.trim(),
        clipped: cell.scrollWidth > cell.clientWidth,
      })),
    );
    expect(headers.filter((header) => !header.text || header.clipped)).toEqual([]);
    expect(headers.map((header) => header.text)).toEqual(
      expect.arrayContaining(['Success', 'Failure', 'Confusing', 'Gave up', 'Request']),
    );
    await page.screenshot({ path: join(artifacts, 'layout-reports-1280.png') });
  });

  it('ranks tools by success over uses, so feature requests alone rank no tool worst', async () => {
    await reportsPage();
    await showInsights();
    const rows = await page
      .locator('.tools-table tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('th')!.textContent,
          tr.querySelector('td:last-child')!.textContent,
        ]),
      );
    // get_alerts: 2 failures and 2 requests, 0 of 2 uses worked; flaky: 1 of 2; wishlist: two
    // requests and no use of the tool at all, so no rate, and last rather than worst.
    expect(rows.slice(0, 2)).toEqual([
      ['get_alerts', '0%'],
      ['flaky', '50%'],
    ]);
    expect(rows.at(-1)).toEqual(['wishlist', '–']);
    await expect(page.locator('.tools-table caption').textContent()).resolves.toMatch(
      /success.*failure.*confusing.*gave up/i,
    );
  });

  it('keyboard focus never lands on an invisible control in the filter bar', async () => {
    await reportsPage('?source=cursor');
    await page.getByLabel('Tool', { exact: true }).focus();
    const seen: { name: string; width: number; height: number; visible: boolean }[] = [];
    for (let step = 0; step < 20; step++) {
      const focused = (await page.evaluate(`(() => {
        const element = document.activeElement;
        if (!element?.closest('.filters')) return null;
        const box = element.getBoundingClientRect();
        return {
          name: element.getAttribute('aria-label') || element.textContent.trim() || element.id,
          width: box.width,
          height: box.height,
          visible: element.checkVisibility({ opacityProperty: true, visibilityProperty: true }),
        };
      })()`)) as { name: string; width: number; height: number; visible: boolean } | null;
      if (!focused) break;
      seen.push(focused);
      await page.keyboard.press('Tab');
    }
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.filter((f) => !f.visible || f.width < 16 || f.height < 16)).toEqual([]);
  });

  it('says once, in plain words, when From is after To', async () => {
    await page.goto(`${server.url}/projects/${projectId}/reports?from=2026-05-10&to=2026-05-01`);
    await page.getByRole('alert').first().waitFor();
    // Let every panel answer before counting the messages.
    await page.waitForLoadState('networkidle');
    const alerts = await page.getByRole('alert').allTextContents();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).not.toMatch(/from from/i);
    expect(alerts[0]).toMatch(/after/);
  });

  it('"Copied" does not move the key field or the buttons', async () => {
    await page.goto(`${server.url}/projects/${projectId}/keys`);
    const field = page.getByTestId('ingest-key');
    const copy = page.getByRole('button', { name: 'Copy key' });
    await field.waitFor();
    const before = [await field.boundingBox(), await copy.boundingBox()];
    await copy.click();
    const copied = page.getByRole('button', { name: 'Copied' });
    await copied.waitFor();
    expect([await field.boundingBox(), await copied.boundingBox()]).toEqual(before);
  });

  it('Esc cancels a rename', async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Rename Weather API' }).click();
    const input = page.getByLabel('New name for “Weather API”');
    await input.fill('Something else');
    await input.press('Escape');
    await input.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Weather API' }).waitFor();
    // Focus goes back to where the user started.
    await expect(page.evaluate("document.activeElement?.getAttribute('aria-label')")).resolves.toBe(
      'Rename Weather API',
    );
  });

  it("a missing project's page is titled as not found", async () => {
    await page.goto(`${server.url}/projects/${'0'.repeat(32)}`);
    await page.getByRole('heading', { name: 'Project not found' }).waitFor();
    await expect(page.title()).resolves.toBe('Project not found · Debrief');
  });
});
