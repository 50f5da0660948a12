import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { findIngestTarget } from '../keys/ingest-key.repository.js';
import {
  type LimitReached,
  type StorageDefaults,
  storageLimits,
} from '../limits/storage-limits.js';
import { insertReport } from './report.repository.js';
import { incrementReportCount } from './report-counts.repository.js';
import { addReportRollups } from './report-rollups.repository.js';
import type { ReportSubmission, ReportWriter, SubmissionOutcome } from './report-writer.js';
import {
  incrementAddressUsageWithinLimit,
  incrementProjectUsageWithinCap,
  incrementUsageWithinQuota,
} from './usage.repository.js';

/** Thrown inside the transaction to roll back a report a limit turned out not to allow. */
class LimitUsedUp extends Error {
  constructor(
    readonly reached: LimitReached,
    readonly limit: number,
  ) {
    super(reached);
  }
}

/**
 * The report writer of PostgreSQL: one Kysely transaction per report (the server groups the
 * commits of concurrent connections itself). The hot rows — the account's usage row, which every
 * report of the account updates, and the counter row — are taken last, so their locks are held
 * for one round trip and the commit rather than the whole transaction (+39 % ingest,
 * BENCHMARKS.md); over a limit, the transaction rolls back. The counters of the other limits
 * (limits/storage-limits.ts) are touched only while their limit applies, always in the same
 * order (project, address, account), so two transactions never wait for each other in a cycle.
 */
export function createTransactionReportWriter(
  db: Kysely<DB>,
  defaults: StorageDefaults,
): ReportWriter {
  const underWay = new Set<Promise<unknown>>();
  let closed = false;

  async function store(submission: ReportSubmission): Promise<SubmissionOutcome> {
    const { ingestKey, month, day, address, report } = submission;
    const target = await findIngestTarget(db, ingestKey);
    if (!target) return { status: 'unknown_key' };
    const limits = storageLimits(defaults, target);
    const row = { ...report, projectId: target.project_id };
    try {
      await db.transaction().execute(async (trx) => {
        await insertReport(trx, row);
        await incrementReportCount(trx, row);
        await addReportRollups(trx, row);
        const { project, addressDay, account } = limits;
        if (
          project !== null &&
          !(await incrementProjectUsageWithinCap(trx, target.project_id, month, project))
        ) {
          throw new LimitUsedUp('project_cap', project);
        }
        if (
          addressDay !== null &&
          !(await incrementAddressUsageWithinLimit(
            trx,
            target.account_id,
            address,
            day,
            addressDay,
          ))
        ) {
          throw new LimitUsedUp('address_daily', addressDay);
        }
        if (!(await incrementUsageWithinQuota(trx, target.account_id, month, account))) {
          // Thrown only under a limit: unlimited always increments.
          throw new LimitUsedUp('quota_exceeded', account ?? 0);
        }
      });
    } catch (error) {
      if (!(error instanceof LimitUsedUp)) throw error;
      if (error.reached === 'quota_exceeded')
        return { status: 'quota_exceeded', limit: error.limit };
      return { status: error.reached, projectId: target.project_id, limit: error.limit };
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
