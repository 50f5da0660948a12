import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { TERMS_VERSION } from '../grouping/index.js';
import { countColumns, type OutcomeCounts } from '../issue-counts.js';

/**
 * The grouper's SQL (issues/pipeline/grouper.ts). Every function takes the transaction that assigns a
 * batch: the reports' issue, the issues' counters and the progress row commit together.
 */

/**
 * Settings of a grouper's batch transaction on PostgreSQL, local to it (SQLite: nothing). A
 * batch applies them with its lock (lockGroupingProgress `tune`); this, alone.
 *
 * - Plans by the batch, not by the table: no hash or merge join, no parallel workers. Every
 *   statement of a batch touches its thousand reports through their keys (the queue's rows in
 *   order, grouping-queue.ts, then primary keys), and that is the right plan at any size. Left
 *   to itself, PostgreSQL chose otherwise below a few hundred thousand reports, where a
 *   sequential scan looks cheaper than a thousand index probes: reading a batch scanned all of
 *   `reports`, 13 ms a batch of 1,000 at only 30,000 reports under the bench's ingest
 *   (pg_stat_statements), growing with the table, against 5.9 ms through the keys
 *   (grouping-plans.happy.test.ts).
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
  await sql`select ${BATCH_SETTINGS}`.execute(trx);
}

const BATCH_SETTINGS = sql`set_config('enable_hashjoin', 'off', true),
  set_config('enable_mergejoin', 'off', true),
  set_config('max_parallel_workers_per_gather', '0', true),
  set_config('synchronous_commit', 'off', true)`;

/**
 * Locks the progress row for the transaction, so that one grouper (of any instance) works at a
 * time and triage waits for it. On PostgreSQL the grouper skips the round when another holds
 * it (`skip locked`: undefined), triage waits (`wait: true`). SQLite transactions begin
 * IMMEDIATE (db/database.ts), which already excludes every other writer of the main connection.
 * With `tune`, the same statement applies a grouper's batch settings (tuneGroupingTransaction):
 * a round trip less a batch.
 */
export async function lockGroupingProgress(
  trx: Kysely<DB>,
  dialect: Dialect,
  { wait, tune = false }: { wait: boolean; tune?: boolean },
) {
  const postgres = dialect === 'postgres';
  const lock = postgres ? (wait ? sql`for update` : sql`for update skip locked`) : sql``;
  const settings = postgres && tune ? sql`, ${BATCH_SETTINGS}` : sql``;
  const result = await sql<{ grouped_count: number | string; issues_version: number | string }>`
    select grouped_count, issues_version ${settings} from grouping_progress where id = 'default'
    ${lock}
  `.execute(trx);
  return result.rows[0];
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
          .select([...ISSUE_STATE, 'project_id', 'tool_name', 'kind', 'near_misses'])
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

/** An issue's row as a batch reads and keeps it (a candidate's also has its near misses). */
export type IssueState = NonNullable<Awaited<ReturnType<typeof findIssueState>>>;

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
        // A report's fingerprint, read now (or none: an "unsorted" issue's).
        terms_version: TERMS_VERSION,
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
 * Counts up the issues' near misses (grouping/assign.ts, the adaptive bar) by what a batch
 * added: a few issues a batch, one statement each, under the progress row's lock.
 */
export async function addNearMisses(
  trx: Kysely<DB>,
  added: ReadonlyMap<string, number>,
): Promise<void> {
  for (const [issueId, count] of added) {
    await trx
      .updateTable('issues')
      .set((eb) => ({ near_misses: eb('near_misses', '+', count) }))
      .where('id', '=', issueId)
      .execute();
  }
}

/**
 * Whether a developer said two issues of the batch's projects are not the same problem (a
 * rejected suggestion): the engine joins no report between two of them at a lowered bar. Read
 * anew every batch (a rejection does not bump the issues version); a project has few.
 */
export async function rejectedPairsOf(
  trx: Kysely<DB>,
  projectIds: ReadonlySet<string>,
): Promise<(a: string, b: string) => boolean> {
  const rows =
    projectIds.size === 0
      ? []
      : await trx
          .selectFrom('similar_rejections')
          .select(['issue_a', 'issue_b'])
          .where('project_id', 'in', [...projectIds])
          .execute();
  // Stored smaller id first.
  const pairs = new Set(rows.map((row) => `${row.issue_a}\u0000${row.issue_b}`));
  return (a, b) => pairs.has(a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
}
