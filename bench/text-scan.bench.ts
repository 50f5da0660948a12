/**
 * `npm run bench:text`: how long the two scans that every report's text goes through take on
 * hostile text of the largest size a report may carry: the grouping engine's fingerprint and
 * the redaction of secrets and personal data. A pattern that backtracks takes seconds on these;
 * linear work takes a few milliseconds. Each input is scanned several times in this process and
 * the slowest run is compared with its budget, loose enough for a shared machine: the command
 * exits 1 when one is over. The tests check the same inputs for bounded results, not time.
 */
import { fingerprint } from '../packages/server/src/issues/grouping/index.js';
import { redactReport } from '../packages/server/src/reports/redaction/redact-report.js';
import {
  HOSTILE_DETAILS,
  SECRETISH_DETAILS,
} from '../packages/server/test/support/hostile-text.js';

const RUNS = 5;
const FINGERPRINT_BUDGET_MS = 250;
const REDACTION_BUDGET_MS = 500;

/**
 * The slowest of RUNS scans after a warm-up (the patterns compile on first use). Each run's text
 * starts with its own number, so no memo of an earlier run's words can answer for it.
 */
function slowest(details: string, scan: (details: string) => void): number {
  const variant = (run: number) => `${run} ${details}`.slice(0, details.length);
  scan(variant(RUNS));
  let worst = 0;
  for (let run = 0; run < RUNS; run++) {
    const text = variant(run);
    const started = performance.now();
    scan(text);
    worst = Math.max(worst, performance.now() - started);
  }
  return worst;
}

const report = (details: string) => ({
  outcome: 'failure' as const,
  tool_name: 'x',
  source: null,
  metadata: null,
  details,
});

const rows: { scan: string; input: string; ms: number; budget: number }[] = [];
for (const [name, details] of Object.entries(HOSTILE_DETAILS)) {
  const ms = slowest(details, (text) =>
    fingerprint({ outcome: 'failure', tool_name: 'x', details: text }),
  );
  rows.push({ scan: 'fingerprint', input: name, ms, budget: FINGERPRINT_BUDGET_MS });
}
for (const [name, details] of [
  ...Object.entries(HOSTILE_DETAILS),
  ['prefilter hits everywhere', SECRETISH_DETAILS] as const,
]) {
  const ms = slowest(details, (text) => redactReport(report(text), { personalData: true }));
  rows.push({ scan: 'redaction', input: name, ms, budget: REDACTION_BUDGET_MS });
}

console.log('| scan | input (10,000 characters) | slowest of 5, ms | budget, ms |');
console.log('| --- | --- | ---: | ---: |');
for (const row of rows) {
  const flag = row.ms > row.budget ? ' **over**' : '';
  console.log(`| ${row.scan} | ${row.input} | ${row.ms.toFixed(1)}${flag} | ${row.budget} |`);
}
const over = rows.filter((row) => row.ms > row.budget);
if (over.length > 0) {
  console.error(`${over.length} scan(s) over budget: a pattern may backtrack.`);
  process.exitCode = 1;
}
