import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../../test/harness/postgres-cluster.js';
import { root } from './browser.js';

const here = dirname(fileURLToPath(import.meta.url));
const SUITE_CONFIG = join(here, 'fixtures/skipped-browser-suite/vitest.config.ts');

/**
 * On a machine with only Node, `npm test` passes: the browser suite and the PostgreSQL runs
 * skip with one line each naming what to install; `.ci/run` (DEBRIEF_TEST_REQUIRE_ALL=1) makes
 * those skips failures. Checked on a real Vitest run (the repository's configuration and global
 * setup) of a browser suite declared as every browser test file declares it, with both binaries
 * pointed at a path that does not exist.
 */
function vitest(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const { DEBRIEF_TEST_REQUIRE_ALL: _inherited, ...base } = process.env;
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', SUITE_CONFIG],
      {
        cwd: root,
        env: {
          ...base,
          CHROMIUM_PATH: '/nonexistent/chromium',
          POSTGRES_BIN_DIR: '/nonexistent/postgresql/bin',
          ...env,
        },
        timeout: 90_000,
      },
      (error, stdout, stderr) =>
        done({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          output: stripVTControlCharacters(stdout + stderr),
        }),
    );
  });
}

describe('suites that need a missing binary', { timeout: 120_000 }, () => {
  it('skip with one line each naming what to install', async () => {
    const run = await vitest({});
    expect(run.code, run.output).toBe(0);
    const lines = run.output.split('\n').filter((line) => line.startsWith('[debrief tests]'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[debrief tests\] Skipped the PostgreSQL runs .*apt-get install postgresql$/,
      ),
      expect.stringMatching(
        /^\[debrief tests\] Skipped browser suite "dashboard in a browser": no Chromium at \/nonexistent\/chromium\. Install it with: apt-get install chromium$/,
      ),
    ]);
    expect(run.output).toMatch(/Tests\s+\d+ skipped/);
  });

  it('fail under DEBRIEF_TEST_REQUIRE_ALL=1', async () => {
    const run = await vitest({ DEBRIEF_TEST_REQUIRE_ALL: '1' });
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('apt-get install postgresql (DEBRIEF_TEST_REQUIRE_ALL=1');
  });

  // The PostgreSQL check fails the run before any suite; to reach the browser suite's own
  // check, the run needs the real PostgreSQL binaries.
  it.runIf(postgresAvailable())(
    'fail under DEBRIEF_TEST_REQUIRE_ALL=1 without Chromium',
    async () => {
      const run = await vitest({ DEBRIEF_TEST_REQUIRE_ALL: '1', POSTGRES_BIN_DIR: '' });
      expect(run.code).not.toBe(0);
      expect(run.output).toContain('apt-get install chromium (DEBRIEF_TEST_REQUIRE_ALL=1');
    },
  );
});
