import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { describe, it, type TestOptions } from 'vitest';
import { REQUIRE_ALL, requiredError, skipLine } from '../../../test/harness/skips.js';

/** What every browser test file shares: the built dashboard, Debian's Chromium, artifacts. */

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../../..');
export const artifacts = join(root, 'test-artifacts');
/** Debian's Chromium; `CHROMIUM_PATH` points elsewhere (a test of the skip path sets a missing file). */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
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

function chromiumInstalled(): boolean {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `describe` for a browser suite. Without Chromium the suite is skipped with one line naming
 * what to install (so `npm test` passes on a machine with only Node); under
 * DEBRIEF_TEST_REQUIRE_ALL=1 (`.ci/run`) it fails instead.
 */
export function describeBrowser(name: string, options: TestOptions, suite: () => void): void {
  if (chromiumInstalled()) {
    describe(name, options, suite);
    return;
  }
  const line = skipLine(
    `browser suite "${name}"`,
    `no Chromium at ${CHROMIUM}`,
    'apt-get install chromium',
  );
  if (REQUIRE_ALL) {
    describe(name, () => {
      it('needs Chromium', () => {
        throw requiredError(line);
      });
    });
    return;
  }
  console.warn(line);
  describe.skip(name, options, suite);
}
