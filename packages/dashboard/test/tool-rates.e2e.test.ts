import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../test/harness/test-server.js';
import { createSession } from '../../server/src/sessions/session.service.js';
import {
  artifacts,
  describeBrowser,
  ensureDashboardBuilt,
  expectAccessible,
  launchChromium,
  STEP_MS,
} from './browser.js';

/** The UTC minute `minutesAgo` before now, as a host names its window. */
function minute(minutesAgo: number): string {
  return new Date(Math.floor(Date.now() / 60_000) * 60_000 - minutesAgo * 60_000).toISOString();
}

/**
 * Call counts in Chromium: after a host counted 1,000 calls of a tool with 10 errors, the tools
 * table and the issue page show 1,000 calls and a 1 % error rate, and the tool compares its two
 * server versions; the Keys page makes and revokes a forwarding secret for a host app.
 */
describeBrowser('tool call counts in the dashboard', { timeout: 90_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let tenant: Tenant;

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    tenant = await server.tenant();
    // Ten minutes of 100 calls: 2.2.0 failed twice a minute, 2.3.0 never.
    for (let i = 0; i < 10; i++) {
      const res = await post('/v1/usage', {
        ingest_key: tenant.ingestKey,
        window_start: minute(20 - i),
        instance: 'host-1',
        server_version: i < 5 ? '2.2.0' : '2.3.0',
        tools: { search_issues: { calls: 100, errors: i < 5 ? 2 : 0 } },
      });
      expect(res.status).toBe(200);
    }
    const report = await post('/v1/reports', {
      ingest_key: tenant.ingestKey,
      outcome: 'failure',
      tool_name: 'search_issues',
      details: 'Page 2 of the results repeats page 1: the cursor is ignored.',
      metadata: { server_version: '2.2.0' },
    });
    expect(report.status).toBe(201);
    const { id } = await createSession(server.ctx.db, tenant.accountId);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    await context.addCookies([{ name: 'debrief_session', value: id, url: server.url }]);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows 1,000 calls and a 1 % error rate in the tools table, and compares the versions', async () => {
    await page.goto(`${server.url}/projects/${tenant.projectId}/reports`);
    const row = page.getByRole('row', { name: /search_issues/ });
    await expect(row.getByTestId('tool-calls').textContent()).resolves.toMatch(
      /^1[,.\u202f ]?000$/,
    );
    await expect(row.getByTestId('tool-error-rate').textContent()).resolves.toBe('1%');
    await expect(row.getByTestId('tool-reports-per-1000').textContent()).resolves.toBe('1');

    await row.getByRole('button', { name: 'search_issues' }).click();
    const versions = page.getByTestId('version-compare');
    await versions.waitFor();
    await expect(versions.getByRole('row', { name: /2\.2\.0/ }).textContent()).resolves.toMatch(
      /500.*2%.*1/,
    );
    await expect(versions.getByRole('row', { name: /2\.3\.0/ }).textContent()).resolves.toMatch(
      /500.*0%/,
    );
    await page.screenshot({ path: join(artifacts, 'tool-rates.png'), fullPage: true });
    await expectAccessible(page, 'the reports page with call counts');
    // On a phone the table scrolls inside its card; the page itself does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Chart and tools' }).click();
    await versions.waitFor();
    await expect(
      page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    ).resolves.toBe(true);
    await page.screenshot({ path: join(artifacts, 'tool-rates-phone.png'), fullPage: true });
    await expectAccessible(page, 'the reports page with call counts on a phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows the tool's calls on its issue page", async () => {
    const issues = async () =>
      (await (
        await fetch(`${server.url}/v1/dashboard/${tenant.projectId}/issues`, {
          headers: { authorization: `Bearer ${tenant.apiKey}` },
        })
      ).json()) as { issues: { id: string }[] };
    await expect.poll(async () => (await issues()).issues.length, { timeout: STEP_MS }).toBe(1);
    const issueId = (await issues()).issues[0]!.id;
    await page.goto(`${server.url}/projects/${tenant.projectId}/issues/${issueId}`);
    const line = page.getByTestId('issue-tool-calls');
    await expect(line.textContent()).resolves.toMatch(
      /search_issues: 1[,.\u202f ]?000 calls, 1% errors, 1 reports per 1,000 calls/,
    );
  });

  it('shows call counts that arrive before any report', async () => {
    const quiet = await server.tenant();
    const res = await post('/v1/usage', {
      ingest_key: quiet.ingestKey,
      window_start: minute(3),
      tools: { list_repos: { calls: 40, errors: 2 } },
    });
    expect(res.status).toBe(200);
    const { id } = await createSession(server.ctx.db, quiet.accountId);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    await context.addCookies([{ name: 'debrief_session', value: id, url: server.url }]);
    const other = await context.newPage();
    await other.goto(`${server.url}/projects/${quiet.projectId}/reports`);
    const row = other.getByRole('row', { name: /list_repos/ });
    await expect(row.getByTestId('tool-calls').textContent()).resolves.toBe('40');
    await expect(row.getByTestId('tool-error-rate').textContent()).resolves.toBe('5%');
    await expect(row.getByTestId('tool-reports-per-1000').textContent()).resolves.toBe('0');
    await context.close();
  });

  it('creates a forwarding secret shown once, and revokes it', async () => {
    await page.goto(`${server.url}/projects/${tenant.projectId}/keys`);
    await page.getByRole('heading', { name: /Forwarding secrets/ }).waitFor();
    await page.getByLabel('Secret name').fill('docs site');
    await page.getByRole('button', { name: 'Create forwarding secret' }).click();
    const secret = await page.getByTestId('new-forwarding-secret').inputValue();
    expect(secret).toMatch(/^wf_[0-9a-f]{48}$/);
    await expectAccessible(page, 'the keys page with a new forwarding secret');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('rowheader', { name: 'docs site' }).waitFor();
    await page.getByRole('button', { name: 'Revoke forwarding secret docs site' }).click();
    await page.getByRole('button', { name: 'Revoke secret' }).click();
    await page.getByText('No forwarding secrets.').waitFor();
    const res = await fetch(`${server.url}/v1/reports`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'debrief-forwarding-secret': secret,
        'debrief-forwarded-for': '198.51.100.1',
      },
      body: JSON.stringify({ ingest_key: tenant.ingestKey, outcome: 'success', details: 'x' }),
    });
    expect(res.status).toBe(401);
  });
});
