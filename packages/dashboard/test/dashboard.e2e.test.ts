import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import {
  artifacts,
  describeBrowser,
  ensureDashboardBuilt,
  launchChromium,
  STEP_MS,
} from './browser.js';

/**
 * The dashboard end to end: a real server (SQLite) serving the built SPA, driven through
 * Debian's Chromium. The scenarios run in order as one user's first morning with Debrief.
 */

/** A small quota, so the near-limit and over-limit notices can be reached. */
const QUOTA = 30;

describeBrowser('dashboard in a browser', { timeout: 60_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';
  let ingestKey = '';
  const dialogs: string[] = [];
  const cspViolations: string[] = [];
  const email = `e2e-${Date.now()}@example.test`;
  const password = 'correct horse battery staple';

  const submit = async (body: Record<string, unknown>, key = ingestKey) => {
    const res = await fetch(`${server.url}/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ingest_key: key, ...body }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { id?: string; code?: string; redactions?: number },
    };
  };
  const listProjects = (apiKey: string) =>
    fetch(`${server.url}/v1/projects`, { headers: { authorization: `Bearer ${apiKey}` } });
  const report = (id: string) => page.locator(`[data-report-id="${id}"]`);

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite', { FREE_TIER_MONTHLY_REPORTS: String(QUOTA) });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('signs up and creates a project', async () => {
    await page.goto(`${server.url}/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Create your first project' }).waitFor();

    await page.getByLabel('Project name').fill('Weather API');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'No reports yet' }).waitFor();
    projectId = /\/projects\/([0-9a-f]{32})$/.exec(page.url())?.[1] ?? '';
    expect(projectId).toMatch(/^[0-9a-f]{32}$/);
    await expect(page.getByRole('heading', { name: 'Weather API' }).isVisible()).resolves.toBe(
      true,
    );
  });

  it('copies the ingest key', async () => {
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    const shown = await page.getByTestId('ingest-key').inputValue();
    expect(shown).toMatch(/^wk_[0-9a-f]{32}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    ingestKey = String(await page.evaluate('navigator.clipboard.readText()'));
    expect(ingestKey).toBe(shown);
  });

  it('shows a report submitted over HTTP without a reload', async () => {
    await page.getByRole('link', { name: 'Reports', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    // A marker on window survives only if the page is never reloaded.
    await page.evaluate('window.__noReload = true');

    const sent = await submit({
      outcome: 'success',
      tool_name: 'get_forecast',
      source: 'e2e-agent',
      details: 'Forecast for Zürich came back fine.\nSecond line kept.',
      metadata: { model: 'test-model', attempt: 1 },
    });
    expect(sent.status).toBe(201);
    const item = report(sent.body.id!);
    await item.waitFor();
    await expect(item.locator('.report-details').textContent()).resolves.toBe(
      'Forecast for Zürich came back fine.\nSecond line kept.',
    );
    await expect(item.textContent()).resolves.toContain('get_forecast');
    await expect(page.evaluate('window.__noReload')).resolves.toBe(true);
    await page.locator('[data-outcome="success"] .tile-count').filter({ hasText: '1' }).waitFor();
  });

  it('reconnects by itself after the stream drops, and shows what arrived meanwhile', async () => {
    const live = page.getByRole('status').filter({ hasText: 'Live' });
    await live.waitFor();
    // Cut every open connection, the event stream's included; the page must recover alone.
    server.app.server.closeAllConnections();
    await page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor();
    const sent = await submit({ outcome: 'request', details: 'Sent while the stream was down' });
    expect(sent.status).toBe(201);
    await live.waitFor();
    await report(sent.body.id!).waitFor();
    await expect(page.evaluate('window.__noReload')).resolves.toBe(true);
  });

  it('filters to failures with the failure tile, and keeps the filter in the URL', async () => {
    const failure = await submit({
      outcome: 'failure',
      tool_name: 'get_alerts',
      details: 'HTTP 500',
    });
    const confusing = await submit({ outcome: 'confusing', details: 'Which unit is "t"?' });
    await report(failure.body.id!).waitFor();
    await report(confusing.body.id!).waitFor();

    await page.locator('[data-outcome="failure"]').click();
    await page.waitForURL(/outcome=failure/);
    // The previous list stays on screen until the filtered one arrives.
    await expect.poll(() => page.locator('.report-list > li').count()).toBe(1);
    await expect(page.locator('.report-list > li.report-failure').count()).resolves.toBe(1);
    await expect(
      page.locator('[data-outcome="failure"]').getAttribute('aria-pressed'),
    ).resolves.toBe('true');
    // Facet counts: the other tiles keep their numbers while one is selected.
    await expect(page.locator('[data-outcome="total"] .tile-count').textContent()).resolves.toBe(
      '4',
    );

    await page.reload();
    await report(failure.body.id!).waitFor();
    await expect.poll(() => page.locator('.report-list > li').count()).toBe(1);
    await page.locator('[data-outcome="total"]').click();
    await page.waitForURL((url) => !url.search.includes('outcome='));
    await report(confusing.body.id!).waitFor();
  });

  it('shows HTML in details as text and runs nothing', async () => {
    const payload = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const sent = await submit({ outcome: 'confusing', details: payload, tool_name: '<b>x</b>' });
    const item = report(sent.body.id!);
    await item.waitFor();
    await expect(item.locator('.report-details').textContent()).resolves.toBe(payload);
    await expect(page.locator('.report-list img').count()).resolves.toBe(0);
    await expect(page.locator('.report-list script').count()).resolves.toBe(0);
    await page.reload();
    await item.waitFor();
    await expect(page.locator('.report-list img').count()).resolves.toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('saves screenshots of the reports view and the integrate page', async () => {
    const tools = ['get_forecast', 'search_city', 'get_alerts'];
    const outcomes = ['success', 'success', 'failure', 'confusing', 'gave_up', 'request'];
    for (let i = 0; i < 12; i++) {
      const sent = await submit({
        outcome: outcomes[i % outcomes.length],
        tool_name: tools[i % tools.length],
        source: i % 2 ? 'claude-code' : 'cursor',
        details: `Report ${i}: ${i === 2 ? 'the API returned 500.\n'.repeat(14) : 'worked as documented.'}`,
        metadata: { model: 'claude-sonnet', session: `s-${i}` },
      });
      expect(sent.status).toBe(201);
    }
    await page.reload();
    await page.locator('.report-list > li').nth(11).waitFor();
    await page.locator('.chart svg').waitFor();
    await page.screenshot({ path: join(artifacts, 'dashboard-reports.png'), fullPage: true });

    await page.getByRole('link', { name: 'Integrate' }).click();
    await page.getByRole('heading', { name: 'MCP server' }).waitFor();
    await expect(page.getByLabel('SKILL.md feedback block').textContent()).resolves.toContain(
      ingestKey,
    );
    await page.screenshot({ path: join(artifacts, 'dashboard-integrate.png'), fullPage: true });
  });

  it('filters by tool, source and date, all carried by the URL', async () => {
    await page.goto(`${server.url}/projects/${projectId}/reports`);
    await page.locator('.report-list > li').first().waitFor();
    const tools = page.locator('.report-list .report-tool');

    await page.getByLabel('Tool', { exact: true }).selectOption('get_alerts');
    await page.waitForURL(/tool_name=get_alerts/);
    await expect
      .poll(async () => new Set(await tools.allTextContents()))
      .toEqual(new Set(['get_alerts']));
    await page.getByLabel('Source', { exact: true }).selectOption('cursor');
    await page.waitForURL(/source=cursor/);
    await expect
      .poll(async () => new Set(await page.locator('.report-source').allTextContents()))
      .toEqual(new Set(['via cursor']));

    await page.reload();
    await expect(page.getByLabel('Tool', { exact: true }).inputValue()).resolves.toBe('get_alerts');
    await expect(page.getByLabel('Source', { exact: true }).inputValue()).resolves.toBe('cursor');
    await page.getByRole('button', { name: '7 days' }).click();
    await page.waitForURL(/from=\d{4}-\d{2}-\d{2}/);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.search === '');

    // Long details are folded; "Show more" unfolds them.
    const more = page.getByRole('button', { name: 'Show more' }).first();
    await more.click();
    await expect(
      page.getByRole('button', { name: 'Show less' }).first().getAttribute('aria-expanded'),
    ).resolves.toBe('true');
  });

  it('renames a project', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Projects' })
      .click();
    await page.getByRole('button', { name: 'Rename Weather API' }).click();
    await page.getByLabel('New name for “Weather API”').fill('Weather API v2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'Weather API v2' }).waitFor();
  });

  it('creates an API key that reads, then revokes it and it gets 401', async () => {
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('Key name').fill('e2e reader');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = await page.getByTestId('new-api-key').inputValue();
    expect(key).toMatch(/^wk_sk_/);
    expect((await listProjects(key)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke e2e reader' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('button', { name: 'Revoke e2e reader' }).waitFor({ state: 'detached' });
    expect((await listProjects(key)).status).toBe(401);
  });

  it('copies a new API key once, and keeps it when its revocation is cancelled', async () => {
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('Key name').fill('e2e keeper');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('new-api-key');
    const key = await shown.inputValue();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    // Done hides the key for good: the list shows only its prefix.
    await page.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    await expect(page.getByLabel('Key name').inputValue()).resolves.toBe('');

    await page.getByRole('button', { name: 'Revoke e2e keeper' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Revoke “e2e keeper”?' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('rowheader', { name: 'e2e keeper' }).waitFor();
    expect((await listProjects(key)).status).toBe(200);
  });

  it('creates an API key with the triage scope when asked', async () => {
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('Key name').fill('e2e triager');
    await page.getByLabel('Can also triage issues').check();
    // The field may still show the key of the test before (revoked) until the new one comes.
    const shown = page.getByTestId('new-api-key');
    const before = (await shown.count()) > 0 ? await shown.inputValue() : null;
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByRole('rowheader', { name: /e2e triager · triage/ }).waitFor();
    await expect.poll(() => shown.inputValue(), { timeout: 5000 }).not.toBe(before);
    const key = await shown.inputValue();
    expect(key).toMatch(/^wk_sk_/);
    // A read-only key is refused a triage write with 403 missing_scope; this one gets past
    // the scope check to the (unknown) issue's 404.
    const res = await fetch(`${server.url}/v1/dashboard/${projectId}/issues/${'0'.repeat(32)}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'resolved' }),
    });
    expect(res.status).toBe(404);
  });

  it('creates an API key with the admin scope when asked, which manages destinations', async () => {
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('Key name').fill('e2e admin');
    await page.getByLabel('Can also manage project settings').check();
    const shown = page.getByTestId('new-api-key');
    const before = (await shown.count()) > 0 ? await shown.inputValue() : null;
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByRole('rowheader', { name: /e2e admin · admin/ }).waitFor();
    await expect.poll(() => shown.inputValue(), { timeout: 5000 }).not.toBe(before);
    const key = await shown.inputValue();
    const res = await fetch(`${server.url}/v1/dashboard/${projectId}/destinations`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
  });

  it('rotates the ingest key after a confirmation, and the old key gets 401', async () => {
    await page.goto(`${server.url}/projects/${projectId}/keys`);
    const old = await page.getByTestId('ingest-key').inputValue();
    expect(old).toBe(ingestKey);
    await page.getByRole('button', { name: 'Rotate…' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain('stops working at once');
    await dialog.getByRole('button', { name: 'Rotate key now' }).click();
    await page.getByText('Key rotated.').waitFor();
    const fresh = await page.getByTestId('ingest-key').inputValue();
    expect(fresh).not.toBe(old);

    const refused = await submit({ outcome: 'success', details: 'old key' }, old);
    expect(refused.status).toBe(401);
    const accepted = await submit({ outcome: 'success', details: 'new key' }, fresh);
    expect(accepted.status).toBe(201);
    ingestKey = fresh;
  });

  it('turns on redaction of emails and phone numbers from the keys page', async () => {
    await page.goto(`${server.url}/projects/${projectId}/keys`);
    const box = page.getByTestId('redact-personal-data');
    expect(await box.isChecked()).toBe(false);
    await box.check();
    // Saved when the box is enabled again.
    await expect.poll(() => box.isEnabled()).toBe(true);
    const res = await submit({ outcome: 'failure', details: 'Wrote to ann@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.redactions).toBe(1);
    await page.reload();
    expect(await page.getByTestId('redact-personal-data').isChecked()).toBe(true);
  });

  it('on an older page, offers the reports that arrived since', async () => {
    // 18 reports were stored above: 21 make two pages of 20.
    for (let i = 0; i < 3; i++) {
      expect((await submit({ outcome: 'success', details: `page ${i}` })).status).toBe(201);
    }
    await page.goto(`${server.url}/projects/${projectId}/reports?page=2`);
    await page.getByText('Page 2 of 2').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const sent = await submit({ outcome: 'failure', details: 'While reading page 2' });
    await page.getByRole('button', { name: '1 new report · see newest' }).click();
    await page.waitForURL((url) => !url.search.includes('page='));
    await report(sent.body.id!).waitFor();
  });

  it('warns near the monthly quota and over it', async () => {
    // 23 reports were stored above; 24 of 30 is 80 %.
    for (let i = 0; i < 1; i++) {
      expect((await submit({ outcome: 'success', details: `near ${i}` })).status).toBe(201);
    }
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Projects' }).click();
    await page.getByText('Nearing the monthly limit.').waitFor();
    await page.getByText(`24 / ${QUOTA} reports this month`).waitFor();

    for (let i = 0; i < 6; i++) {
      expect((await submit({ outcome: 'success', details: `fill ${i}` })).status).toBe(201);
    }
    expect((await submit({ outcome: 'success', details: 'one too many' })).status).toBe(429);
    await nav.getByRole('link', { name: 'API keys' }).click();
    await page.getByText('Monthly limit reached.').waitFor();
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const status = await page.evaluate(
      "fetch('/v1/auth/session').then((response) => response.status)",
    );
    expect(status).toBe(401);
    await page.goto(`${server.url}/projects/${projectId}`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('signs back in with the keyboard alone, after a wrong password', async () => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByLabel('Password').press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toMatch(/\S/);

    await page.getByLabel('Email').focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    // Back where the user was headed: the project's reports.
    await page.getByRole('heading', { name: 'Weather API v2' }).waitFor();
  });

  it('hides sign-up when the instance closed it', async () => {
    const closed = await startTestServer('sqlite', { SIGNUPS: 'closed' });
    const other = await browser.newContext();
    try {
      const visitor = await other.newPage();
      await visitor.goto(`${closed.url}/signup`);
      await visitor.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: STEP_MS });
      await visitor.getByText('Sign-ups are by invitation only').waitFor({ timeout: STEP_MS });
      await expect(visitor.getByRole('link', { name: 'Create an account' }).count()).resolves.toBe(
        0,
      );
    } finally {
      await other.close();
      await closed.close();
    }
  });

  it('loaded under the content security policy without violations', () => {
    expect(cspViolations).toEqual([]);
  });
});
