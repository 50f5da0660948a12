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
  signUp,
  submitReports,
} from './browser.js';

/**
 * axe-core (WCAG 2.1 AA + best practices) on every page of the dashboard, signed out and in,
 * empty and with data, wide and narrow, light and dark. Any violation fails with its rule,
 * impact and elements.
 */
describeBrowser('dashboard accessibility (axe-core)', { timeout: 60_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';
  let emptyProjectId = '';
  const cspViolations: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    browser = await launchChromium();
    // Reduced motion: colours are checked at rest, not halfway through a theme transition.
    context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      reducedMotion: 'reduce',
    });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('sign-in and sign-up pages', async () => {
    await page.goto(`${server.url}/signin`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(page, 'the sign-in page');
    await page.goto(`${server.url}/signup`);
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    await expectAccessible(page, 'the sign-up page');
  });

  it('the projects page, empty', async () => {
    await signUp(page, server.url);
    await expectAccessible(page, 'the empty projects page');
  });

  it('a project with no reports yet', async () => {
    emptyProjectId = await createProject(page, 'Empty project');
    await page.getByRole('heading', { name: 'No reports yet' }).waitFor();
    await page.getByLabel('curl command').waitFor();
    await expectAccessible(page, 'the reports page of a project without reports');
  });

  it('the reports page with data (light and dark, wide and narrow)', async () => {
    await page.goto(`${server.url}/`);
    projectId = await createProject(page, 'Weather API');
    await submitReports(page, server.url, projectId, 14);
    await page.goto(`${server.url}/projects/${projectId}/reports`);
    await page.locator('.report-list > li').nth(13).waitFor();
    await page.locator('.chart svg').waitFor();
    await page.locator('.tools-table').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await expectAccessible(page, 'the reports page (1280 px, light)');

    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'the reports page (1280 px, dark)');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, 'the reports page (390 px)');
    await page.getByRole('button', { name: 'Chart and tools' }).click();
    await page.locator('.tools-table').waitFor();
    await expectAccessible(page, 'the reports page (390 px, chart and tools shown)');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the Issues view and an issue page with data (light and dark, wide and narrow)', async () => {
    await page.goto(`${server.url}/projects/${projectId}`);
    await page.locator('.issue-list > .issue-row').first().waitFor();
    await page.locator('.issue-row .sparkline').first().waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    // The keyboard cursor and a checked row are part of what must read well.
    await page.keyboard.press('j');
    await page.locator('.issue-row').first().getByRole('checkbox').check();
    await expectAccessible(page, 'the Issues view (1280 px, light)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'the Issues view (1280 px, dark)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, 'the Issues view (390 px)');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Resolved' }).click();
    await page.getByText('No resolved issues.').waitFor();
    await expectAccessible(page, 'the Issues view, an empty status tab');

    await page.goto(`${server.url}/projects/${projectId}`);
    await page.locator('.issue-row .issue-title').first().click();
    await page.locator('.issue-chart svg').waitFor();
    await page.locator('.report-list > li').first().waitFor();
    await expectAccessible(page, 'an issue page (light)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'an issue page (dark)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Merge into…' }).click();
    await page.getByRole('dialog').getByRole('radio').first().waitFor();
    await expectAccessible(page, 'an issue page, the merge dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByRole('button', { name: /^Move report/ })
      .first()
      .click();
    await page.getByRole('dialog').getByRole('radio', { name: 'A new issue' }).waitFor();
    await expectAccessible(page, 'an issue page, the move dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, 'an issue page (390 px)');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the reports page when no report matches, and with an impossible range', async () => {
    await page.goto(`${server.url}/projects/${projectId}/reports?tool_name=no_such_tool`);
    await page.getByText('No reports match these filters.').waitFor();
    await expectAccessible(page, 'the reports page with no match');
    await page.goto(`${server.url}/projects/${projectId}/reports?from=2026-05-10&to=2026-05-01`);
    await page.getByRole('alert').waitFor();
    await expectAccessible(page, 'the reports page with from after to');
  });

  it('the integrate page', async () => {
    await page.goto(`${server.url}/projects/${projectId}/integrate`);
    await page.getByRole('heading', { name: 'MCP server' }).waitFor();
    await expectAccessible(page, 'the integrate page');
  });

  it('the project keys page and the API keys page, with a key', async () => {
    await page.goto(`${server.url}/api-keys`);
    await page.getByLabel('Key name').fill('axe reader');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByTestId('new-api-key').waitFor();
    await expectAccessible(page, 'the API keys page, a key just created');
    await page.goto(`${server.url}/projects/${projectId}/keys`);
    await page.getByTestId('ingest-key').waitFor();
    await page.getByRole('button', { name: 'Revoke axe reader' }).waitFor();
    await expectAccessible(page, 'the project keys page');
  });

  it('the projects page with projects, and a project being renamed', async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Weather API' }).waitFor();
    await page.getByRole('link', { name: 'Empty project' }).waitFor();
    await expectAccessible(page, 'the projects page with projects');
    await page.getByRole('button', { name: 'Rename Empty project' }).click();
    await page.getByLabel('New name for “Empty project”').waitFor();
    await expectAccessible(page, 'the projects page, renaming');
    expect(emptyProjectId).not.toBe(projectId);
  });

  it('a missing project', async () => {
    await page.goto(`${server.url}/projects/${'0'.repeat(32)}`);
    await page.getByRole('heading', { name: 'Project not found' }).waitFor();
    await expectAccessible(page, 'a missing project');
  });

  it('loaded under the content security policy without violations', () => {
    expect(cspViolations).toEqual([]);
  });
});
