import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { newId } from '../src/ids.js';
import { insertReport } from '../src/reports/report.repository.js';
import { incrementReportCount } from '../src/reports/report-counts.repository.js';
import { addReportRollups } from '../src/reports/report-rollups.repository.js';

/** Inserts a report with a chosen time, as if submitted then (for date-range tests). */
export async function seedReport(
  db: Kysely<DB>,
  projectId: string,
  report: { outcome: string; at: string; tool_name?: string; source?: string; details?: string },
): Promise<string> {
  const createdAt = new Date(report.at);
  const id = newId(createdAt.getTime());
  const row = {
    id,
    projectId,
    outcome: report.outcome,
    toolName: report.tool_name ?? null,
    source: report.source ?? null,
    details: report.details ?? `${report.outcome} at ${report.at}`,
    metadata: null,
    createdAt,
    redactions: 0,
  };
  // As the submit path does: the report, its facet counters and its rollup commit together.
  await db.transaction().execute(async (trx) => {
    await insertReport(trx, row);
    await incrementReportCount(trx, row);
    await addReportRollups(trx, row);
  });
  return id;
}
