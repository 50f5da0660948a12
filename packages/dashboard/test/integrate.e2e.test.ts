import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { describeBrowser, ensureDashboardBuilt, launchChromium, STEP_MS } from './browser.js';

/**
 * The Integrate page's skill name, in a browser: typed once, it becomes the SKILL.md block's
 * `"source"`, so the reports sent through the block are told apart from other routes'.
 */
describeBrowser('integrate page in a browser', { timeout: 60_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    page.on('request', (request) => {
      if (request.url().includes('/integrate')) requested.push(request.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('puts the skill name in the SKILL.md block as source', async () => {
    await page.goto(`${server.url}/signup`);
    await page.getByLabel('Email').fill(`integrate-${Date.now()}@example.test`);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByLabel('Project name').fill('Weather API');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'No reports yet' }).waitFor();

    await page.locator('a.tab', { hasText: 'Integrate' }).click();
    const block = page.getByLabel('SKILL.md feedback block');
    await block.waitFor();
    await expect(block.textContent()).resolves.not.toContain('"source"');

    // Typed key by key, as a person does.
    await page
      .getByLabel('Skill name (optional)')
      .pressSequentially('weather-forecast', { delay: 30 });
    await block.getByText('"source": "weather-forecast"').waitFor();
    const text = (await block.textContent()) ?? '';
    expect(text).toMatch(/"ingest_key": "wk_[0-9a-f]{32}",\s*"source": "weather-forecast"/);
    // Typing pauses before asking: one request for the name, not one per keystroke.
    expect(requested.filter((url) => url.includes('source='))).toEqual([
      expect.stringMatching(/\?source=weather-forecast$/),
    ]);

    await page.getByLabel('Skill name (optional)').fill('');
    await expect
      .poll(async () => (await block.textContent()) ?? '', { timeout: STEP_MS })
      .not.toContain('"source"');
  });

  it('shows the MCP instructions, the capture and counting options and the Express options', async () => {
    const instructions = page.getByLabel('MCP instructions');
    await instructions.waitFor();
    expect(await instructions.textContent()).toContain('call `report_feedback`');
    const mcp = page.getByRole('table', { name: 'MCP options' });
    for (const option of ['capture', 'countCalls'])
      await mcp.getByRole('rowheader', { name: option }).waitFor();
    const express = page.getByRole('table', { name: 'Express options' });
    for (const option of ['capture', 'countRequests', 'forwardingSecret'])
      await express.getByRole('rowheader', { name: option }).waitFor();
    const fragment = JSON.parse(
      (await page.getByLabel('OpenAPI fragment').locator('code').textContent()) ?? '',
    );
    expect(fragment['/feedback'].post.security).toEqual([]);
  });
});
