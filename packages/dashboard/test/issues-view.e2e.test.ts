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
  PASSWORD,
  STEP_MS,
  sendReports,
} from './browser.js';

/**
 * The Issues view as a new user meets it, on a fresh instance: the first sign-up, a project
 * with 28 problems, successes and requests, the short list of problems by default, a search
 * that finds what is on page 2, rename and history on the issue page, the merge dialog, paging
 * an issue's reports, the header's monthly count, and the Reports page's keyboard.
 *
 * Each problem is its own tool, so grouping keeps them apart under any engine.
 */

const METADATA = { model: 'claude-sonnet', client_name: 'claude-code', client_version: '2.1.0' };
/** A title with a long unbroken name: what made the merge dialog scroll sideways. */
const LONG_DETAILS =
  'The tool search_documents_in_the_knowledge_base_with_filters_and_pagination_enabled returned an empty page without saying why.';
const GERMAN_DETAILS =
  'Die Antwort des Werkzeugs enthält (z. B. bei Umlauten) falsch kodierte Zeichen. Bitte prüfen.';

describeBrowser('the issues view: the short list of true problems', { timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';
  let email = '';

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const send = (reports: Record<string, unknown>[]) =>
    sendReports(page, server.url, projectId, reports);
  const rows = () => page.locator('.issue-list > .issue-row');
  const projectUrl = (rest = '') => `${server.url}/projects/${projectId}${rest}`;
  /** Every issue of the project, through the API the page uses. */
  const allIssues = async () =>
    (
      (await page.evaluate(
        `fetch('/v1/dashboard/${projectId}/issues?status=all&limit=100').then((r) => r.json())`,
      )) as { issues: { id: string; title: string; tool_name: string; report_count: number }[] }
    ).issues;
  const grouped = (reports: number) =>
    expect
      .poll(async () => (await allIssues()).reduce((sum, i) => sum + i.report_count, 0), {
        timeout: STEP_MS,
      })
      .toBe(reports);
  /** The header's "N / 1,000 reports this month". */
  const monthCount = async () =>
    Number((await page.locator('.usage-text').textContent())?.split(' ')[0]?.replace(/\D/g, ''));
  const issueOfTool = async (tool: string) => {
    const found = (await allIssues()).find((issue) => issue.tool_name === tool);
    if (!found) throw new Error(`no issue of ${tool}`);
    return found;
  };

  it('opens a fresh instance on the first sign-up, not on "Welcome back"', async () => {
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await expect(page.getByText('Welcome back').count()).resolves.toBe(0);
    await page.getByText('This is the first account of this instance').waitFor();
    email = `operator-${Date.now()}@example.test`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Create your first project' }).waitFor();
    projectId = await createProject(page, 'Agent tools');
  });

  it('lists the problems by default, requests and successes one click away', async () => {
    const reports: Record<string, unknown>[] = [];
    // 26 problems with two reports each: page 1 (25 a page) is theirs.
    for (let i = 0; i < 26; i += 1) {
      const problem = {
        outcome: i % 3 === 0 ? 'confusing' : 'failure',
        tool_name: `tool_${String(i).padStart(2, '0')}`,
        details: i === 0 ? LONG_DETAILS : `Call ${i} failed: the server answered 500.`,
        metadata: METADATA,
      };
      reports.push(problem, problem);
    }
    // Two with one report each, on page 2, and what they say is searched for below.
    reports.push(
      {
        outcome: 'failure',
        tool_name: 'render_csv',
        details: 'Output format ignored: asked for CSV, got JSON.',
      },
      {
        outcome: 'gave_up',
        tool_name: 'render_pdf',
        details: 'Gave up: the output format option is not documented anywhere.',
      },
    );
    for (const tool of ['lookup_city', 'get_forecast', 'list_users'])
      reports.push({ outcome: 'success', tool_name: tool, details: 'Worked as documented.' });
    for (const tool of ['export_table', 'get_alerts'])
      reports.push({ outcome: 'request', tool_name: tool, details: 'Please add a date filter.' });
    await send(reports);
    await grouped(reports.length);

    await page.goto(projectUrl());
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(25);
    await page.getByText('Page 1 of 2').waitFor();
    await expect(
      page.locator('.issue-row', { hasText: 'Successful calls of' }).count(),
    ).resolves.toBe(0);
    await expect(
      page.getByRole('button', { name: 'Problems' }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');

    await page.getByRole('button', { name: 'Successes' }).click();
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(3);
    await page.locator('.issue-row', { hasText: 'Successful calls of lookup_city' }).waitFor();
    await page.getByRole('button', { name: 'Requests' }).click();
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(2);
    await page.getByRole('button', { name: 'Problems' }).click();
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(25);

    // The outcome and tool filters of the API.
    await page.getByLabel('Outcome').selectOption('gave_up');
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(1);
    await page.locator('.issue-row', { hasText: 'render_pdf' }).waitFor();
    await page.getByLabel('Outcome').selectOption('');
    await page.getByLabel('Tool').selectOption('tool_05');
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(1);
    await page.getByLabel('Tool').selectOption('');
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(25);
  });

  it('finds an issue on page 2 by searching every title', async () => {
    await expect(page.locator('.issue-row', { hasText: 'Output format' }).count()).resolves.toBe(0);
    await page.keyboard.press('/');
    await page.keyboard.type('output FORMAT');
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(2);
    await page.locator('.issue-row', { hasText: 'render_csv' }).waitFor();
    await page.locator('.issue-row', { hasText: 'render_pdf' }).waitFor();
    // "output FORMA" finds the same two: the address follows the box once its typing settles.
    await expect.poll(() => page.url(), { timeout: STEP_MS }).toMatch(/[?&]q=output\+FORMAT(&|$)/);
    await page.screenshot({ path: join(artifacts, 'issues-search.png'), fullPage: true });
    await page.getByLabel('Search titles').fill('no such words');
    await page.getByText('has “no such words” in its title').waitFor();
    await page.getByLabel('Search titles').fill('');
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(25);
  });

  it('titles a German report whole, never cut inside its parenthesis', async () => {
    await send([{ outcome: 'failure', tool_name: 'dokumente_suchen', details: GERMAN_DETAILS }]);
    // Its tool joins the tool filter's choices as it arrives.
    await expect
      .poll(
        () => page.getByLabel('Tool').locator('option', { hasText: 'dokumente_suchen' }).count(),
        {
          timeout: STEP_MS,
        },
      )
      .toBe(1);
    await page.getByLabel('Search titles').fill('Die Antwort');
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(1);
    await expect(rows().first().locator('.issue-title').textContent()).resolves.toBe(
      'Die Antwort des Werkzeugs enthält (z. B. bei Umlauten) falsch kodierte Zeichen',
    );
    await page.getByLabel('Search titles').fill('');
    await expect.poll(() => rows().count(), { timeout: STEP_MS }).toBe(25);
  });

  it('keeps the header’s reports this month current while the issues are open', async () => {
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const before = await monthCount();
    await send(
      Array.from({ length: 5 }, () => ({
        outcome: 'failure',
        tool_name: 'tool_01',
        details: 'Call 1 failed: the server answered 500.',
      })),
    );
    await expect.poll(monthCount, { timeout: STEP_MS }).toBe(before + 5);
  });

  it('never asks with From after To: it says so instead', async () => {
    const refused: string[] = [];
    const onResponse = (response: { status(): number; url(): string }) => {
      if (response.status() === 400) refused.push(response.url());
    };
    page.on('response', onResponse);
    try {
      const range = page.getByRole('form', { name: 'Issue date range' });
      await range.getByLabel('From (UTC)').fill('2026-02-10');
      await range.getByLabel('To (UTC)').fill('2026-02-01');
      await page.getByRole('alert').filter({ hasText: 'is after the end date' }).waitFor();
      await page.goto(projectUrl('/reports?from=2026-02-10&to=2026-02-01'));
      await page.getByRole('alert').filter({ hasText: 'is after the end date' }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      expect(refused).toEqual([]);
    } finally {
      page.off('response', onResponse);
    }
  });

  it('says the counts are unavailable during an outage, not "none yet"', async () => {
    await page.route('**/v1/dashboard/*/reports?*', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          ok: false,
          type: 'about:blank',
          title: 'Service unavailable',
          status: 503,
          detail: 'The database does not answer.',
          code: 'service_unavailable',
        }),
      }),
    );
    try {
      await page.goto(projectUrl('/reports'));
      await page
        .locator('[data-outcome="failure"] .tile-sub', { hasText: 'unavailable' })
        .waitFor();
      await expect(page.locator('.tile-sub', { hasText: 'none yet' }).count()).resolves.toBe(0);
    } finally {
      await page.unrouteAll({ behavior: 'wait' });
    }
  });

  it('moves through the reports from the keyboard, as through the issues', async () => {
    await page.goto(projectUrl('/reports'));
    await page.locator('.report-list > li').first().waitFor();
    await page.getByText('j/k', { exact: false }).first().waitFor();
    const ids = await page
      .locator('.report-list > li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-report-id')));
    const focused = () =>
      page.evaluate(`document.activeElement?.getAttribute('data-report-id') ?? null`);
    await page.keyboard.press('j');
    await expect.poll(focused, { timeout: STEP_MS }).toBe(ids[0]);
    await page.keyboard.press('j');
    await expect.poll(focused, { timeout: STEP_MS }).toBe(ids[1]);
    await page.keyboard.press('k');
    await expect.poll(focused, { timeout: STEP_MS }).toBe(ids[0]);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/issues\/[0-9a-f]{32}$/);
    await page.goBack();
    await page.locator('.report-list > li').first().waitFor();
    await page.keyboard.press('/');
    await expect
      .poll(() => page.evaluate(`document.activeElement?.tagName ?? ''`), { timeout: STEP_MS })
      .toBe('SELECT');
  });

  it('renames an issue, the name sticks, and the history says who did what', async () => {
    const issue = await issueOfTool('tool_03');
    await page.goto(projectUrl(`/issues/${issue.id}`));
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Issue title').fill('Tool 3 answers 500 on every call');
    await page.getByRole('button', { name: 'Save title' }).click();
    await page.getByRole('heading', { name: 'Tool 3 answers 500 on every call' }).waitFor();
    await page.getByRole('button', { name: 'Resolve' }).click();
    const history = page.locator('section.card', { hasText: 'History' });
    await history.getByText('resolved it').waitFor();
    await history.getByText('renamed it from').waitFor();
    await expect(history.locator('.activity-item').first().textContent()).resolves.toContain(email);
    // A new report of the problem reopens it; the grouper keeps the developer's title, and
    // the header counts it here too.
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const before = await monthCount();
    await send([
      {
        outcome: 'confusing',
        tool_name: 'tool_03',
        details: 'Call 3 failed: the server answered 500.',
      },
    ]);
    await expect
      .poll(async () => (await issueOfTool('tool_03')).report_count, { timeout: STEP_MS })
      .toBe(3);
    expect((await issueOfTool('tool_03')).title).toBe('Tool 3 answers 500 on every call');
    await expect.poll(monthCount, { timeout: STEP_MS }).toBe(before + 1);
    // Models and client versions, from the reports' metadata.
    const numbers = page.locator('section.card', { hasText: 'Agent clients' });
    await numbers.getByText('claude-sonnet').waitFor();
    await numbers.getByText('claude-code 2.1.0').waitFor();
    await page.screenshot({ path: join(artifacts, 'issue-history.png'), fullPage: true });
  });

  it('merges through a picker that searches every issue, in a dialog that does not scroll sideways', async () => {
    const source = await issueOfTool('tool_00');
    const into = await issueOfTool('render_pdf');
    await page.goto(projectUrl(`/issues/${source.id}`));
    await page.getByRole('button', { name: 'Merge into…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge this issue into another' });
    await dialog.getByRole('radio').first().waitFor();
    const fits = () =>
      dialog.evaluate((element) => {
        const choices = element.querySelector('.issue-choices');
        return (
          element.scrollWidth <= element.clientWidth &&
          (!choices || choices.scrollWidth <= choices.clientWidth)
        );
      });
    await expect(fits()).resolves.toBe(true);
    // The picker asks the API: the issue is found though it is not among the most recent 50.
    await dialog.getByLabel('Search issues by title').fill('output format');
    await expect.poll(() => dialog.getByRole('radio').count(), { timeout: STEP_MS }).toBe(2);
    await expect(fits()).resolves.toBe(true);
    await dialog.getByRole('radio', { name: /render_pdf/ }).check();
    await page.screenshot({ path: join(artifacts, 'issue-merge-dialog.png') });
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
    await page.waitForURL(new RegExp(`/issues/${into.id}$`));
    await page.locator('section.card', { hasText: 'History' }).getByText('merged “').waitFor();
  });

  it('shows the next page of an issue’s reports from its top', async () => {
    // The merged issue has 3 reports: 19 more make two full pages of 10 and a third.
    await send(
      Array.from({ length: 19 }, () => ({
        outcome: 'gave_up',
        tool_name: 'render_pdf',
        details: 'Gave up: the output format option is not documented anywhere.',
      })),
    );
    const into = await issueOfTool('render_pdf');
    await expect
      .poll(async () => (await issueOfTool('render_pdf')).report_count, { timeout: STEP_MS })
      .toBe(22);
    await page.goto(projectUrl(`/issues/${into.id}`));
    await expect
      .poll(() => page.locator('.report-list > li').count(), { timeout: STEP_MS })
      .toBe(10);
    await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.getByText('Page 2 of 3').waitFor();
    await expect
      .poll(() => page.locator('.report-list > li').count(), { timeout: STEP_MS })
      .toBe(10);
    const heading = page.locator('#issue-reports-title');
    const top = await heading.evaluate((element) => element.getBoundingClientRect().top);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(800);
  });
});
