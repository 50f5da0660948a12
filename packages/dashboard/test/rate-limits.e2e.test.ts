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
  launchChromium,
  STEP_MS,
} from './browser.js';

/**
 * The Keys page's Rate limits section in Chromium: the owner sees what was throttled and from
 * where, and sets the project's own limits, which the next submissions meet.
 */
describeBrowser('rate limits in the dashboard', { timeout: 60_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let tenant: Tenant;
  /** Reports stored by the first scenario (a burst of 2, and a token refilled on a slow run). */
  let stored = 0;

  const submitFrom = (address: string) =>
    fetch(`${server.url}/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ ingest_key: tenant.ingestKey, outcome: 'success', details: 'e2e' }),
    });

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite', {
      TRUST_PROXY: 'true',
      INGEST_RATE_PER_ADDRESS: '1',
      INGEST_BURST_PER_ADDRESS: '2',
    });
    tenant = await server.tenant();
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

  it('shows the throttled count and the address behind it', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await submitFrom('203.0.113.99')).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    stored = statuses.filter((s) => s === 201).length;

    await page.goto(`${server.url}/projects/${tenant.projectId}/keys`);
    await page.getByRole('heading', { name: 'Rate limits' }).waitFor();
    await expect(page.getByTestId('throttled-total').textContent()).resolves.toMatch(
      /\d+ refused: \d+ address rate/,
    );
    await page.getByRole('rowheader', { name: '203.0.113.99' }).waitFor();
    await page.screenshot({ path: join(artifacts, 'rate-limits.png'), fullPage: true });
  });

  it('saves a monthly cap that the next submissions meet', async () => {
    const cap = page.getByLabel('Monthly cap for this project');
    await expect(cap.getAttribute('placeholder')).resolves.toBe('no cap');
    await expect(page.getByLabel('Per address: burst').getAttribute('placeholder')).resolves.toBe(
      'default 2',
    );
    await cap.fill('3');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await expect(page.getByTestId('limits-summary').textContent()).resolves.toContain(
      'of its cap of 3',
    );

    // The reports stored above count against the cap; the rest of it gets in, then no more.
    for (let i = stored; i < 3; i++) {
      expect((await submitFrom(`198.51.100.${i}`)).status).toBe(201);
    }
    const refused = await submitFrom('198.51.100.2');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('quota_exceeded');

    await page.reload();
    await expect(page.getByLabel('Monthly cap for this project').inputValue()).resolves.toBe('3');
  });
});
