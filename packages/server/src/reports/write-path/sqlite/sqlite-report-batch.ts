import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { queueRowsInsertSql } from '../../../db/grouping-queue-row.js';
import type { DB } from '../../../db/schema.js';
import { errorCode } from '../../../errors/storage-fault.js';
import type { StorageDefaults } from '../../../limits/storage-limits.js';
import type { ArrivalGrouper, IssueChange, ReportToGroup } from '../arrival-grouper.js';
import type { Statement } from '../batch-statements.js';
import { type Row, runSync, storeBatchSteps } from '../batch-steps.js';
import type { QuotaCrossingHook } from '../quota-crossing-port.js';
import { quotaHandOver } from '../quota-hand-over.js';
import type { ReportSubmission, SubmissionOutcome } from '../report-writer.js';
import { InboxMirror } from './inbox-mirror.js';
import type { BatchResult } from './sqlite-thread-messages.js';

/**
 * Reports per transaction when the move groups them (~12–14 µs a report for the engine and the
 * writes, so ~6–7 ms a chunk): store batches run between two, so a 201 waits for one chunk at
 * most. Each commit rewrites the right-edge pages of the indexes of `reports`, and a chunk has
 * fixed work (reading its ids, the progress row, the issues' update, ~1.5 ms), so smaller chunks
 * cost more a report. Writer scratch (60,000 reports): the move 18, 17, 14 and 12.5 µs a report
 * at 125, 250, 500 and 1,000. Interleaved A/B of ingest (6 rounds): 500 against
 * 250 the same p99 (12 ms; 11 without grouping) and ~5 µs less of the server's CPU a request;
 * 1,000 made p99 18 ms.
 */
const GROUPED_MOVE_ROWS = 500;

/** Reports of the inbox (rowids first to last) placed alike: same issue, same reason. */
interface Run {
  first: number;
  last: number;
  issueId: string;
  reason: string;
}

/** Statements kept compiled: one text per statement of the write path (batch-statements.ts). */
const STATEMENT_CACHE_SIZE = 64;

/**
 * The SQLite back end's work, synchronous on its own connection (it runs in the writer thread,
 * sqlite-writer-thread.ts): the steps every back end runs (batch-steps.ts: key lookup, counters
 * read, plan-batch.ts, insert, counter upserts), a whole batch in one transaction, the counters
 * added up in memory and written once per batch and row, so the insert is the only statement
 * per report.
 *
 * The insert goes to `report_inbox` (migration 0005), with no index but its primary key;
 * `moveInbox` moves the inbox into `reports` in one statement, many reports at a time: the
 * indexes of `reports` then cost their page writes once per move instead of once per commit.
 * Until moved, a report is committed (durable, counted, in the counters) but not in
 * `reports`, so the server's readers ask the writer to move the inbox first
 * (ReportWriter.flush). With a `grouper` (ISSUE_GROUPING on) the move gives each report its
 * issue as it inserts it, a chunk at a time (moveGroupedChunk).
 */
