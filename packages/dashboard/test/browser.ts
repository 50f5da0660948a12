import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
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

/** axe-core's browser build, read once; injected into pages by `expectAccessible`. */
let axeSource: string | undefined;
const require = createRequire(import.meta.url);

/** WCAG 2.1 A and AA, plus axe's best practices: what the dashboard promises. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core (WCAG 2.1 AA + best practices) on the page as it is now and fails with one
 * readable line per violation: rule id, impact, what it means and the offending elements.
 * The dashboard's CSP forbids inline scripts, so axe is evaluated through the DevTools
 * protocol (`page.evaluate`), which the page's CSP does not govern, not added as a tag.
 */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe === "object"'))) {
    await page.evaluate(axeSource);
  }
  const violations = (await page.evaluate(
    `window.axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} }, resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  if (violations.length === 0) return;
  const lines = violations.map(
    (v) =>
      `- ${v.id} (${v.impact ?? 'unknown impact'}, ${v.nodes.length} element${v.nodes.length === 1 ? '' : 's'}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`,
  );
  throw new Error(
    `axe-core found ${violations.length} violation(s) on ${where}:\n${lines.join('\n')}`,
  );
}

export const PASSWORD = 'correct horse battery staple';

/** Signs a new account up through the form; the page ends on the empty projects page. */
export async function signUp(page: Page, baseUrl: string): Promise<string> {
  const email = `browser-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  await page.goto(`${baseUrl}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Create your first project' }).waitFor();
  return email;
}

/** Creates a project from the projects page (signed in); the page ends on its reports. */
export async function createProject(page: Page, name: string): Promise<string> {
  await page.getByLabel('Project name').fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(/\/projects\/[0-9a-f]{32}$/);
  return /\/projects\/([0-9a-f]{32})$/.exec(page.url())?.[1] ?? '';
}

/** Sends reports over the public HTTP API with the project's ingest key (read as the user). */
export async function sendReports(
  page: Page,
  baseUrl: string,
  projectId: string,
  reports: Record<string, unknown>[],
): Promise<string[]> {
  const { ingest_key } = (await page.evaluate(
    `fetch('/v1/console/projects/${projectId}/ingest-key').then((r) => r.json())`,
  )) as { ingest_key: string };
  const ids: string[] = [];
  for (const report of reports) {
    const res = await fetch(`${baseUrl}/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ingest_key, ...report }),
    });
    const body = (await res.json()) as { id?: string };
    if (res.status !== 201 || !body.id) throw new Error(`submit answered ${res.status}`);
    ids.push(body.id);
  }
  return ids;
}

/** `count` varied reports: every outcome, three tools, two sources, one long details. */
export function submitReports(
  page: Page,
  baseUrl: string,
  projectId: string,
  count: number,
): Promise<string[]> {
  const tools = ['get_forecast', 'search_city', 'get_alerts'];
  const outcomes = ['success', 'success', 'failure', 'confusing', 'gave_up', 'request'];
  return sendReports(
    page,
    baseUrl,
    projectId,
    Array.from({ length: count }, (_, i) => ({
      outcome: outcomes[i % outcomes.length],
      tool_name: tools[i % tools.length],
      source: i % 2 ? 'claude-code' : 'cursor',
      details: `Report ${i}: ${i === 2 ? 'the API returned 500.\n'.repeat(14) : 'worked as documented.'}`,
      metadata: { model: 'claude-sonnet', session: `s-${i}` },
    })),
  );
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
