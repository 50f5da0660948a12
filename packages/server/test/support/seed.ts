import { type Kysely, PostgresAdapter } from 'kysely';
import { createTestDatabase, type TestDialect } from '../../../../test/harness/databases.js';
import { createTenant, type TestServer } from '../../../../test/harness/test-server.js';
import { openDatabase } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { newId } from '../../src/ids.js';
import { type StoredBatch, storedBatchOf } from '../../src/issues/pipeline/stored-inputs.js';
import { importReports, type NewReport } from '../../src/reports/write-path/index.js';

/** Inserts a report with a chosen time, as if submitted then (for date-range tests). */
export async function seedReport(
  db: Kysely<DB>,
  projectId: string,
  report: { outcome: string; at: string; tool_name?: string; source?: string; details?: string },
): Promise<string> {
  const row = reportRow(projectId, {
    ...report,
    at: new Date(report.at),
    details: report.details ?? `${report.outcome} at ${report.at}`,
  });
  // As the submit path does: the report and its counters commit together.
  await db.transaction().execute((trx) => importReports(trx, dialectOf(db), [row]));
  return row.id;
}

/** A report's row as the write path stores it (importReports), with a UUIDv7 id of its time. */
export function reportRow(
  projectId: string,
  report: {
    outcome: string;
    at: Date;
    details: string;
    tool_name?: string | null;
    source?: string;
  },
): NewReport {
  return {
    id: newId(report.at.getTime()),
    projectId,
    outcome: report.outcome,
    toolName: report.tool_name ?? null,
    source: report.source ?? null,
    details: report.details,
    metadata: null,
    createdAt: report.at,
    redactions: 0,
  };
}

/** What the write path hands the grouper of `rows` stored as one batch (issues/pipeline/stored-inputs.ts). */
export function handedOver(rows: readonly NewReport[]): StoredBatch {
  const batch = storedBatchOf(
    rows.map((report) => ({ report })),
    rows.map((row) => ({ status: 'stored', projectId: row.projectId })),
  );
  if (batch === null) throw new Error('handedOver: no rows');
  return batch;
}

function dialectOf(db: Kysely<DB>): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * A fresh migrated database with one tenant, opened without a server: for tests that drive the
 * grouper's parts themselves. `close` closes and drops it.
 */
export async function openTenantDatabase(dialect: TestDialect) {
  const database = await createTestDatabase(dialect, { migrated: true });
  const opened = openDatabase(database.url);
  const tenant = await createTenant({ db: opened.kysely } as TestServer['ctx']);
  return {
    db: opened.kysely,
    tenant,
    async close() {
      await opened.close();
      await database.drop();
    },
  };
}
