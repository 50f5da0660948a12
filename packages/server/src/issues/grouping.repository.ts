import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
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
  const result = await sql<{ grouped_count: number | string }>`
    select grouped_count from grouping_progress where id = 'default' ${lock}
  `.execute(trx);
  return result.rows[0];
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
 * The reports still to group, in report order. The partial index `reports_ungrouped` holds
 * only these, so this is a walk of a few entries whatever the size of `reports`; and a report
 * committed late (behind a later one, on another connection or instance) is found as well.
 */
export async function listUngroupedReports(trx: Kysely<DB>, limit: number) {
  return trx
    .selectFrom('reports')
    .select([
      'id',
      'project_id',
      'outcome',
      'tool_name',
      'source',
      'details',
      'metadata',
      'created_at',
    ])
    .where('issue_id', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
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

/** The bounded candidates of a report: same project, tool and kind, most recently seen first. */
export async function listCandidateIssues(
  trx: Kysely<DB>,
  key: { projectId: string; toolName: string | null; kind: string },
  limit: number,
) {
  return trx
    .selectFrom('issues')
    .select(ISSUE_STATE)
    .where('project_id', '=', key.projectId)
    .where('tool_name', key.toolName === null ? 'is' : '=', key.toolName)
    .where('kind', '=', key.kind)
    .orderBy('last_seen', 'desc')
    .limit(limit)
    .execute();
}

export type IssueState = Awaited<ReturnType<typeof listCandidateIssues>>[number];

export async function findIssueState(trx: Kysely<DB>, issueId: string) {
  return trx.selectFrom('issues').select(ISSUE_STATE).where('id', '=', issueId).executeTakeFirst();
}

/** Moves remembered for the tool and kind, newest first. */
export async function listPinnedExemplars(
  trx: Kysely<DB>,
  key: { projectId: string; toolName: string | null; kind: string },
  limit: number,
) {
  return trx
    .selectFrom('issue_exemplars')
    .select(['issue_id', 'signature'])
    .where('project_id', '=', key.projectId)
    .where('tool_name', key.toolName === null ? 'is' : '=', key.toolName)
    .where('kind', '=', key.kind)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
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
  await trx
    .insertInto('issues')
    .values({
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
    })
    .execute();
}

/**
 * An issue's state after a batch, computed by the grouper from what it read under the lock:
 * nothing else writes an issue while the lock is held, so absolute values are safe.
 */
export interface IssueUpdate {
  counts: OutcomeCounts;
  outcome: string;
  firstSeen: string;
  lastSeen: string;
  sampleDetails: string;
  signature: string;
  /** Set when a report reopened a resolved issue. */
  regressedAt: string | null;
}

export async function updateGroupedIssue(
  trx: Kysely<DB>,
  issueId: string,
  update: IssueUpdate,
  now: Date,
): Promise<void> {
  const { counts } = update;
  await trx
    .updateTable('issues')
    .set({
      ...countColumns(counts),
      outcome: update.outcome,
      first_seen: update.firstSeen,
      last_seen: update.lastSeen,
      sample_details: update.sampleDetails,
      signature: update.signature,
      updated_at: now.toISOString(),
      ...(update.regressedAt
        ? { status: 'open', regressed_at: update.regressedAt, resolved_at: null }
        : {}),
    })
    .where('id', '=', issueId)
    .execute();
}

/** Places reports in an issue, with the engine's reason for each group of them. */
export async function setReportsIssue(
  trx: Kysely<DB>,
  issueId: string,
  reason: string,
  reportIds: string[],
): Promise<void> {
  // Bounded by the batch size, well under both dialects' limits on bound parameters.
  await trx
    .updateTable('reports')
    .set({ issue_id: issueId, issue_reason: reason })
    .where('id', 'in', reportIds)
    .where('issue_id', 'is', null)
    .execute();
}
