import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

/** What every browser test file shares: the built dashboard, Debian's Chromium, artifacts. */

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../../..');
export const artifacts = join(root, 'test-artifacts');
export const CHROMIUM = '/usr/bin/chromium';
/** Bound on each browser step; generous because CI shares two cores between test files. */
export const STEP_MS = 15_000;

/** Builds the dashboard once if no build is there (a fresh clone builds it at install). */
export function ensureDashboardBuilt(): void {
  mkdirSync(artifacts, { recursive: true });
  if (existsSync(join(root, 'packages/dashboard/dist/index.html'))) return;
  execFileSync('npm', ['run', 'build', '-w', 'packages/dashboard'], {
    cwd: root,
    stdio: 'pipe',
    timeout: 110_000,
  });
}

/** Debian's Chromium, headless; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 30_000,
  });
}
