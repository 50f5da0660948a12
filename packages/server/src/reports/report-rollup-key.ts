/**
 * The write rule of the hourly rollups (migration 0010), in one place for every writer: which
 * row a report adds to (rollupKey) and the upsert that adds to it (ROLLUP_UPSERT_SQL). A writer
 * adds a batch up in memory per key and runs the upsert once per key, in the transaction that
 * stores the reports (sqlite-report-batch.ts; report-rollups.repository.ts, addReportRollup, for
 * Kysely). Free of imports: the SQLite writer's worker thread loads it.
 */

const HOUR_MS = 3_600_000;

/** The rollup hour of a report: the start of its UTC hour. */
export function rollupHour(createdAt: Date): Date {
  return new Date(Math.floor(createdAt.getTime() / HOUR_MS) * HOUR_MS);
}

/**
 * The rollup row a report counts in, as the first parameters of ROLLUP_UPSERT_SQL: project,
 * hour (ISO text, as `created_at` is bound), tool, source ('' = absent, as in report_counts),
 * outcome.
 */
export function rollupKey(report: {
  projectId: string;
  createdAt: Date;
  toolName: string | null;
  source: string | null;
  outcome: string;
}): [string, string, string, string, string] {
  return [
    report.projectId,
    rollupHour(report.createdAt).toISOString(),
    report.toolName ?? '',
    report.source ?? '',
    report.outcome,
  ];
}

/** Adds reports to a rollup row. Parameters (`?`): rollupKey(report), then how many. */
export const ROLLUP_UPSERT_SQL = `
  insert into report_rollups (project_id, hour, tool_name, source, outcome, count)
  values (?, ?, ?, ?, ?, ?)
  on conflict (project_id, hour, tool_name, source, outcome)
  do update set count = report_rollups.count + excluded.count`;
