import type SQLite from 'better-sqlite3';
import { errorCode } from '../errors/storage-fault.js';
import {
  type LimitColumns,
  limitReached,
  type StorageDefaults,
  storageLimits,
} from '../limits/storage-limits.js';
import { ROLLUP_GRAINS, rollupKey } from './report-rollup-key.js';
import type { ReportSubmission, SubmissionOutcome } from './report-writer.js';

/**
 * What one submission of a batch came to: an outcome, or the error it hit (its message, and
 * its SQLite code, which decides between a 503 and a 500: errors/storage-fault.ts).
 */
export type BatchResult = { outcome: SubmissionOutcome } | { error: string; code: string | null };

type IngestTarget = LimitColumns & { project_id: string; account_id: string };

/** A counter row of the batch: the count committed before it, and what the batch adds. */
interface Counter {
  key: string[];
  used: number;
  added: number;
}

/**
 * The SQLite report writer's work, synchronous on its own connection (it runs in the writer
 * thread, sqlite-report-worker.ts). It stores what the Kysely path does
 * (transaction-report-writer.ts): the report, one more on the account's usage counter and on
 * the project's facet counter (report-counts.repository.ts), and on the counters of the
 * stored-report limits (limits/storage-limits.ts: a capped project's month, the address's day).
 * Here, though, a whole batch shares one transaction, so the counters are added up in memory
 * and written once per batch — one upsert per counter row instead of one per report: the insert
 * is the only statement per report.
 *
 * The insert goes to `report_inbox` (migration 0005), with no index but its primary key;
 * `moveInbox` moves the inbox into `reports` in one statement, many reports at a time: the
 * indexes of `reports` then cost their page writes once per move instead of once per commit.
 * Until moved, a report is committed (durable, counted, in the counters) but not in
 * `reports`, so the server's readers ask the writer to move the inbox first
 * (ReportWriter.flush).
 */
export function createSqliteReportBatch(sqlite: SQLite.Database, defaults: StorageDefaults) {
  const findTarget = sqlite.prepare<[string], IngestTarget>(`
    select projects.id as project_id, projects.account_id as account_id,
      accounts.monthly_quota as monthly_quota, accounts.quota_unlimited as quota_unlimited,
      projects.monthly_cap as monthly_cap, projects.address_daily_share as address_daily_share
    from ingest_keys
    inner join projects on projects.id = ingest_keys.project_id
    inner join accounts on accounts.id = projects.account_id
    where ingest_keys.key = ? and ingest_keys.revoked_at is null
  `);
  // The three counters of the limits: read once per batch and row, written once per batch.
  const counterSql = {
    account: {
      read: sqlite.prepare<string[], { count: number }>(
        'select count from usage_counters where account_id = ? and month = ?',
      ),
      add: sqlite.prepare(`
        insert into usage_counters (account_id, month, count) values (?, ?, ?)
        on conflict (account_id, month) do update set count = usage_counters.count + excluded.count
      `),
    },
    project: {
      read: sqlite.prepare<string[], { count: number }>(
        'select count from project_usage where project_id = ? and month = ?',
      ),
      add: sqlite.prepare(`
        insert into project_usage (project_id, month, count) values (?, ?, ?)
        on conflict (project_id, month) do update set count = project_usage.count + excluded.count
      `),
    },
    addressDay: {
      read: sqlite.prepare<string[], { count: number }>(
        'select count from address_usage where account_id = ? and address = ? and day = ?',
      ),
      add: sqlite.prepare(`
        insert into address_usage (account_id, address, day, count) values (?, ?, ?, ?)
        on conflict (account_id, address, day)
        do update set count = address_usage.count + excluded.count
      `),
    },
  };
  type CounterKind = keyof typeof counterSql;
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
  const addReportRollup = ROLLUP_GRAINS.map((grain) => sqlite.prepare(grain.upsertSql));

  function storeAll(submissions: ReportSubmission[]): SubmissionOutcome[] {
    const targets = new Map<string, IngestTarget | undefined>();
    // Per counter row (kind and key): the count committed before this batch, and what it adds.
    const counters = new Map<string, Counter & { kind: CounterKind }>();
    function counter(kind: CounterKind, key: string[]): Counter {
      const id = `${kind}\n${key.join('\n')}`;
      let row = counters.get(id);
      if (!row) {
        row = { kind, key, used: counterSql[kind].read.get(...key)?.count ?? 0, added: 0 };
        counters.set(id, row);
      }
      return row;
    }
    const unlimited: Counter = { key: [], used: 0, added: 0 };
    // Per project, tool, source and outcome ('' = absent label, as in report_counts).
    const counts = new Map<string, { key: [string, string, string, string]; added: number }>();
    // Per grain, project, bucket and labels: the rollups (report-rollup-key.ts).
    const rollups = new Map<string, { grain: number; key: string[]; added: number }>();

    const outcomes = submissions.map((submission): SubmissionOutcome => {
      const { ingestKey, month, day, address, report } = submission;
      if (!targets.has(ingestKey)) targets.set(ingestKey, findTarget.get(ingestKey));
      const target = targets.get(ingestKey);
      if (!target) return { status: 'unknown_key' };

      // Exact: the batch holds the write lock, and counts its own reports as it goes. A counter
      // is kept only while its limit applies (a project's month while it has a cap).
      const limits = storageLimits(defaults, target);
      const account = counter('account', [target.account_id, month]);
      const project =
        limits.project === null ? unlimited : counter('project', [target.project_id, month]);
      const addressDay =
        limits.addressDay === null
          ? unlimited
          : counter('addressDay', [target.account_id, address, day]);
      const reached = limitReached(limits, {
        account: account.used + account.added,
        project: project.used + project.added,
        addressDay: addressDay.used + addressDay.added,
      });
      if (reached?.reached === 'quota_exceeded') {
        return { status: 'quota_exceeded', limit: reached.limit };
      }
      if (reached) {
        return { status: reached.reached, projectId: target.project_id, limit: reached.limit };
      }
      account.added += 1;
      project.added += 1;
      addressDay.added += 1;

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
      ROLLUP_GRAINS.forEach((grain, g) => {
        const rollupRow = rollupKey(grain, { ...report, projectId: target.project_id });
        const id = `${g}\n${rollupRow.join('\n')}`;
        const rollup = rollups.get(id);
        if (rollup) rollup.added += 1;
        else rollups.set(id, { grain: g, key: rollupRow, added: 1 });
      });
      return { status: 'stored', projectId: target.project_id };
    });

    for (const { kind, key, added } of counters.values()) {
      if (added > 0) counterSql[kind].add.run(...key, added);
    }
    for (const { key, added } of counts.values()) addReportCount.run(...key, added);
    for (const { grain, key, added } of rollups.values())
      addReportRollup[grain]!.run(...key, added);
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
          return {
            error: error instanceof Error ? error.message : String(error),
            code: errorCode(error),
          };
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

  const probe = sqlite.prepare(`
    insert into instance_settings (key, value) values ('report_writer_probe', ?)
    on conflict (key) do update set value = excluded.value
  `);

  /**
   * Commits one small write that changes a page (the time of this probe in `instance_settings`),
   * or throws why it cannot: a read-only file (SQLite opens a file it may not write read-only,
   * without an error, and only refuses the first write), a full disk, an I/O error. Run when
   * the thread starts and, while writes are failing, every few seconds, so /readyz turns ready
   * again once the cause is gone even if nobody submits.
   */
  function probeWrite(): void {
    probe.run(new Date().toISOString());
  }

  return { storeBatch, moveInbox, probeWrite, inboxRows: () => inboxRows };
}
