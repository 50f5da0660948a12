import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import { UNROUTED_READ } from '../db/read-routing.js';
import type { DB } from '../db/schema.js';
import { countColumns, type OutcomeCounts } from './issue-counts.js';

/**
 * The grouper's SQL (issues/grouper.ts). Every function takes the transaction that assigns a
 * batch: the reports' issue, the issues' counters and the progress row commit together.
 */

/**
 * Locks the progress row for the transaction, so that one grouper (of any instance) works at a
 * time and triage waits for it. On PostgreSQL the grouper skips the round when another holds
 * it (`skip locked`: undefined), triage waits (`wait: true`). SQLite transactions begin
 * IMMEDIATE (db/database.ts), which already excludes every other writer of the main connection.
 */
export async function lockGroupingProgress(
  trx: Kysely<DB>,
  dialect: Dialect,
  { wait }: { wait: boolean },
) {
  const lock =
    dialect === 'postgres' ? (wait ? sql`for update` : sql`for update skip locked`) : sql``;
  const result = await sql<{ grouped_count: number | string; issues_version: number | string }>`
    select grouped_count, issues_version from grouping_progress where id = 'default' ${lock}
  `.execute(trx);
  return result.rows[0];
}

/**
 * Settings of a grouper's batch transaction on PostgreSQL, local to it (SQLite: nothing).
 *
 * - Plans by the batch, not by the table: no hash or merge join, no parallel workers. Every
 *   statement of a batch touches its thousand reports through their keys (the partial index of
 *   the reports still to group, then primary keys), and that is the right plan at any size. Left
 *   to itself, PostgreSQL chose otherwise below a few hundred thousand reports, where a
 *   sequential scan looks cheaper than a thousand index probes: reading a batch scanned all of
 *   `reports`, 13 ms a batch of 1,000 at only 30,000 reports under the bench's ingest
 *   (pg_stat_statements), growing with the table, against 5.9 ms through the keys; placing it
 *   hashed every waiting row of `report_issues`, or the whole table (its cost is mostly its row
 *   writes either way, ~17-19 ms a batch under that load). A scan through the partial index also
 *   drops the entries of the reports the last batch grouped (kill_prior_tuple), which the
 *   sequential scan left for vacuum: the next read through the index walked 20,000 of them.
 * - `synchronous_commit` off: a batch's commit does not wait for its WAL to reach the disk (the
 *   WAL writer flushes it within ~0.6 s, and any durable commit after it flushes it too). What a
 *   crash of PostgreSQL can undo is whole batches, as if they had not run: their reports wait
 *   for their issue again and the next batch places them, once. Nothing committed durably can
 *   depend on an undone batch: its commit flushed the WAL, which holds the batch before it. An
 *   issue announced live by an undone batch is announced again, under a new id. (SQLite's
 *   grouping connection commits without an fsync for the same reason: grouping-worker.ts.)
 */
