import { type Kysely, sql } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { iso } from '../db/wire-timestamp.js';
import { withIssue } from '../reports/report.repository.js';
import { TERMS_VERSION } from './grouping/index.js';
import { countColumns, type OutcomeCounts } from './issue-counts.js';
import {
  addIssueDays,
  deleteIssueDays,
  IssueDayTally,
  moveIssueDays,
} from './issue-days.repository.js';

/** The SQL of triage and of the issue reads (issues/issue.service.ts). */

export const ISSUE_COLUMNS = [
  'id',
  'project_id',
  'status',
  'regressed_at',
  'resolved_at',
  'title',
  'tool_name',
  'kind',
  'outcome',
  'report_count',
  'count_success',
  'count_failure',
  'count_confusing',
  'count_gave_up',
  'count_request',
  'sample_details',
  'first_seen',
  'last_seen',
  'note',
  'agent_note',
  'created_at',
  'updated_at',
] as const;

/**
 * The columns an issue's summary shows (issue-wire.ts toIssueSummary): what the list, the
 * range list and the `issue` events read. Reading all of ISSUE_COLUMNS for 50 issues costs ~10 µs
 * an issue on SQLite's event loop, half of the Issues view's server CPU (CPU profile).
 */
export const SUMMARY_COLUMNS = [
  'id',
  'title',
  'status',
  'regressed_at',
  'outcome',
  'tool_name',
  'report_count',
  'first_seen',
  'last_seen',
  'sample_details',
] as const;

export interface IssueFilters {
  /** undefined: every status. */
  status?: string;
  outcome?: string;
  /** problem | request | success */
  kind?: string;
  toolName?: string;
  /** Text the title contains, case-insensitively, read as the dialect reads it (titleMatch). */
  title?: { contains: string; dialect: Dialect };
}

export type IssueSort = 'last_seen' | 'first_seen' | 'count';

/** Which filters a list or count has, and its order: what makes its SQL text. */
interface ListShape {
  status: boolean;
  outcome: boolean;
  kind: boolean;
  toolName: boolean;
  /** The title search's SQL differs by dialect (titleMatch). */
  title: Dialect | null;
  sort: IssueSort;
}

interface ListParams extends Record<string, unknown> {
  projectId: string;
  status: string | null;
  outcome: string | null;
  kind: string | null;
  toolName: string | null;
  titlePattern: string | null;
  limit: number;
  offset: number;
}

/**
 * A LIKE pattern for titles containing `text`, ignoring case: its `%`, `_` and backslashes
 * taken literally, and lower-cased as titleMatch lower-cases the titles.
 */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Titles matching a containsPattern, ignoring case by Unicode's rules on both dialects:
 * PostgreSQL's `lower()`, and on SQLite `debrief_fold()`, which every connection has
 * (db/sqlite-connection.ts), since SQLite's own folds ASCII letters only. A scan of the
 * project's issues, which the list reads anyway.
 */
