import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import {
  artifacts,
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
 * A developer leaves a note to agents on an issue page, apart from the private note; the next
 * agent that reports the same problem reads it in the answer to its report.
 */
const PROBLEM = {
  tool_name: 'list_orders',
  outcome: 'failure',
  details: 'Pagination is broken: cursor= returns page 1 again, so the listing never advances.',
};

describeBrowser('the note to agents on an issue page', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite', { ISSUE_ANSWER_WAIT_MS: '5000' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('saves a note to agents, which the next report of the problem gets back', async () => {
    await signUp(page, server.url);
    const projectId = await createProject(page, 'Agent loop');
    await sendReports(page, server.url, projectId, [PROBLEM]);
    const firstIssue = async () =>
      (
        (await page.evaluate(
          `fetch('/v1/dashboard/${projectId}/issues').then((r) => r.json())`,
        )) as { issues: { id: string }[] }
      ).issues[0]?.id ?? '';
    await expect.poll(firstIssue, { timeout: STEP_MS }).toMatch(/^[0-9a-f]{32}$/);
    const issueId = await firstIssue();
    await page.goto(`${server.url}/projects/${projectId}/issues/${issueId}`);

    const field = page.getByRole('textbox', { name: 'Note to agents' });
    await field.waitFor();
    // Said on the page: agents see this one, never the private note.
    await page.getByText('Agents never see the note above.').waitFor();
    await field.fill('Use page= instead of cursor= until 2.3.');
    await page.getByRole('button', { name: 'Save agent note' }).click();
    await page.getByText('Saved: agents see it').waitFor();
    await expectAccessible(page, 'issue page with a note to agents');
    await page.screenshot({ path: join(artifacts, 'issue-agent-note.png'), fullPage: true });

    const detail = (await page.evaluate(
      `fetch('/v1/dashboard/${projectId}/issues/${issueId}').then((r) => r.json())`,
    )) as { note: string | null; agent_note: string | null };
    expect(detail).toMatchObject({
      note: null,
      agent_note: 'Use page= instead of cursor= until 2.3.',
    });

    const { ingest_key } = (await page.evaluate(
      `fetch('/v1/console/projects/${projectId}/ingest-key').then((r) => r.json())`,
    )) as { ingest_key: string };
    const res = await fetch(`${server.url}/v1/reports`, {
      method: 'POST',
      body: JSON.stringify({ ingest_key, ...PROBLEM }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { issue?: unknown }).issue).toEqual({
      id: issueId,
      status: 'open',
      agent_note: 'Use page= instead of cursor= until 2.3.',
    });

    // Cleared: the field empty and saved, agents are told nothing more.
    await field.fill('');
    await page.getByRole('button', { name: 'Save agent note' }).click();
    await expect
      .poll(
        async () =>
          (
            (await page.evaluate(
              `fetch('/v1/dashboard/${projectId}/issues/${issueId}').then((r) => r.json())`,
            )) as { agent_note: string | null }
          ).agent_note,
      )
      .toBeNull();
  });
});