export async function tuneGroupingTransaction(trx: Kysely<DB>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    select set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true),
      set_config('max_parallel_workers_per_gather', '0', true),
      set_config('synchronous_commit', 'off', true)
  `.execute(trx);
}

/**
 * Counts a transaction that writes issues, under the progress row's lock (migration 0014): a
 * grouper's kept candidates (pool-cache.ts) are then read again.
 */
export async function bumpIssuesVersion(trx: Kysely<DB>): Promise<void> {
  await trx
    .updateTable('grouping_progress')
    .set((eb) => ({ issues_version: sql<number>`${eb.ref('issues_version')} + 1` }))
    .where('id', '=', 'default')
    .execute();
}

export async function advanceGroupingProgress(
  trx: Kysely<DB>,
  last: { createdAt: string; id: string },
  grouped: number,
  now: Date,
): Promise<void> {
  await trx
    .updateTable('grouping_progress')
    .set((eb) => ({
      last_created_at: last.createdAt,
      last_report_id: last.id,
      grouped_count: sql<number>`${eb.ref('grouped_count')} + ${grouped}`,
      // The batch wrote issues: counted as bumpIssuesVersion counts them.
      issues_version: sql<number>`${eb.ref('issues_version')} + 1`,
      updated_at: now.toISOString(),
    }))
    .where('id', '=', 'default')
    .execute();
}

export async function readGroupingProgress(db: Kysely<DB>) {
  return db
    .selectFrom('grouping_progress')
    .select(['last_created_at', 'last_report_id', 'grouped_count'])
    .where('id', '=', 'default')
    .executeTakeFirstOrThrow();
}

/**
 * Where a scan of the waiting reports begins: at the first entry of their partial index
 * (`all`), or (`recent`, PostgreSQL) WAITING_SCAN_SLACK_SECONDS before the last report grouped.
 *
 * Why `recent`: on PostgreSQL a grouped report's old row version keeps its entry in the partial
 * index until vacuum removes it. The index is in report order, so these entries pile up at its
 * start, ahead of every waiting report, and a scan from the start walked all of them: ~43 ms
 * (16,500 pages) with 2,000,000 grouped since the last vacuum, against 0.06 ms (12 pages) from
 * the bound (scratch table, autovacuum off; autovacuum waits for a fifth of the table by
 * default, so on a large database that is its usual state). A report stored more than the
 * slack behind the last grouped one (a commit that stalled, a clock behind another
 * instance's) is found by the next `all` scan (batch-runner.ts). SQLite removes an index entry
 * with its row: always `all`, and `all` is the only exact answer to "does any report wait?"
 */
export type WaitingScan = 'all' | 'recent';

/** How far before the last grouped report a `recent` scan begins. */
const WAITING_SCAN_SLACK_SECONDS = 10;

/** Whether `scan` starts after the index's first entry: `recent` on PostgreSQL. */
function bounded(dialect: Dialect, scan: WaitingScan): boolean {
  return scan === 'recent' && dialect === 'postgres';
}

/** Where a `recent` scan starts (PostgreSQL): one value, computed once per statement. */
const RECENT_START = sql<Date>`coalesce(
  (select last_created_at from grouping_progress where id = 'default')
    - ${sql.raw(`interval '${WAITING_SCAN_SLACK_SECONDS} seconds'`)},
  '-infinity')`;

/**
 * The next `limit` reports still to group, in report order: the entries of the partial index
 * `report_issues_ungrouped` (migration 0017), which holds only these, each with its report. A
 * walk of a few entries whatever the size of `reports`, that finds a report committed late
 * (behind a later one, on another connection or instance) as well, within `scan`. The order is
 * also what makes SQLite's planner pick that index: without it, it scanned all of
 * `report_issues_by_project_issue` (report-query-plans.test.ts).
 */
export async function listUngroupedReports(
  trx: Kysely<DB>,
  dialect: Dialect,
  limit: number,
  scan: WaitingScan,
) {
  return trx
    .selectFrom('report_issues')
    .innerJoin('reports', 'reports.id', 'report_issues.report_id')
    .where('report_issues.issue_id', 'is', null)
    .$if(bounded(dialect, scan), (q) => q.where('report_issues.created_at', '>=', RECENT_START))
    .orderBy('report_issues.created_at', 'asc')
    .orderBy('report_issues.report_id', 'asc')
    .select([
      'reports.id',
      'reports.project_id',
      'reports.outcome',
      'reports.tool_name',
      'reports.details',
      'reports.created_at',
    ])
    .limit(limit)
    .execute();
}

/**
 * Whether any stored report waits for its issue, within `scan`: one entry of the partial index
 * of the waiting reports, in its order (which makes SQLite use it). Asked by the report writer
 * before it groups arriving reports (in its transaction, `all`), and by a grouper before it
 * takes its lock (batch-runner.ts), on its own connection (UNROUTED_READ): it has passed the
 * writer's barrier already, and an in-process grouper's probe would otherwise start a reader
 * process of a server nobody reads from. A report's row there is written with the report.
 */
export async function anyReportWaiting(
  db: Kysely<DB>,
  dialect: Dialect,
  scan: WaitingScan,
): Promise<boolean> {
  const { rows } = await sql`
    ${UNROUTED_READ} select report_id from report_issues where issue_id is null
    ${bounded(dialect, scan) ? sql`and created_at >= ${RECENT_START}` : sql``}
    order by created_at, report_id limit 1
  `.execute(db);
  return rows.length > 0;
}

export type UngroupedReport = Awaited<ReturnType<typeof listUngroupedReports>>[number];

const ISSUE_STATE = [
  'id',
  'signature',
  'status',
  'first_seen',
  'last_seen',
  'count_success',
  'count_failure',
  'count_confusing',
  'count_gave_up',
  'count_request',
] as const;

export interface PoolKey {
  projectId: string;
  toolName: string | null;
  kind: string;
}

/**
 * The bounded candidates of every (project, tool, kind) of a batch, in one round trip: per
 * key, its `limit` most recently seen issues (an index seek with a limit each, joined by
 * `union all`), so the cost per report stays bounded however many issues a tool has.
 */
export async function listCandidateIssues(
  trx: Kysely<DB>,
  keys: readonly PoolKey[],
  limit: number,
) {
  const parts = keys.map((key, i) =>
    trx
      .selectFrom(
        trx
          .selectFrom('issues')
          .select([...ISSUE_STATE, 'project_id', 'tool_name', 'kind'])
          .where('project_id', '=', key.projectId)
          .where('tool_name', key.toolName === null ? 'is' : '=', key.toolName)
          .where('kind', '=', key.kind)
          .orderBy('last_seen', 'desc')
          .limit(limit)
          .as(`c${i}`),
      )
      .selectAll(),
  );
  const [first, ...rest] = parts;
  if (!first) return [];
  return rest.reduce((q, part) => q.unionAll(part), first).execute();
}

export type IssueState = Awaited<ReturnType<typeof listCandidateIssues>>[number];

export async function findIssueState(trx: Kysely<DB>, issueId: string) {
  return trx
    .selectFrom('issues')
    .select([...ISSUE_STATE, 'project_id', 'tool_name', 'kind'])
    .where('id', '=', issueId)
    .executeTakeFirst();
}

/** Moves remembered for each key of a batch, newest first, `limit` per key; one round trip. */
export async function listPinnedExemplars(
  trx: Kysely<DB>,
  keys: readonly PoolKey[],
  limit: number,
) {
  const parts = keys.map((key, i) =>
    trx
      .selectFrom(
        trx
          .selectFrom('issue_exemplars')
          .select(['issue_id', 'signature', 'project_id', 'tool_name', 'kind'])
          .where('project_id', '=', key.projectId)
          .where('tool_name', key.toolName === null ? 'is' : '=', key.toolName)
          .where('kind', '=', key.kind)
          .orderBy('created_at', 'desc')
          .limit(limit)
          .as(`p${i}`),
      )
      .selectAll(),
  );
  const [first, ...rest] = parts;
  if (!first) return [];
  return rest.reduce((q, part) => q.unionAll(part), first).execute();
}

export interface NewIssue {
  id: string;
  projectId: string;
  title: string;
  toolName: string | null;
  kind: string;
  outcome: string;
  signature: string;
  firstSeen: string;
  now: string;
}

export async function insertIssue(trx: Kysely<DB>, issue: NewIssue): Promise<void> {
  await insertIssues(trx, [issue]);
}

/** New issues, open and with no reports yet, in one statement. */
export async function insertIssues(trx: Kysely<DB>, issues: readonly NewIssue[]): Promise<void> {
  if (issues.length === 0) return;
  await trx
    .insertInto('issues')
    .values(
      issues.map((issue) => ({
        id: issue.id,
        project_id: issue.projectId,
        status: 'open',
        regressed_at: null,
        resolved_at: null,
        title: issue.title,
        tool_name: issue.toolName,
        kind: issue.kind,
        signature: issue.signature,
        outcome: issue.outcome,
        report_count: 0,
        count_success: 0,
        count_failure: 0,
        count_confusing: 0,
        count_gave_up: 0,
        count_request: 0,
        sample_details: '',
        first_seen: issue.firstSeen,
        last_seen: issue.firstSeen,
        note: null,
        created_at: issue.now,
        updated_at: issue.now,
      })),
    )
    .execute();
}

/** An issue's state after a batch, computed by the grouper from what it read under the lock. */
export interface IssueUpdate {
  issueId: string;
  counts: OutcomeCounts;
  outcome: string;
  firstSeen: string;
  lastSeen: string;
  sampleDetails: string;
  signature: string;
  /** Set when a report reopened a resolved issue. */
  regressedAt: string | null;
}

/**
 * Writes every issue a batch touched in one statement (`update … from (values …)`, which both
 * dialects read, the VALUES columns being column1, column2 …): a round trip per batch instead
 * of one per issue. Absolute values are safe: nothing else writes an issue while the lock is
 * held.
 */
export async function updateGroupedIssues(
  trx: Kysely<DB>,
  dialect: Dialect,
  updates: IssueUpdate[],
  now: Date,
): Promise<void> {
  if (updates.length === 0) return;
  const ts = dialect === 'postgres' ? sql.raw('timestamptz') : sql.raw('text');
  const rows = updates.map((u) => {
    const c = countColumns(u.counts);
    return sql`(${u.issueId}, ${c.report_count}, ${c.count_success}, ${c.count_failure},
      ${c.count_confusing}, ${c.count_gave_up}, ${c.count_request}, ${u.outcome}, ${u.firstSeen},
      ${u.lastSeen}, ${u.sampleDetails}, ${u.signature}, ${u.regressedAt})`;
  });
  await sql`
    update issues set
      report_count = cast(v.column2 as integer),
      count_success = cast(v.column3 as integer),
      count_failure = cast(v.column4 as integer),
      count_confusing = cast(v.column5 as integer),
      count_gave_up = cast(v.column6 as integer),
      count_request = cast(v.column7 as integer),
      outcome = v.column8,
      first_seen = cast(v.column9 as ${ts}),
      last_seen = cast(v.column10 as ${ts}),
      sample_details = v.column11,
      signature = v.column12,
      updated_at = cast(${now.toISOString()} as ${ts}),
      status = case when v.column13 is null then issues.status else 'open' end,
      regressed_at = coalesce(cast(v.column13 as ${ts}), issues.regressed_at),
      resolved_at = case when v.column13 is null then issues.resolved_at else null end
    from (values ${sql.join(rows)}) as v
    where issues.id = v.column1
  `.execute(trx);
}

/**
 * Places a batch's reports in their issues, with the engine's reason for each, in one
 * statement: their narrow `report_issues` rows, never the reports' own (migration 0017).
 * A report is placed only while it has no issue, so never twice; written `coalesce(issue_id,
 * '') = ''` (no issue id is empty) rather than `issue_id is null`, which lets PostgreSQL drive
 * the join from the partial index of waiting reports: when its statistics lag (waiting reports
 * piling up behind autoanalyze) it walked every waiting report and rescanned the batch for
 * each, 17 s a batch with 80,000 waiting against 12 ms by key (grouping-plans.happy.test.ts).
 * By key, under the bench's ingest, the update costs PostgreSQL ~23 µs a report: a new version
 * of the row and two index entries (`issue_id` is indexed, so the update is never HOT).
 *
 * On PostgreSQL the batch travels as three arrays (`unnest`): three parameters, where a VALUES
 * list of a 1,000-report batch had 3,000, each built by Kysely, sent by pg and parsed and
 * planned by PostgreSQL on every batch. SQLite has no arrays: a VALUES list.
 */
export async function setReportsIssues(
  trx: Kysely<DB>,
  dialect: Dialect,
  placements: { reportId: string; issueId: string; reason: string }[],
): Promise<void> {
  if (placements.length === 0) return;
  const batch =
    dialect === 'postgres'
      ? sql`unnest(${placements.map((p) => p.reportId)}::text[],
          ${placements.map((p) => p.issueId)}::text[],
          ${placements.map((p) => p.reason)}::text[]) as v(column1, column2, column3)`
      : sql`(values ${sql.join(placements.map((p) => sql`(${p.reportId}, ${p.issueId}, ${p.reason})`))}) as v`;
  await sql`
    update report_issues set issue_id = v.column2, issue_reason = v.column3
    from ${batch}
    where report_issues.report_id = v.column1 and coalesce(report_issues.issue_id, '') = ''
  `.execute(trx);
}
