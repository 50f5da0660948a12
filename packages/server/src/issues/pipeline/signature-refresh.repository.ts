import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * The SQL of the signature refresh (signature-refresh.ts): finding the signatures stored under
 * older term rules (`terms_version`, migration 0035), the reports they are made from again, and
 * their writes. The reads run outside any transaction; the writes in the refresh's one, under
 * the progress row's lock.
 */

/** A report as the engine reads it to make a signature, with its place in report order. */
export interface RefreshReport {
  id: string;
  created_at: string | Date;
  outcome: string;
  tool_name: string | null;
  details: string;
}

/**
 * Issues whose signature is older than `version`, walking the primary key down from `before`
 * (exclusive; null: from the newest id): the newest issues first, and a walk that costs the
 * rows it passes once however many rounds it takes.
 */
export async function listStaleIssues(
  db: Kysely<DB>,
  version: number,
  before: string | null,
  limit: number,
) {
  let query = db
    .selectFrom('issues')
    .select(['id', 'project_id', 'kind', 'signature'])
    .where('terms_version', '<', version);
  if (before !== null) query = query.where('id', '<', before);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/** An issue as the refresh reads it: what its signature is made from again. */
export type StaleIssue = Awaited<ReturnType<typeof listStaleIssues>>[number];

/** The issue, if its signature is still older than `version` (read under the lock). */
export async function findStaleIssue(db: Kysely<DB>, issueId: string, version: number) {
  return db
    .selectFrom('issues')
    .select(['id', 'project_id', 'kind', 'signature'])
    .where('id', '=', issueId)
    .where('terms_version', '<', version)
    .executeTakeFirst();
}

/** What a refresh reads of a report: its text, and when (the order of its reports). */
const REFRESH_REPORT_COLUMNS = [
  'reports.id',
  'reports.created_at',
  'reports.outcome',
  'reports.tool_name',
  'reports.details',
] as const;

/** An issue's `limit` most recent reports (through its index of report_issues), newest first. */
export async function listRecentIssueReports(
  db: Kysely<DB>,
  projectId: string,
  issueId: string,
  limit: number,
): Promise<RefreshReport[]> {
  return db
    .selectFrom('report_issues')
    .innerJoin('reports', 'reports.id', 'report_issues.report_id')
    .select(REFRESH_REPORT_COLUMNS)
    .where('report_issues.project_id', '=', projectId)
    .where('report_issues.issue_id', '=', issueId)
    .orderBy('report_issues.created_at', 'desc')
    .orderBy('report_issues.report_id', 'desc')
    .limit(limit)
    .execute();
}

/** Moved reports remembered with a signature older than `version`, with their report's text. */
export async function listStaleExemplars(db: Kysely<DB>, version: number, limit: number) {
  return db
    .selectFrom('issue_exemplars')
    .leftJoin('reports', 'reports.id', 'issue_exemplars.report_id')
    .select([
      'issue_exemplars.id',
      'issue_exemplars.signature',
      'reports.outcome',
      'reports.tool_name',
      'reports.details',
    ])
    .where('issue_exemplars.terms_version', '<', version)
    .limit(limit)
    .execute();
}

/** Merge records (what unmerge takes off its issue) with a signature older than `version`. */
export async function listStaleMerges(db: Kysely<DB>, version: number, limit: number) {
  return db
    .selectFrom('issue_merges')
    .select(['id', 'signature'])
    .where('terms_version', '<', version)
    .limit(limit)
    .execute();
}

/**
 * A merge's `limit` most recent reports (report ids sort by time: the primary key's order, no
 * sort of a large merge's rows), newest first.
 */
export async function listRecentMergeReports(
  db: Kysely<DB>,
  mergeId: string,
  limit: number,
): Promise<RefreshReport[]> {
  return db
    .selectFrom('issue_merge_reports')
    .innerJoin('reports', 'reports.id', 'issue_merge_reports.report_id')
    .select(REFRESH_REPORT_COLUMNS)
    .where('issue_merge_reports.merge_id', '=', mergeId)
    .orderBy('issue_merge_reports.report_id', 'desc')
    .limit(limit)
    .execute();
}

/** A signature made afresh: the row, the text read before (issues only), the new text. */
export interface RefreshedRow {
  id: string;
  /** The issue's signature as read before its reports: written only if it is still that. */
  read?: string;
  signature: string;
}

/**
 * Writes refreshed issue signatures with `version`, a statement each (a round refreshes a few
 * dozen). An issue whose signature is no longer the one read before its reports (a report
 * joined it, triage changed it) is not written: its new signature would miss what changed.
 * Returns the ids not written (changed, gone, or already refreshed).
 */
export async function writeRefreshedIssues(
  trx: Kysely<DB>,
  rows: readonly RefreshedRow[],
  version: number,
): Promise<string[]> {
  const missed: string[] = [];
  for (const row of rows) {
    const result = await trx
      .updateTable('issues')
      .set({ signature: row.signature, terms_version: version })
      .where('id', '=', row.id)
      .where('signature', '=', row.read ?? row.signature)
      .where('terms_version', '<', version)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) missed.push(row.id);
  }
  return missed;
}

/** Writes refreshed signatures of moved reports or merge records with `version`. */
export async function writeRefreshedRows(
  trx: Kysely<DB>,
  table: 'issue_exemplars' | 'issue_merges',
  rows: readonly RefreshedRow[],
  version: number,
): Promise<number> {
  let written = 0;
  for (const row of rows) {
    const result = await trx
      .updateTable(table)
      .set({ signature: row.signature, terms_version: version })
      .where('id', '=', row.id)
      .where('terms_version', '<', version)
      .executeTakeFirst();
    written += Number(result.numUpdatedRows);
  }
  return written;
}

/** Whether any stored signature is older than `version`: the end of a refresh, checked once. */
export async function anyStaleSignature(db: Kysely<DB>, version: number): Promise<boolean> {
  const stale = (table: 'issues' | 'issue_exemplars' | 'issue_merges') =>
    sql<number>`exists (select 1 from ${sql.table(table)} where terms_version < ${version})`;
  const { rows } = await sql<{
    stale: number | boolean;
  }>`select (${stale('issues')} or ${stale('issue_exemplars')} or ${stale('issue_merges')}) as stale`.execute(
    db,
  );
  return Boolean(rows[0]?.stale);
}
