import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../test/harness/test-server.js';
import { sessionFor } from '../../server/test/support/session-client.js';
import { describeBrowser, ensureDashboardBuilt, launchChromium, STEP_MS } from './browser.js';

/**
 * The reports page's panels (chart, tools table, tool and source filters, usage meter, list)
 * stay true while reports stream in, through an outage, and under filters.
 * Each test is its own account and project, signed in by a session cookie made in the database.
 */

interface Panels {
  chart: number;
  tools: number;
  usage: number;
  list: number;
  toolOptions: string[];
}

describeBrowser('reports page panels in a browser', { timeout: 90_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A fresh account and project, and a page signed in to it. */
  async function signedIn(): Promise<Tenant> {
    const tenant = await server.tenant();
    const session = await sessionFor(server, tenant.accountId);
    await context?.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    const [name, value] = session.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: server.url }]);
    page = await context.newPage();
    return tenant;
  }

  const submit = async (
    tenant: Tenant,
    body: { outcome: string; tool_name?: string; source?: string; details?: string },
  ) => {
    const res = await fetch(`${server.url}/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ingest_key: tenant.ingestKey, details: 'd', ...body }),
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  const openReports = async (tenant: Tenant, query = '') => {
    await page.goto(`${server.url}/projects/${tenant.projectId}/reports${query}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  };

  const card = (title: string) => page.locator('section.card').filter({ hasText: title });
  const chartCard = () => card('Outcomes per day');
  const toolsCard = () => card('By tool');
  const listSection = () => page.locator('section.report-list-section');

  /**
   * Every panel's count of reports, read at one moment. (Text, not a function: the tests'
   * TypeScript has no DOM types.)
   */
  const readPanels = () =>
    page.evaluate<Panels>(`(() => {
      const number = (text) => {
        const match = /(\\d[\\d,]*)/.exec(text ?? '');
        return match ? Number(match[1].replaceAll(',', '')) : -1;
      };
      const chart = document.querySelector('.chart svg[role="img"]')?.getAttribute('aria-label');
      const toolRows = [...document.querySelectorAll('.tools-table tbody tr')];
      const label = [...document.querySelectorAll('label')].find((l) => l.textContent === 'Tool');
      const select = label ? document.getElementById(label.htmlFor) : null;
      return {
        chart: number(chart?.replace(/^.*days, /, '')),
        tools: toolRows.reduce((sum, row) => sum + number(row.querySelector('td')?.textContent), 0),
        usage: number(document.querySelector('.usage-text')?.textContent),
        list: number(document.querySelector('#list-title')?.textContent),
        toolOptions: select ? [...select.options].map((option) => option.value) : [],
      };
    })()`);

  it('keeps the chart, tools table, tool filter and usage meter moving while reports stream in', async () => {
    const tenant = await signedIn();
    await submit(tenant, { outcome: 'success', tool_name: 'alpha' });
    await openReports(tenant);
    await expect.poll(async () => (await readPanels()).tools).toBe(1);

    // ~3 reports a second for ~7 s, bounded in count; a new tool appears a few reports in.
    const COUNT = 24;
    let flowing = true;
    const flow = (async () => {
      const start = Date.now();
      for (let i = 0; i < COUNT; i++) {
        const due = start + i * 300;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
        await submit(tenant, {
          outcome: i % 3 ? 'success' : 'failure',
          tool_name: i >= 3 && i % 2 ? 'beta' : 'alpha',
        });
      }
      flowing = false;
    })();

    // Sample the panels while the flow lasts: each must have caught up well past its start.
    const seenWhileFlowing = { chart: 0, tools: 0, usage: 0, beta: false };
    while (flowing) {
      const panels = await readPanels();
      if (!flowing) break;
      seenWhileFlowing.chart = Math.max(seenWhileFlowing.chart, panels.chart);
      seenWhileFlowing.tools = Math.max(seenWhileFlowing.tools, panels.tools);
      seenWhileFlowing.usage = Math.max(seenWhileFlowing.usage, panels.usage);
      seenWhileFlowing.beta ||= panels.toolOptions.includes('beta');
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await flow;
    expect(seenWhileFlowing).toEqual({
      chart: expect.toSatisfy((n: number) => n >= 10),
      tools: expect.toSatisfy((n: number) => n >= 10),
      usage: expect.toSatisfy((n: number) => n >= 10),
      beta: true,
    });

    // After the last report, a trailing refresh brings every panel to the final count.
    await expect
      .poll(readPanels, { timeout: STEP_MS })
      .toMatchObject({ chart: COUNT + 1, tools: COUNT + 1, usage: COUNT + 1, list: COUNT + 1 });
  });

  it('after an outage, reloads every panel once the stream is back, with what arrived meanwhile', async () => {
    const tenant = await signedIn();
    for (const tool of ['alpha', 'alpha', 'beta'])
      await submit(tenant, { outcome: 'success', tool_name: tool });
    await openReports(tenant);
    await expect.poll(async () => (await readPanels()).tools).toBe(3);

    // The outage as the browser sees it: the API unreachable, the event stream refused (as a
    // proxy answers while the server restarts), so the stream is rebuilt without a resume.
    await page.route('**/v1/**', (route) =>
      route.request().url().endsWith('/events')
        ? route.fulfill({ status: 503, contentType: 'application/problem+json', body: '{}' })
        : route.abort('connectionrefused'),
    );
    server.app.server.closeAllConnections();
    await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor();
    await submit(tenant, { outcome: 'failure', tool_name: 'gamma' });
    await submit(tenant, { outcome: 'failure', tool_name: 'gamma' });
    await page.unrouteAll();

    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });
    await expect
      .poll(readPanels, { timeout: STEP_MS })
      .toMatchObject({ chart: 5, tools: 5, list: 5, usage: 5 });
    await toolsCard().getByRole('button', { name: 'gamma' }).waitFor();
  });

  it('never shows the old list under a filter changed while the server is down, and recovers', async () => {
    const tenant = await signedIn();
    for (const tool of ['alpha', 'alpha', 'beta'])
      await submit(tenant, { outcome: 'success', tool_name: tool });
    await openReports(tenant);
    await expect.poll(async () => (await readPanels()).list).toBe(3);
    // The tool filter's options come from a request of their own, which may still be under way
    // when the list is in (the full suite's load): offline, they would never come.
    await expect.poll(async () => (await readPanels()).toolOptions).toContain('beta');

    await context.setOffline(true);
    server.app.server.closeAllConnections();
    await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor();
    await page.getByLabel('Tool', { exact: true }).selectOption('beta');
    await page.waitForURL(/tool_name=beta/);

    // The list under "beta" is an error with a retry, never the unfiltered list.
    await listSection().getByRole('alert').waitFor();
    await expect(page.locator('.report-list .report-tool').allTextContents()).resolves.toEqual([]);
    await listSection().getByRole('button', { name: 'Retry' }).waitFor();
    await chartCard().getByRole('alert').waitFor();

    // Back online: every panel loads under the filter by itself, no click needed.
    await context.setOffline(false);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => new Set(await page.locator('.report-list .report-tool').allTextContents()))
      .toEqual(new Set(['beta']));
    await expect.poll(async () => (await readPanels()).chart).toBe(1);
    await expect.poll(async () => (await readPanels()).tools).toBe(3);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
  });

  it('gives every panel that failed to load a Retry that works', async () => {
    const tenant = await signedIn();
    await submit(tenant, { outcome: 'success', tool_name: 'alpha' });
    // The API's panels only: the page itself lives at …/reports too.
    const failing = /\/v1\/.*\/(timeseries|tools|sources|reports)(\?|$)/;
    await page.route(failing, (route) => route.abort('connectionrefused'));
    await openReports(tenant);
    for (const panel of [chartCard(), toolsCard(), listSection()]) {
      await panel.getByRole('alert').waitFor();
    }
    await page.unroute(failing);
    for (const panel of [chartCard(), toolsCard(), listSection()]) {
      await panel.getByRole('button', { name: 'Retry' }).click();
    }
    await expect.poll(readPanels).toMatchObject({ chart: 1, tools: 1, list: 1 });
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
  });

  it('offers the project’s sources with counts, and filters by one', async () => {
    const tenant = await signedIn();
    const sources = ['Cursor', 'Cursor', 'Cursor', 'claude-code', 'claude-code', undefined];
    for (const source of sources) await submit(tenant, { outcome: 'success', source });
    await openReports(tenant);

    const select = page.getByLabel('Source', { exact: true });
    await expect
      .poll(async () => (await select.locator('option').allTextContents()).map((t) => t.trim()))
      .toEqual(['Any source', 'Cursor (3)', 'claude-code (2)']);
    await select.selectOption('claude-code');
    await page.waitForURL(/source=claude-code/);
    await expect.poll(async () => (await readPanels()).list).toBe(2);
    await expect
      .poll(async () => new Set(await page.locator('.report-source').allTextContents()))
      .toEqual(new Set(['via claude-code']));

    // A source from the URL that the list does not hold stays selectable, and clears.
    await openReports(tenant, '?source=elsewhere');
    await expect(select.inputValue()).resolves.toBe('elsewhere');
    await select.selectOption('');
    await page.waitForURL((url) => !url.search.includes('source='));
  });

  it('shows the eight worst tools and a control that shows them all', async () => {
    const tenant = await signedIn();
    for (let i = 0; i < 12; i++) {
      await submit(tenant, { outcome: 'success', tool_name: `tool_${String(i).padStart(2, '0')}` });
    }
    await openReports(tenant);
    const rows = page.locator('.tools-table tbody tr');
    await expect.poll(() => rows.count()).toBe(8);
    await toolsCard().getByRole('button', { name: 'Show all 12 tools' }).click();
    await expect.poll(() => rows.count()).toBe(12);
    await toolsCard().getByRole('button', { name: 'Show fewer' }).click();
    await expect.poll(() => rows.count()).toBe(8);
  });
});
