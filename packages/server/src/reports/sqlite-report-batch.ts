import type SQLite from 'better-sqlite3';
import { type AccountQuota, monthlyQuotaLimit } from '../accounts/monthly-quota.js';
import type { ReportSubmission, SubmissionOutcome } from './report-writer.js';

/** What one submission of a batch came to: an outcome, or the message of the error it hit. */
export type BatchResult = { outcome: SubmissionOutcome } | { error: string };

type IngestTarget = AccountQuota & { project_id: string; account_id: string };

/**
 * The SQLite report writer's work, synchronous on its own connection (it runs in the writer
 * thread, sqlite-report-worker.ts). It stores what the Kysely path does
 * (transaction-report-writer.ts): the report, one more on the account's usage counter and on
 * the project's facet counter (report-counts.repository.ts). Here, though, a whole batch shares
 * one transaction, so the counters are added up in memory and written once per batch — one
 * usage upsert per account and one counter upsert per (tool, source, outcome) instead of two
 * per report: the insert is the only statement per report.
 *
 * The insert goes to `report_inbox` (migration 0005), with no index but its primary key;
 * `moveInbox` moves the inbox into `reports` in one statement, many reports at a time: the
 * indexes of `reports` then cost their page writes once per move instead of once per commit.
 * Until moved, a report is committed (durable, counted, in the counters) but not in
 * `reports`, so the server's readers ask the writer to move the inbox first
 * (ReportWriter.flush).
 */
export function createSqliteReportBatch(sqlite: SQLite.Database, freeTier: number | null) {
  const findTarget = sqlite.prepare<[string], IngestTarget>(`
    select projects.id as project_id, projects.account_id as account_id,
      accounts.monthly_quota as monthly_quota, accounts.quota_unlimited as quota_unlimited
    from ingest_keys
    inner join projects on projects.id = ingest_keys.project_id
    inner join accounts on accounts.id = projects.account_id
    where ingest_keys.key = ? and ingest_keys.revoked_at is null
  `);
  const readUsage = sqlite.prepare<[string, string], { count: number }>(
    'select count from usage_counters where account_id = ? and month = ?',
  );
  const addUsage = sqlite.prepare<[string, string, number]>(`
    insert into usage_counters (account_id, month, count) values (?, ?, ?)
    on conflict (account_id, month) do update set count = usage_counters.count + excluded.count
  `);
  const insertReport = sqlite.prepare(`
    insert into report_inbox
      (id, project_id, outcome, tool_name, source, details, metadata, created_at, redactions)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?)
  `);
  const addReportCount = sqlite.prepare(`
    insert into report_counts (project_id, tool_name, source, outcome, count)
    values (?, ?, ?, ?, ?)
    on conflict (project_id, tool_name, source, outcome)
    do update set count = report_counts.count + excluded.count
  `);

  function storeAll(submissions: ReportSubmission[]): SubmissionOutcome[] {
    const targets = new Map<string, IngestTarget | undefined>();
    // Per account and month: the count committed before this batch, and what the batch adds.
    const usage = new Map<
      string,
      { accountId: string; month: string; used: number; added: number }
    >();
    // Per project, tool, source and outcome ('' = absent label, as in report_counts).
    const counts = new Map<string, { key: [string, string, string, string]; added: number }>();

    const outcomes = submissions.map(({ ingestKey, month, report }): SubmissionOutcome => {
      if (!targets.has(ingestKey)) targets.set(ingestKey, findTarget.get(ingestKey));
      const target = targets.get(ingestKey);
      if (!target) return { status: 'unknown_key' };

      const usageKey = `${target.account_id}\n${month}`;
      let counter = usage.get(usageKey);
      if (!counter) {
        const used = readUsage.get(target.account_id, month)?.count ?? 0;
        counter = { accountId: target.account_id, month, used, added: 0 };
        usage.set(usageKey, counter);
      }
      // Exact: the batch holds the write lock, and counts its own reports as it goes.
      const limit = monthlyQuotaLimit(freeTier, target);
      if (limit !== null && counter.used + counter.added >= limit) {
        return { status: 'quota_exceeded', limit };
      }
      counter.added += 1;

      insertReport.run(
        report.id,
        target.project_id,
        report.outcome,
        report.toolName,
        report.source,
        report.details,
        report.metadata,
        report.createdAt.toISOString(),
        report.redactions,
      );
      const key: [string, string, string, string] = [
        target.project_id,
        report.toolName ?? '',
        report.source ?? '',
        report.outcome,
      ];
      const countKey = key.join('\n');
      const count = counts.get(countKey);
      if (count) count.added += 1;
      else counts.set(countKey, { key, added: 1 });
      return { status: 'stored', projectId: target.project_id };
    });

    for (const { accountId, month, added } of usage.values()) {
      if (added > 0) addUsage.run(accountId, month, added);
    }
    for (const { key, added } of counts.values()) addReportCount.run(...key, added);
    return outcomes;
  }

  const inTransaction = sqlite.transaction(storeAll);

  const moveReports = sqlite.prepare(`
    insert into reports
      (id, project_id, outcome, tool_name, source, details, metadata, created_at, redactions)
    select id, project_id, outcome, tool_name, source, details, metadata, created_at, redactions
    from report_inbox order by rowid
  `);
  const emptyInbox = sqlite.prepare('delete from report_inbox');
  const move = sqlite.transaction(() => {
    moveReports.run();
    emptyInbox.run();
  });
  // Reports committed to the inbox and not moved yet, including any a stopped server left.
  let inboxRows = (sqlite.prepare('select count(*) as n from report_inbox').get() as { n: number })
    .n;

  /**
   * Stores a batch in ONE transaction: one commit, so one fsync of the WAL, for all of it (group
   * commit). IMMEDIATE takes the write lock at BEGIN (waiting, busy_timeout, while the main
   * connection holds it), so the usage read at the start of the batch stays current to its end.
   * Submissions run in order, each counting against the quota after the ones before it. If
   * anything fails, the batch is rolled back and each submission is run again in its own
   * transaction, so an error reaches only its own submitter.
   */
  function storeBatch(submissions: ReportSubmission[]): BatchResult[] {
    let results: BatchResult[];
    try {
      results = inTransaction.immediate(submissions).map((outcome) => ({ outcome }));
    } catch {
      results = submissions.map((submission) => {
        try {
          return { outcome: inTransaction.immediate([submission])[0]! };
        } catch (error) {
          return { error: error instanceof Error ? error.message : String(error) };
        }
      });
    }
    for (const result of results) {
      if ('outcome' in result && result.outcome.status === 'stored') inboxRows++;
    }
    return results;
  }

  /**
   * Moves every report of the inbox into `reports`, in the order they were stored, in one
   * transaction: a report is in exactly one of the two tables at any time. Throws (and moves
   * nothing) if one of them cannot be moved; they stay in the inbox, committed.
   */
  function moveInbox(): void {
    if (inboxRows === 0) return;
    move.immediate();
    inboxRows = 0;
  }

  return { storeBatch, moveInbox, inboxRows: () => inboxRows };
}
