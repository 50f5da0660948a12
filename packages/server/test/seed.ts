import { type Kysely, PostgresAdapter } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { newId } from '../src/ids.js';
import { importReports } from '../src/reports/write-path/index.js';

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
  // As the submit path does: the report and its counters commit together.
  await db.transaction().execute((trx) => importReports(trx, dialectOf(db), [row]));
  return id;
}

function dialectOf(db: Kysely<DB>): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
