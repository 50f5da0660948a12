import type { Kysely } from 'kysely';
import { monthlyQuotaLimit } from '../accounts/monthly-quota.js';
import type { DB } from '../db/schema.js';
import { findIngestTarget } from '../keys/ingest-key.repository.js';
import { insertReport } from './report.repository.js';
import { incrementReportCount } from './report-counts.repository.js';
import type { ReportSubmission, ReportWriter, SubmissionOutcome } from './report-writer.js';
import { incrementUsageWithinQuota } from './usage.repository.js';

/** Thrown inside the transaction to roll back a report the quota turned out not to allow. */
class QuotaUsedUp extends Error {}

/**
 * The report writer of PostgreSQL: one Kysely transaction per report (the server groups the
 * commits of concurrent connections itself). The hot rows — the account's usage row, which every
 * report of the account updates, and the counter row — are taken last, so their locks are held
 * for one round trip and the commit rather than the whole transaction (+39 % ingest,
 * BENCHMARKS.md); over quota, the transaction rolls back.
 */
export function createTransactionReportWriter(
  db: Kysely<DB>,
  freeTier: number | null,
): ReportWriter {
  const underWay = new Set<Promise<unknown>>();
  let closed = false;

  async function store({ ingestKey, month, report }: ReportSubmission): Promise<SubmissionOutcome> {
    const target = await findIngestTarget(db, ingestKey);
    if (!target) return { status: 'unknown_key' };
    const limit = monthlyQuotaLimit(freeTier, target);
    const row = { ...report, projectId: target.project_id };
    try {
      await db.transaction().execute(async (trx) => {
        await insertReport(trx, row);
        await incrementReportCount(trx, row);
        if (!(await incrementUsageWithinQuota(trx, target.account_id, month, limit))) {
          throw new QuotaUsedUp();
        }
      });
    } catch (error) {
      // QuotaUsedUp is only thrown under a limit.
      if (error instanceof QuotaUsedUp && limit !== null)
        return { status: 'quota_exceeded', limit };
      throw error;
    }
    return { status: 'stored', projectId: target.project_id };
  }

  return {
    submit(submission) {
      if (closed) return Promise.reject(new Error('The report writer is closed.'));
      const stored = store(submission);
      underWay.add(stored);
      void stored.finally(() => underWay.delete(stored)).catch(() => {});
      return stored;
    },
    // Each report is in `reports` once its transaction commits.
    flush: async () => {},
    // Kysely's pool connects on demand; /readyz asks the database itself.
    ready: async () => {},
    unavailable: () => null,
    async close() {
      closed = true;
      await Promise.allSettled(underWay);
    },
  };
}
