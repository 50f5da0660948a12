import { join } from 'node:path';
import { setMonthlyQuota } from '@debrief/server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import {
  artifacts,
  createProject,
  describeBrowser,
  ensureDashboardBuilt,
  launchChromium,
  STEP_MS,
  signUp,
} from './browser.js';

/**
 * The Keys and API keys pages as the operator of an instance sees them, on a desktop and on a
 * phone: checkboxes beside their labels, one id per element, limits that make sense on an
 * unlimited account, a Revoke button in reach on a phone; and the instance's own project,
 * explained where it appears.
 */
describeBrowser('keys pages and the instance project', { timeout: 120_000 }, () => {
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
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    email = await signUp(page, server.url);
    projectId = await createProject(page, 'Keys');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A checkbox at its own size, on its label's line (not a full-width box above it). */
  const expectBesideItsLabel = async (label: string) => {
    const box = page.getByRole('checkbox', { name: label });
    const own = await box.boundingBox();
    const row = await box.evaluate((element) => {
      const rect = element.closest('label')?.getBoundingClientRect();
      return rect ? { y: rect.y, height: rect.height } : null;
    });
    expect(own?.width).toBeLessThan(30);
    expect(row).not.toBeNull();
    // One line: the label is not much taller than a control.
    expect(row!.height).toBeLessThan(48);
  };

  it('renders checkboxes beside their labels on the Keys and API keys pages', async () => {
    await page.goto(`${server.url}/projects/${projectId}/keys`);
    await page.getByRole('checkbox', { name: 'Can also triage issues' }).waitFor();
    await page.getByTestId('redact-personal-data').waitFor();
    await expectBesideItsLabel('Can also triage issues');
    await expectBesideItsLabel('Also redact email addresses and phone numbers');
    await page.goto(`${server.url}/api-keys`);
    await expectBesideItsLabel('Can also triage issues');
  });

  it('gives each dialog of the Keys page its own title id', async () => {
    await page.goto(`${server.url}/projects/${projectId}/keys`);
    await page.getByRole('checkbox', { name: 'Can also triage issues' }).waitFor();
    const ids = await page.locator('[id]').evaluateAll((elements) => elements.map((e) => e.id));
    const duplicates = ids.filter((id, index) => ids.indexOf(id) !== index);
    expect(duplicates).toEqual([]);
  });

  it('shows no default daily share on an account without a monthly quota', async () => {
    await setMonthlyQuota(server.ctx.db, email, 'unlimited');
    await page.goto(`${server.url}/projects/${projectId}/keys`);
    const summary = page.getByTestId('limits-summary');
    await summary.getByText('any number of', { exact: false }).waitFor();
    await expect(summary.textContent()).resolves.toContain('no monthly quota');
    const share = page.locator('input[name="address_daily_share"]');
    await expect(share.getAttribute('placeholder')).resolves.not.toMatch(/default/);
  });

  it('keeps the Revoke button of the API keys in reach on a phone', async () => {
    await page.goto(`${server.url}/api-keys`);
    await page.getByLabel('Key name').fill('A key with a rather long name for a phone');
    await page.getByRole('checkbox', { name: 'Can also triage issues' }).check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = await page.getByTestId('new-api-key').inputValue();
    // Used once: its row shows when, the widest thing in it.
    const used = await fetch(`${server.url}/v1/projects`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(used.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      const revoke = page.getByRole('button', { name: /^Revoke A key/ });
      // Scrolled to vertically, as a reader would; never sideways (that is the defect).
      await revoke.evaluate((button) => {
        const view = button.ownerDocument.defaultView;
        view?.scrollTo(0, button.getBoundingClientRect().top + (view?.scrollY ?? 0) - 300);
      });
      const box = await revoke.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
      // Nothing covers it: a tap at its centre reaches it.
      const reached = await revoke.evaluate((button) => {
        const rect = button.getBoundingClientRect();
        const hit = button.ownerDocument.elementFromPoint(
          rect.x + rect.width / 2,
          rect.y + rect.height / 2,
        );
        return hit !== null && button.contains(hit);
      });
      expect(reached).toBe(true);
      await page.screenshot({ path: join(artifacts, 'api-keys-phone.png'), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('explains the instance’s own project to its operator', async () => {
    // The instance makes its feedback project when /skill.md is first served.
    expect((await fetch(`${server.url}/skill.md`)).status).toBe(200);
    await page.goto(server.url);
    const card = page.locator('.project-card', { hasText: 'Debrief (this instance)' });
    await card.getByTestId('instance-feedback').waitFor();
    await expect(card.textContent()).resolves.toContain('feedback about itself');
    await expect(
      page.locator('.project-card', { hasText: 'Keys' }).getByTestId('instance-feedback').count(),
    ).resolves.toBe(0);
  });
});