export function titleMatch(dialect: Dialect, column: 'title' | 'issues.title', pattern: string) {
  return dialect === 'postgres'
    ? sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`
    : sql<boolean>`debrief_fold(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

function filtered(db: Kysely<DB>, shape: ListShape, p: ListParams) {
  let q = db.selectFrom('issues').where('project_id', '=', p.projectId);
  if (shape.status) q = q.where('status', '=', p.status);
  if (shape.outcome) q = q.where('outcome', '=', p.outcome);
  if (shape.kind) q = q.where('kind', '=', p.kind);
  if (shape.toolName) q = q.where('tool_name', '=', p.toolName);
  if (shape.title) q = q.where(titleMatch(shape.title, 'title', p.titlePattern ?? ''));
  return q;
}

/** The Issues view's two statements, compiled once per shape (db/compiled-shapes.ts). */
const listQuery = compiledShapes((db: Kysely<DB>, shape: ListShape, p: ListParams) =>
  filtered(db, shape, p)
    .select(SUMMARY_COLUMNS)
    .orderBy(shape.sort === 'count' ? 'report_count' : shape.sort, 'desc')
    .orderBy('id', 'desc')
    .limit(p.limit)
    .offset(p.offset),
);
const countQuery = compiledShapes((db: Kysely<DB>, shape: ListShape, p: ListParams) =>
  filtered(db, shape, p).select((eb) => eb.fn.countAll<number | string>().as('n')),
);

function listArgs(
  projectId: string,
  filters: IssueFilters,
  sort: IssueSort,
  page: { offset: number; limit: number },
): [ListShape, ListParams] {
  return [
    {
      status: filters.status !== undefined,
      outcome: filters.outcome !== undefined,
      kind: filters.kind !== undefined,
      toolName: filters.toolName !== undefined,
      title: filters.title?.dialect ?? null,
      sort,
    },
    {
      projectId,
      status: filters.status ?? null,
      outcome: filters.outcome ?? null,
      kind: filters.kind ?? null,
      toolName: filters.toolName ?? null,
      titlePattern: filters.title ? containsPattern(filters.title.contains) : null,
      ...page,
    },
  ];
}

export async function listIssuesPage(
  db: Kysely<DB>,
  projectId: string,
  filters: IssueFilters,
  sort: IssueSort,
  page: { offset: number; limit: number },
) {
  const [shape, params] = listArgs(projectId, filters, sort, page);
  return (await db.executeQuery(listQuery(db, shape, params))).rows;
}

/** An issue as the list and its events show it (SUMMARY_COLUMNS). */
export type IssueRow = Awaited<ReturnType<typeof listIssueRowsByIds>>[number];

export async function countIssues(
  db: Kysely<DB>,
  projectId: string,
  filters: IssueFilters,
): Promise<number> {
  // The order is no part of a count: one shape per filter set.
  const [shape, params] = listArgs(projectId, filters, 'last_seen', { offset: 0, limit: 0 });
  const { rows } = await db.executeQuery(countQuery(db, shape, params));
  return Number(rows[0]?.n ?? 0);
}

export async function findIssue(db: Kysely<DB>, projectId: string, issueId: string) {
  return db
    .selectFrom('issues')
    .select([...ISSUE_COLUMNS, 'signature', 'terms_version'])
    .where('project_id', '=', projectId)
    .where('id', '=', issueId)
    .executeTakeFirst();
}

export async function listIssueRowsByIds(db: Kysely<DB>, ids: string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('issues').select(SUMMARY_COLUMNS).where('id', 'in', ids).execute();
}

/**
 * An issue's reports: its entries of `report_issues` (migration 0017), seeked by (project_id,
 * issue_id), each joined to its report by key.
 */
export function issueReports(db: Kysely<DB>, projectId: string, issueId: string) {
  return db
    .selectFrom('report_issues')
    .innerJoin('reports', 'reports.id', 'report_issues.report_id')
    .where('report_issues.project_id', '=', projectId)
    .where('report_issues.issue_id', '=', issueId);
}

export async function updateIssueFields(
  trx: Kysely<DB>,
  issueId: string,
  fields: {
    status?: string;
    resolvedAt?: string | null;
    note?: string | null;
    title?: string;
    agentNote?: string | null;
    now: Date;
  },
): Promise<void> {
  await trx
    .updateTable('issues')
    .set({
      ...(fields.status !== undefined ? { status: fields.status } : {}),
      ...(fields.title !== undefined ? { title: fields.title } : {}),
      ...(fields.resolvedAt !== undefined ? { resolved_at: fields.resolvedAt } : {}),
      ...(fields.note !== undefined ? { note: fields.note } : {}),
      ...(fields.agentNote !== undefined ? { agent_note: fields.agentNote } : {}),
      updated_at: fields.now.toISOString(),
    })
    .where('id', '=', issueId)
    .execute();
}

/**
 * Every report of `fromId` joins `intoId`, with its days (issue-days.repository.ts), and the
 * moves remembered for it follow.
 */
export async function moveIssueMembers(
  trx: Kysely<DB>,
  projectId: string,
  fromId: string,
  intoId: string,
): Promise<void> {
  await trx
    .updateTable('report_issues')
    .set({ issue_id: intoId, issue_reason: 'merged by a developer' })
    .where('project_id', '=', projectId)
    .where('issue_id', '=', fromId)
    .execute();
  await moveIssueDays(trx, fromId, intoId);
  await trx
    .updateTable('issue_exemplars')
    .set({ issue_id: intoId })
    .where('issue_id', '=', fromId)
    .execute();
}

/** Deletes an issue that has no report left (merged away, or its last report moved out). */
export async function deleteIssue(trx: Kysely<DB>, issueId: string): Promise<void> {
  await deleteIssueDays(trx, issueId);
  await trx.deleteFrom('issue_exemplars').where('issue_id', '=', issueId).execute();
  await trx.deleteFrom('issues').where('id', '=', issueId).execute();
}

/**
 * An issue's counters, times and sample recomputed from its reports (after a merge or a move,
 * which take reports from one issue to another). Returns null when it has no report left.
 */
export async function recountIssue(
  trx: Kysely<DB>,
  projectId: string,
  issueId: string,
  now: Date,
): Promise<OutcomeCounts | null> {
  const rows = await issueReports(trx, projectId, issueId)
    .select((eb) => [
      'reports.outcome',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.min('report_issues.created_at').as('first'),
      eb.fn.max('report_issues.created_at').as('last'),
    ])
    .groupBy('reports.outcome')
    .execute();
  if (rows.length === 0) return null;
  const counts: OutcomeCounts = { success: 0, failure: 0, confusing: 0, gave_up: 0, request: 0 };
  let first = '';
  let last = '';
  for (const row of rows) {
    counts[row.outcome as keyof OutcomeCounts] = Number(row.n);
    const f = new Date(row.first as string | Date).toISOString();
    const l = new Date(row.last as string | Date).toISOString();
    if (first === '' || f < first) first = f;
    if (l > last) last = l;
  }
  const latest = await issueReports(trx, projectId, issueId)
    .select('reports.details')
    .orderBy('report_issues.created_at', 'desc')
    .orderBy('report_issues.report_id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('issues')
    .set({
      ...countColumns(counts),
      first_seen: first,
      last_seen: last,
      sample_details: latest.details.slice(0, 280),
      updated_at: now.toISOString(),
    })
    .where('id', '=', issueId)
    .execute();
  return counts;
}

export async function setIssueOutcome(trx: Kysely<DB>, issueId: string, outcome: string) {
  await trx.updateTable('issues').set({ outcome }).where('id', '=', issueId).execute();
}

/** The issue's signature (serialised), what the grouper compares new reports with. */
/**
 * Sets an issue's signature; with `termsVersion`, the engine's TERMS_VERSION it now holds terms
 * of (the oldest of the signatures it was made from: an older one makes it stale).
 */
export async function setIssueSignature(
  trx: Kysely<DB>,
  issueId: string,
  signature: string,
  termsVersion?: number,
) {
  await trx
    .updateTable('issues')
    .set(termsVersion === undefined ? { signature } : { signature, terms_version: termsVersion })
    .where('id', '=', issueId)
    .execute();
}

export async function findReportOfProject(db: Kysely<DB>, projectId: string, reportId: string) {
  return withIssue(db)
    .select([
      'reports.id',
      'reports.project_id',
      'reports.created_at',
      'report_issues.issue_id',
      'reports.outcome',
      'reports.tool_name',
      'reports.source',
      'reports.details',
      'reports.metadata',
    ])
    .where('reports.project_id', '=', projectId)
    .where('reports.id', '=', reportId)
    .executeTakeFirst();
}

/**
 * Puts a report in an issue: its row of `report_issues`, inserted if the grouper has not placed
 * it yet (it then skips it: grouping-queue.ts), else updated; its day counted in its new issue
 * and out of `report.issue_id`, the one it had.
 */
export async function setReportIssue(
  trx: Kysely<DB>,
  report: { id: string; project_id: string; created_at: string | Date; issue_id: string | null },
  issueId: string,
  reason: string,
): Promise<void> {
  await trx
    .insertInto('report_issues')
    .values({
      report_id: report.id,
      project_id: report.project_id,
      created_at: iso(report.created_at),
      issue_id: issueId,
      issue_reason: reason,
    })
    .onConflict((oc) =>
      oc.column('report_id').doUpdateSet({ issue_id: issueId, issue_reason: reason }),
    )
    .execute();
  const days = new IssueDayTally();
  days.add(issueId, report.project_id, report.created_at);
  if (report.issue_id) days.add(report.issue_id, report.project_id, report.created_at, -1);
  await addIssueDays(trx, days);
}

export async function insertExemplar(
  trx: Kysely<DB>,
  row: {
    id: string;
    projectId: string;
    issueId: string;
    toolName: string | null;
    kind: string;
    signature: string;
    reportId: string;
    now: Date;
  },
): Promise<void> {
  await trx
    .insertInto('issue_exemplars')
    .values({
      id: row.id,
      project_id: row.projectId,
      issue_id: row.issueId,
      tool_name: row.toolName,
      kind: row.kind,
      signature: row.signature,
      // A report's fingerprint, read now.
      terms_version: TERMS_VERSION,
      report_id: row.reportId,
      created_at: row.now.toISOString(),
    })
    .execute();
}
