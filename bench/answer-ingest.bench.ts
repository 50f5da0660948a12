/**
 * What the submit answer's `issue` costs ingest: steady ingest into a project with 200
 * agent-noted issues of the bench's tool (seed-agent-notes.ts; none of which its reports join,
 * so every report is matched and none waits) against a project with none, in paired rounds.
 * Judged by the server's CPU a report, the median of the pairs' own ratios. Target: < 5 %.
 */
import type { BenchDatabase } from './databases.js';
import { BENCH_TOOL } from './ingest.bench.js';
import { type PairedRun, pairedSteady, pairedTable } from './paired-steady.js';
import { seedNotedIssues } from './seed-agent-notes.js';
import type { SteadyOptions } from './steady.bench.js';

const NOTED_ISSUES = 200;

export function benchAnswerIngest(
  dialect: string,
  make: () => Promise<BenchDatabase>,
  options: SteadyOptions,
  log: (line: string) => void,
): Promise<PairedRun> {
  return pairedSteady(dialect, make, options, log, {
    name: 'the submit answer',
    withoutLabel: 'a project with no noted issue',
    withLabel: `a project with ${NOTED_ISSUES} noted issues`,
    setup: () => ({
      async prepare(_server, tenant, databaseUrl) {
        await seedNotedIssues(databaseUrl, tenant.project.id, BENCH_TOOL, NOTED_ISSUES);
        return async () => {};
      },
    }),
  });
}

export const answerIngestTable = (runs: PairedRun[], options: SteadyOptions) =>
  pairedTable(
    runs,
    options,
    `into a project with ${NOTED_ISSUES} agent-noted issues (the submit answer's match) against none`,
    0.05,
  );