export function createSqliteReportBatch(
  sqlite: SQLite.Database,
  defaults: StorageDefaults,
  grouper: ArrivalGrouper | null = null,
  /** The quota crossings' hook, with Kysely over this connection for it to write with. */
  quotaCrossings: { hook: QuotaCrossingHook; db: Kysely<DB> } | null = null,
) {
  const statements = new Map<string, SQLite.Statement>();
  function execute({ sql, parameters, returnsRows }: Statement): Row[] {
    let prepared = statements.get(sql);
    if (!prepared) {
      prepared = sqlite.prepare(sql);
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statements.set(sql, prepared);
    }
    if (returnsRows) return prepared.all(...parameters) as Row[];
    prepared.run(...parameters);
    return [];
  }
  const options = { dialect: 'sqlite', reportTable: 'report_inbox', defaults } as const;
  const quota = quotaHandOver(quotaCrossings?.hook ?? null);
  const begin = sqlite.prepare('begin immediate');
  const commit = sqlite.prepare('commit');
  const rollback = sqlite.prepare('rollback');
  /**
   * One batch in one transaction, begun IMMEDIATE. Its statements run synchronously; only a batch
   * that passes a quota mark awaits the hook, over Kysely on this same connection, whose awaits
   * are all microtasks here (better-sqlite3): no message of the thread comes in between.
   */
  async function inTransaction(submissions: ReportSubmission[]): Promise<SubmissionOutcome[]> {
    begin.run();
    let handed: Awaited<ReturnType<typeof quota.inTransaction>>;
    let outcomes: SubmissionOutcome[];
    try {
      const batch = runSync(storeBatchSteps(submissions, options), execute);
      outcomes = batch.outcomes;
      handed =
        batch.crossings.length > 0 && quotaCrossings
          ? await quota.inTransaction(quotaCrossings.db, batch.crossings)
          : [];
      commit.run();
    } catch (error) {
      if (sqlite.inTransaction) rollback.run();
      throw error;
    }
    quota.committed(handed);
    return outcomes;
  }

  // The inbox's reports up to a rowid, in the order they were stored, without an issue: all of
  // them (moveInbox), or a chunk the grouper left to the background grouper (moveGroupedChunk).
  const moveUpTo = sqlite.prepare(`
    insert into reports
      (id, project_id, outcome, tool_name, source, details, metadata, created_at, redactions)
    select id, project_id, outcome, tool_name, source, details, metadata, created_at, redactions
    from report_inbox where rowid <= ? order by rowid
  `);
  // Queued for the background grouper, in the order they were stored (db/grouping-queue-row.ts).
  const queueUpTo = sqlite.prepare(
    queueRowsInsertSql('sqlite', {
      id: 'id',
      source: 'from report_inbox where rowid <= ?',
      order: 'rowid',
    }),
  );
  const emptyUpTo = sqlite.prepare('delete from report_inbox where rowid <= ?');
  const moveUngrouped = (last: number | bigint) => {
    moveUpTo.run(last);
    queueUpTo.run(last);
  };
  /** Above every rowid SQLite can give. */
  const LAST_ROWID = 9_223_372_036_854_775_807n;
  const move = sqlite.transaction(() => {
    moveUngrouped(LAST_ROWID);
    emptyUpTo.run(LAST_ROWID);
  });
  // The inbox as the grouped move reads it, from memory, checked against the chunk's ids.
  const mirror = grouper ? new InboxMirror() : null;
  // Reports committed to the inbox and not moved yet, including any a stopped server left.
  let inboxRows = (sqlite.prepare('select count(*) as n from report_inbox').get() as { n: number })
    .n;

  /**
   * Stores a batch in ONE transaction: one commit, so one fsync of the WAL, for all of it (group
   * commit), with what its quota crossings' hook writes. IMMEDIATE takes the write lock at BEGIN
   * (waiting, busy_timeout, while the main connection holds it), so the usage read at the start
   * of the batch stays current to its end.
   * Submissions run in order, each counting against the quota after the ones before it. If
   * anything fails, the batch is rolled back and each submission is run again in its own
   * transaction, so an error reaches only its own submitter.
   */
  async function storeBatch(submissions: ReportSubmission[]): Promise<BatchResult[]> {
    let results: BatchResult[];
    try {
      results = (await inTransaction(submissions)).map((outcome) => ({ outcome }));
    } catch {
      results = [];
      for (const submission of submissions) {
        try {
          results.push({ outcome: (await inTransaction([submission]))[0]! });
        } catch (error) {
          results.push({
            error: error instanceof Error ? error.message : String(error),
            code: errorCode(error),
          });
        }
      }
    }
    const stored: ReportToGroup[] = [];
    results.forEach((result, i) => {
      if (!('outcome' in result) || result.outcome.status !== 'stored') return;
      inboxRows++;
      if (!mirror) return;
      const { report } = submissions[i]!;
      stored.push({
        id: report.id,
        project_id: result.outcome.projectId,
        outcome: report.outcome,
        tool_name: report.toolName,
        details: report.details,
        // As insertReports stores it.
        created_at: report.createdAt.toISOString(),
      });
    });
    mirror?.append(stored);
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
    mirror?.clear();
  }

  const selectChunkIds = sqlite
    .prepare(`select rowid, id from report_inbox order by rowid limit ${GROUPED_MOVE_ROWS}`)
    .raw(true);
  const selectChunk = sqlite.prepare(`
    select id, project_id, outcome, tool_name, details, created_at
    from report_inbox order by rowid limit ${GROUPED_MOVE_ROWS}
  `);
  // The chunk's reports, then their rows of `report_issues` (migration 0017), one statement
  // each. The placements are bound as runs: (first and last inbox rowid, issue, reason) for
  // consecutive reports placed alike, each run joined to its range of the inbox (every inbox
  // row in it is one of the run's: the chunk is the inbox's first rows, in rowid order). Agents
  // repeat themselves, so a chunk under load is a few runs (the bench's one body: one), where a
  // bound row per report with its reason's text costs ~1.5–2 µs a report more (writer scratch,
  // 60,000 reports, 3 rounds each). The other ways measured, in 500-report chunks: an
  // insert … select per report ~45 µs each, the placements as one JSON array through json_each
  // ~20 µs (extracting the reasons is most of it), a bound row per report ~9 µs, where the move
  // without issues costs ~7.
  const insertRunsBySize = new Map<number, SQLite.Statement>();
  function insertGrouped(last: number, runs: Run[]): void {
    // Padded to a power of two with empty runs, so that a few statements serve every chunk.
    let size = 1;
    while (size < runs.length) size *= 2;
    let statement = insertRunsBySize.get(size);
    if (!statement) {
      const rows = Array.from({ length: size }, () => '(?, ?, ?, ?)').join(', ');
      statement = sqlite.prepare(`
        insert into report_issues (report_id, project_id, created_at, issue_id, issue_reason)
        select i.id, i.project_id, i.created_at, p.column3, p.column4
        from (values ${rows}) as p
        cross join report_inbox as i on i.rowid between p.column1 and p.column2
      `);
      insertRunsBySize.set(size, statement);
    }
    const parameters: (string | number | null)[] = [];
    for (const run of runs) parameters.push(run.first, run.last, run.issueId, run.reason);
    for (let i = runs.length; i < size; i++) parameters.push(0, -1, null, null);
    moveUpTo.run(last);
    statement.run(parameters);
  }
  /**
   * Moves the oldest reports of the inbox (at most GROUPED_MOVE_ROWS) into `reports`, each
   * inserted with its issue (the thread's ArrivalGrouper: arrival-grouper.ts), in one transaction;
   * inserted without one, for the background grouper, while older reports wait for it. Returns
   * the issues to announce. Throws (and moves nothing) if it fails: moveInbox then moves them
   * without grouping. Only with a grouper (ISSUE_GROUPING on). The reports come from the mirror
   * of what storeBatch stored (inbox-mirror.ts) when it holds the chunk, else from the file.
   */
  async function moveGroupedChunk(): Promise<IssueChange[]> {
    if (!grouper) throw new Error('This writer does not group reports (ISSUE_GROUPING=off).');
    const moved = await grouper.transaction(async (_trx, group) => {
      const chunk = selectChunkIds.all() as [number, string][];
      const last = chunk.at(-1)?.[0];
      if (last === undefined) return { ids: [], changes: [] };
      const ids = chunk.map(([, id]) => id);
      const rows = mirror?.take(ids) ?? (selectChunk.all() as ReportToGroup[]);
      const arrivals = await group(rows);
      if (arrivals) {
        const runs: Run[] = [];
        rows.forEach((row, i) => {
          const placed = arrivals.placements[i];
          if (placed?.reportId !== row.id) throw new Error('Arrivals placed out of order.');
          const rowid = chunk[i]![0];
          const run = runs.at(-1);
          if (run && run.issueId === placed.issueId && run.reason === placed.reason)
            run.last = rowid;
          else
            runs.push({
              first: rowid,
              last: rowid,
              issueId: placed.issueId,
              reason: placed.reason,
            });
        });
        insertGrouped(last, runs);
      } else moveUngrouped(last);
      emptyUpTo.run(last);
      return { ids, changes: arrivals?.changes ?? [] };
    });
    mirror?.moved(moved.ids);
    // An empty chunk means an empty inbox, whatever the count said: the move loop ends.
    inboxRows = moved.ids.length === 0 ? 0 : Math.max(0, inboxRows - moved.ids.length);
    return moved.changes;
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

  return { storeBatch, moveInbox, moveGroupedChunk, probeWrite, inboxRows: () => inboxRows };
}
