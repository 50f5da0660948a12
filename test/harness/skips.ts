/**
 * Suites that need a system binary (Chromium, PostgreSQL) skip with one line naming what to
 * install when it is absent, so `npm test` passes on a machine that has only Node.
 * `DEBRIEF_TEST_REQUIRE_ALL=1`, which `.ci/run` sets, turns every such skip into a failure, so
 * CI can never pass by running less.
 */
export const REQUIRE_ALL = process.env.DEBRIEF_TEST_REQUIRE_ALL === '1';

/** The one line a skipped suite prints: what is skipped, what is missing, what to install. */
export function skipLine(what: string, missing: string, install: string): string {
  return `[debrief tests] Skipped ${what}: ${missing}. Install it with: ${install}`;
}

/** The error that replaces a skip under DEBRIEF_TEST_REQUIRE_ALL=1. */
export function requiredError(line: string): Error {
  return new Error(`${line} (DEBRIEF_TEST_REQUIRE_ALL=1 turns this skip into a failure)`);
}
