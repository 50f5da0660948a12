import { join } from 'node:path';
import type { ApiKeyScope, MuteList } from '@debrief/protocol';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../test/harness/test-server.js';
import { createApiKey } from '../../server/src/keys/key.service.js';
import { createSession } from '../../server/src/sessions/session.service.js';
import {
  artifacts,
  describeBrowser,
  ensureDashboardBuilt,
  expectAccessible,
  launchChromium,
  STEP_MS,
  sendReports,
} from './browser.js';

/**
 * Muting an issue from its page: for one destination until it happens N more times, for every
 * destination for 24 hours; the mutes in force listed with Unmute, and unmuting both. Checked
 * against the mutes API, which is what the deliverer reads.
 */
describeBrowser('muting an issue from its page', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let tenant: Tenant;
  let issueId = '';
  let destinationId = '';

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite', { ALLOW_PRIVATE_DESTINATIONS: 'true' });
    tenant = await server.tenant();
    const admin = (
      await createApiKey(server.ctx.db, tenant.accountId, 'admin', [
        'read',
        'admin',
      ] as unknown as ApiKeyScope[])
    ).key;
    const created = await fetch(`${server.url}/v1/dashboard/${tenant.projectId}/destinations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'webhook',
        name: 'Pager',
        url: 'http://127.0.0.1:9/hook',
        events: ['issue.created', 'issue.regressed'],
      }),
    });
    expect(created.status).toBe(201);
    destinationId = ((await created.json()) as { id: string }).id;

    const { id } = await createSession(server.ctx.db, tenant.accountId);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    await context.addCookies([{ name: 'debrief_session', value: id, url: server.url }]);
    page = await context.newPage();
    await page.goto(`${server.url}/projects/${tenant.projectId}`);
    await sendReports(page, server.url, tenant.projectId, [
      {
        outcome: 'failure',
        tool_name: 'export_csv',
        details: 'export_csv drops every row after the first 1,000',
      },
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const card = () => page.locator('section.issue-mutes');
  const mutes = async () =>
    (
      (await page.evaluate(
        `fetch('/v1/dashboard/${tenant.projectId}/issues/${issueId}/mutes').then((r) => r.json())`,
      )) as MuteList
    ).data;

  it('mutes for one destination until N more reports, and for all for 24 hours', async () => {
    const firstIssue = async () =>
      (
        (await page.evaluate(
          `fetch('/v1/dashboard/${tenant.projectId}/issues').then((r) => r.json())`,
        )) as { issues: { id: string }[] }
      ).issues[0]?.id ?? '';
    await expect.poll(firstIssue, { timeout: STEP_MS }).toMatch(/^[0-9a-f]{32}$/);
    issueId = await firstIssue();
    await page.goto(`${server.url}/projects/${tenant.projectId}/issues/${issueId}`);
    await card().getByRole('heading', { name: 'Notifications' }).waitFor();
    await expect(card().getByTestId('mute-state').textContent()).resolves.toMatch(/^Not muted/);

    await card().getByRole('button', { name: 'Mute notifications…' }).click();
    await card().getByLabel('Destination').selectOption({ label: 'Pager (webhook)' });
    await card().getByLabel('Until it happens N more times').check();
    await card().getByLabel('N (more reports)').fill('3');
    await expectAccessible(page, 'an issue page with the mute form open');
    await card().getByRole('button', { name: 'Mute', exact: true }).click();
    await card().getByTestId('mute').first().waitFor();
    await expect(card().getByTestId('mute').first().textContent()).resolves.toMatch(
      /^Pager \(webhook\) until it reaches 4 reports \(3 more\)/,
    );
    await expect(card().getByTestId('mute-state').textContent()).resolves.toMatch(/^Muted/);
    expect(await mutes()).toMatchObject([
      { destination_id: destinationId, until: null, until_count: 4, active: true },
    ]);

    await card().getByRole('button', { name: 'Mute notifications…' }).click();
    await card().getByLabel('For 24 hours').check();
    await card().getByRole('button', { name: 'Mute', exact: true }).click();
    await expect.poll(async () => card().getByTestId('mute').count()).toBe(2);
    await expect(card().getByTestId('mute').nth(1).textContent()).resolves.toMatch(
      // A relative time: a day less a moment reads "tomorrow" or "in 24 hours", by rounding.
      /^All destinations until (in 2[34] hours|tomorrow)/,
    );
    const both = await mutes();
    expect(both).toHaveLength(2);
    expect(both[1]).toMatchObject({ destination_id: null, until_count: null, active: true });
    expect(both[1]?.until).toMatch(/Z$/);
    await expectAccessible(page, 'an issue page with two mutes');
    await page.screenshot({ path: join(artifacts, 'issue-mutes.png'), fullPage: true });

    // The issues list marks it.
    await page.getByRole('link', { name: '← Issues' }).click();
    const row = page.locator(`li[data-issue-id="${issueId}"]`);
    await row.locator('.pill-muted', { hasText: 'Muted' }).waitFor();
    await row.getByRole('link', { name: /export_csv drops/ }).click();
    await card().getByTestId('mute').first().waitFor();
  });

  it('unmutes each from its list; the issues list marks it no more', async () => {
    await card().getByRole('button', { name: 'Unmute All destinations' }).click();
    await expect.poll(async () => card().getByTestId('mute').count()).toBe(1);
    expect(await mutes()).toMatchObject([{ destination_id: destinationId }]);

    await card().getByRole('button', { name: 'Unmute Pager (webhook)' }).click();
    await card()
      .getByTestId('mute-state')
      .filter({ hasText: /^Not muted/ })
      .waitFor();
    expect(await mutes()).toEqual([]);
    await page.getByRole('link', { name: '← Issues' }).click();
    const row = page.locator(`li[data-issue-id="${issueId}"]`);
    await row.waitFor();
    await expect(row.locator('.pill-muted').count()).resolves.toBe(0);
  });
});
