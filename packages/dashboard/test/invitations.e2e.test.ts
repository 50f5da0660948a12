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
 * Sign-up by invitation in a browser, on the default `SIGNUPS=invite`:
 * the first visitor becomes the operator, makes an invitation link in the dashboard, and a
 * second person accepts it; the link then admits nobody else, and a revoked link nobody. A
 * revocation that fails (the link was used meanwhile) says why in its dialog.
 */
describeBrowser('invitations in a browser', { timeout: 90_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let operatorContext: BrowserContext;
  let operator: Page;
  let link = '';
  const password = 'correct horse battery staple';

  /** A fresh visitor: a context of its own, so no session cookie is shared. */
  const visitor = async (): Promise<{ page: Page; close(): Promise<void> }> => {
    const context = await browser.newContext();
    context.setDefaultTimeout(STEP_MS);
    return { page: await context.newPage(), close: () => context.close() };
  };

  const fillSignup = async (page: Page, email: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
  };

  const createLink = async (): Promise<string> => {
    await operator.getByRole('button', { name: 'Create invitation link' }).click();
    const field = operator.getByTestId('new-invitation-link');
    await field.waitFor();
    const url = await field.inputValue();
    await operator.getByRole('button', { name: 'Done' }).click();
    return url;
  };

  beforeAll(async () => {
    ensureDashboardBuilt();
    server = await startTestServer('sqlite');
    browser = await launchChromium();
    operatorContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    operatorContext.setDefaultTimeout(STEP_MS);
    operator = await operatorContext.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('makes the first account the operator, who creates an invitation link', async () => {
    await operator.goto(`${server.url}/signup`);
    await operator.getByText('it becomes the operator').waitFor();
    await fillSignup(operator, 'operator@example.test');
    await operator.getByRole('heading', { name: 'Create your first project' }).waitFor();

    await operator.getByRole('link', { name: 'Invitations' }).click();
    await operator.getByRole('heading', { name: 'Invitations', exact: true }).waitFor();
    link = await createLink();
    expect(link).toMatch(new RegExp(`^${server.url}/signup\\?invite=[A-Za-z0-9_-]{32}$`));
    await operator.locator('[data-status="pending"]').first().waitFor();
  });

  it('shows "by invitation only" to a visitor without a link', async () => {
    const { page, close } = await visitor();
    try {
      await page.goto(`${server.url}/signup`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByText('Sign-ups are by invitation only').waitFor();
      await expect(page.getByRole('link', { name: 'Create an account' }).count()).resolves.toBe(0);
    } finally {
      await close();
    }
  });

  it('accepts the invitation: the invited person signs up, once', async () => {
    const { page, close } = await visitor();
    try {
      await page.goto(link);
      await page.getByTestId('invitation-notice').waitFor();
      await fillSignup(page, 'guest@example.test');
      await page.getByRole('heading', { name: 'Create your first project' }).waitFor();
      // The URL lost its token, and a member has no Invitations page in the menu.
      expect(page.url()).toBe(`${server.url}/`);
      await expect(page.getByRole('link', { name: 'Invitations' }).count()).resolves.toBe(0);
      await page.screenshot({ path: join(artifacts, 'invitation-accepted.png') });
    } finally {
      await close();
    }

    const again = await visitor();
    try {
      await again.page.goto(link);
      await fillSignup(again.page, 'second-guest@example.test');
      const alert = again.page.getByRole('alert');
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain('already used');
    } finally {
      await again.close();
    }

    await operator.reload();
    await operator.locator('[data-status="used"]').first().waitFor();
  });

  it('refuses a link the operator revoked', async () => {
    const revoked = await createLink();
    const revoke = operator.getByRole('button', { name: 'Revoke the invitation for anyone' });
    // Cancelled first: the link stays pending, and its Revoke button stays.
    await revoke.click();
    await operator.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await operator.getByRole('dialog').waitFor({ state: 'hidden' });
    await expect(revoke.count()).resolves.toBe(1);
    await revoke.click();
    await operator.getByRole('dialog').getByRole('button', { name: 'Revoke invitation' }).click();
    await operator.locator('[data-status="revoked"]').first().waitFor();
    await operator.screenshot({ path: join(artifacts, 'invitations-page.png') });

    const { page, close } = await visitor();
    try {
      await page.goto(revoked);
      await fillSignup(page, 'late@example.test');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain('revoked');
    } finally {
      await close();
    }
  });

  it('says in the dialog why a revocation failed: the link was used meanwhile', async () => {
    const url = await createLink();
    const { page, close } = await visitor();
    try {
      await page.goto(url);
      await fillSignup(page, 'meanwhile@example.test');
      await page.getByRole('heading', { name: 'Create your first project' }).waitFor();
    } finally {
      await close();
    }

    // The operator's list still shows the link pending: it was not reloaded.
    await operator.getByRole('button', { name: 'Revoke the invitation for anyone' }).click();
    const dialog = operator.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Revoke invitation' }).click();
    await expect(dialog.getByRole('alert').textContent()).resolves.toContain('already used');
    // Cancelling forgets the failure: the next attempt starts without it.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await operator.getByRole('button', { name: 'Revoke the invitation for anyone' }).click();
    await dialog.getByRole('button', { name: 'Revoke invitation' }).waitFor();
    await expect(dialog.getByRole('alert').count()).resolves.toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await operator.reload();
    await operator.locator('[data-status="used"]').nth(1).waitFor();
  });
});
