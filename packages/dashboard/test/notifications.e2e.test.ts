import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/**
 * The Notifications page in Chromium, against the destinations API: add a signed webhook (its
 * secret shown once), send a test that a real receiver gets, pause and resume, edit, rotate the
 * secret, read the delivery log, add an email destination, delete. Skipped (with the reason)
 * on a server without the destinations API.
 */
describeBrowser('the Notifications page', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let tenant: Tenant;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];
  let hasApi = false;

  beforeAll(async () => {
    ensureDashboardBuilt();
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push(body);
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    server = await startTestServer('sqlite', {
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      NOTIFY_RETRY_SCHEDULE: '1s,1s',
    });
    hasApi = server.app.routeContracts.some(
      (route) => route.url === '/v1/dashboard/:projectId/destinations',
    );
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
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  const row = () => page.locator('.destination').first();

  it('adds a webhook whose secret is shown once, and sends a test the receiver gets', async (ctx) => {
    if (!hasApi) ctx.skip(); // The destinations API is not in this build.
    await page.goto(`${server.url}/projects/${tenant.projectId}/notifications`);
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.getByText('No destinations yet.').waitFor();
    await page.getByRole('button', { name: 'Add a destination' }).click();
    await page.getByLabel('Webhook URL').fill(receiverUrl);
    await page.getByLabel('Name', { exact: true }).fill('CI receiver');
    await page.getByLabel(/Spiking issue/).check();
    await page.getByLabel('N (reports in the hour)').fill('3');
    await page.getByRole('button', { name: 'Add destination' }).click();
    const secret = page.getByTestId('webhook-secret');
    await expect(secret.inputValue()).resolves.toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(secret.count()).resolves.toBe(0);
    await expect(row().getByTestId('destination-status').textContent()).resolves.toBe('Active');
    await expect(row().textContent()).resolves.toContain('Spiking issue');

    await row().getByRole('button', { name: 'Send a test' }).click();
    await expect(row().getByTestId('test-result').textContent()).resolves.toMatch(/succeeded/);
    expect(received.length).toBeGreaterThanOrEqual(1);
    await expectAccessible(page, 'the Notifications page');
    await page.screenshot({ path: join(artifacts, 'notifications.png'), fullPage: true });
  });

  it('pauses and resumes, edits, rotates the secret and shows the delivery log', async (ctx) => {
    if (!hasApi) ctx.skip();
    await row().getByRole('button', { name: 'Pause' }).click();
    await row()
      .getByTestId('destination-status')
      .filter({ hasText: /^Paused$/ })
      .waitFor();
    await row().getByRole('button', { name: 'Resume' }).click();
    await row()
      .getByTestId('destination-status')
      .filter({ hasText: /^Active$/ })
      .waitFor();

    await row().getByRole('button', { name: 'Edit' }).click();
    await row().getByLabel('Name', { exact: true }).fill('Renamed receiver');
    await row().getByRole('button', { name: 'Save destination' }).click();
    await page.getByText('Renamed receiver').waitFor();

    await row().getByRole('button', { name: 'Rotate secret' }).click();
    await expect(page.getByTestId('webhook-secret').inputValue()).resolves.toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();

    await row().getByRole('button', { name: 'Deliveries' }).click();
    const log = page.getByRole('table', { name: 'Delivery log' });
    await log.waitFor();
    await expect(log.textContent()).resolves.toMatch(/msg_[0-9a-f]{32}/);
  });

  it('adds an email destination and deletes the webhook', async (ctx) => {
    if (!hasApi) ctx.skip();
    await page.getByRole('button', { name: 'Add a destination' }).click();
    await page.getByLabel('Type').last().selectOption('email');
    await page.getByLabel('Send to').fill('dev@example.test, oncall@example.test');
    await page.getByLabel(/Daily digest/).check();
    await page.getByLabel('Digest hour (UTC)').fill('7');
    await page.getByRole('button', { name: 'Add destination' }).click();
    await page.getByText('dev@example.test, oncall@example.test').waitFor();

    await row()
      .getByRole('button', { name: /^Delete/ })
      .click();
    await page.getByRole('button', { name: 'Delete destination' }).click();
    await page.getByText('Renamed receiver', { exact: true }).waitFor({ state: 'detached' });
    await expect(page.locator('.destination').count()).resolves.toBe(1);
  });
});
