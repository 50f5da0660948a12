import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import {
  containsPattern,
  type IssueFilters,
  type IssueSort,
  SUMMARY_COLUMNS,
  titleMatch,
} from './issue.repository.js';

/**
 * The issues list with a date range (open issues worst first, reports in the selected range):
 * only issues with a report in [from, before), each with that count.
 *
 * There is no per-issue rollup, so the count comes from the reports, and the query is shaped so
 * that its cost follows the range and the issues active in it, not the project's history:
 * - issues are pruned by their own first_seen/last_seen first (an issue whose reports all lie
 *   outside the range cannot have one inside it; the grouper keeps both exact, and merge and
 *   move recount them), which the list's index (project_id, status, last_seen, id) seeks;
 * - each remaining issue's reports in the range are read by a seek in
 *   report_issues_by_project_issue (project_id, issue_id, created_at, report_id, migration 0017):
 *   index entries only, for that issue and that range.
 * Both per-issue reads are correlated subqueries on purpose. A join or a GROUP BY over the
 * project's reports in the range lets the planner walk them instead: SQLite drives it from
 * reports_by_project_time and reads every report's row for its issue_id, and PostgreSQL turns
 * an EXISTS into a semi-join that reads the issue index for the whole project with the issue
 * unbound. A scalar subquery stays a per-issue seek on both (report-query-plans.test.ts
 * holds them to it); "has one" is `(… limit 1) is not null`, which stops at the first report.
 * Reports not grouped yet (issue_id null) count nowhere until the grouper places them, a moment
 * after their 201.
 */

export interface IssueRange {
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  before?: Date;
}

const QUALIFIED = SUMMARY_COLUMNS.map((column) => `issues.${column}` as const);

/** The project's issues that pass the filters and could have a report in the range. */
function filteredIssues(
  db: Kysely<DB>,
  projectId: string,
  filters: IssueFilters,
  range: IssueRange,
) {
  let q = db.selectFrom('issues').where('issues.project_id', '=', projectId);
  if (filters.status !== undefined) q = q.where('issues.status', '=', filters.status);
  if (filters.outcome !== undefined) q = q.where('issues.outcome', '=', filters.outcome);
  if (filters.kind !== undefined) q = q.where('issues.kind', '=', filters.kind);
  if (filters.toolName !== undefined) q = q.where('issues.tool_name', '=', filters.toolName);
  if (filters.title) {
    const { dialect, contains } = filters.title;
    q = q.where(titleMatch(dialect, 'issues.title', containsPattern(contains)));
  }
  if (range.from) q = q.where('issues.last_seen', '>=', range.from.toISOString());
  if (range.before) q = q.where('issues.first_seen', '<', range.before.toISOString());
  return q.where((eb) =>
    eb(
      reportsInRange(eb, projectId, range).select('report_issues.report_id').limit(1),
      'is not',
      null,
    ),
  );
}

/** The current issue's reports in the range, as a correlated subquery. */
function reportsInRange(eb: ExpressionBuilder<DB, 'issues'>, projectId: string, range: IssueRange) {
  let q = eb
    .selectFrom('report_issues')
    .where('report_issues.project_id', '=', projectId)
    .whereRef('report_issues.issue_id', '=', 'issues.id');
  if (range.from) q = q.where('report_issues.created_at', '>=', range.from.toISOString());
  if (range.before) q = q.where('report_issues.created_at', '<', range.before.toISOString());
  return q;
}

/**
 * One page of the issues with a report in the range, with `range_count`. `sort=count` orders by
 * the range's count (ties: last seen first, then id); the other sorts as without a range.
 */
export async function listIssuesInRange(
  db: Kysely<DB>,
  projectId: string,
  filters: IssueFilters,
  range: IssueRange,
  sort: IssueSort,
  page: { offset: number; limit: number },
) {
  let q = filteredIssues(db, projectId, filters, range).select((eb) => [
    ...QUALIFIED,
    reportsInRange(eb, projectId, range)
      .select((inner) => inner.fn.countAll<number | string>().as('n'))
      .as('range_count'),
  ]);
  q =
    sort === 'count'
      ? q.orderBy('range_count', 'desc').orderBy('issues.last_seen', 'desc')
      : q.orderBy(`issues.${sort}`, 'desc');
  return q.orderBy('issues.id', 'desc').limit(page.limit).offset(page.offset).execute();
}

/** How many issues have a report in the range (the page's `pagination.total`). */
export async function countIssuesInRange(
  db: Kysely<DB>,
  projectId: string,
  filters: IssueFilters,
  range: IssueRange,
): Promise<number> {
  const row = await filteredIssues(db, projectId, filters, range)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
