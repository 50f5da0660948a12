import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';

export interface ReportFilters {
  outcome?: string;
  toolName?: string;
  source?: string;
  /** Inclusive lower bound. */
  from?: Date;
  /** Exclusive upper bound. */
  before?: Date;
  /** Only the reports of this issue (issue 18). */
  issueId?: string;
}

export interface NewReport {
  id: string;
  projectId: string;
  outcome: string;
  toolName: string | null;
  source: string | null;
  details: string;
  metadata: string | null;
  createdAt: Date;
  /** Credentials replaced before storing (reports/redaction/). */
  redactions: number;
}

const REPORT_COLUMNS = [
  'id',
  'outcome',
  'tool_name',
  'source',
  'details',
  'metadata',
  'created_at',
  'redactions',
  'issue_id',
  'issue_reason',
] as const;

/** Hot path: a `sql` template, see usage.repository.ts. */
export async function insertReport(db: Kysely<DB>, report: NewReport): Promise<void> {
  await sql`
    insert into reports
      (id, project_id, outcome, tool_name, source, details, metadata, created_at, redactions)
    values (${report.id}, ${report.projectId}, ${report.outcome}, ${report.toolName},
      ${report.source}, ${report.details}, ${report.metadata}, ${report.createdAt.toISOString()},
      ${report.redactions})
  `.execute(db);
}

/** The WHERE clauses of the filters, on columns qualified by table so joins stay unambiguous. */
export function applyReportFilters<O>(
  query: SelectQueryBuilder<DB, 'reports', O>,
  projectId: string,
  filters: ReportFilters,
): SelectQueryBuilder<DB, 'reports', O> {
  let q = query.where('reports.project_id', '=', projectId);
  if (filters.outcome !== undefined) q = q.where('reports.outcome', '=', filters.outcome);
  if (filters.toolName !== undefined) q = q.where('reports.tool_name', '=', filters.toolName);
  if (filters.source !== undefined) q = q.where('reports.source', '=', filters.source);
  if (filters.issueId !== undefined) q = q.where('reports.issue_id', '=', filters.issueId);
  if (filters.from !== undefined)
    q = q.where('reports.created_at', '>=', filters.from.toISOString());
  if (filters.before !== undefined)
    q = q.where('reports.created_at', '<', filters.before.toISOString());
  return q;
}

/**
 * A GROUP BY term for a reports column that SQLite will not read in index order. Without
 * statistics (the server never runs ANALYZE) SQLite prefers an index that yields the groups in
 * order over one that seeks on the filters: for `where tool_name = ? group by outcome` it walked
 * the project's whole outcome index and read every row, ~80 ms at 100,000 reports, instead of
 * seeking in the tool index (report-query-plans.test.ts). A unary `+` makes the term an
 * expression, which matches no index. PostgreSQL plans with statistics: the column as is.
 */
export function groupKey(
  dialect: Dialect,
  column: 'reports.outcome' | 'reports.tool_name' | 'reports.source',
): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql`+${sql.ref(column)}` : sql`${sql.ref(column)}`;
}

/**
 * An ORDER BY term for a text column in code-point order, the same on both dialects: SQLite
 * compares bytes by default, PostgreSQL by the database's locale unless told "C".
 */
export function byCodePoint(dialect: Dialect, column: string): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`${sql.ref(column)} collate "C"` : sql`${sql.ref(column)}`;
}

export async function listReportsPage(
  db: Kysely<DB>,
  projectId: string,
  filters: ReportFilters,
  page: { offset: number; limit: number },
) {
  return applyReportFilters(db.selectFrom('reports').select(REPORT_COLUMNS), projectId, filters)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** Number of reports per outcome under the filters (the caller leaves `outcome` out: facets). */
export async function countReportsByOutcome(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: Omit<ReportFilters, 'outcome'>,
): Promise<Map<string, number>> {
  const rows = await applyReportFilters(
    db.selectFrom('reports').select((eb) => ['outcome', eb.fn.countAll<number | string>().as('n')]),
    projectId,
    filters,
  )
    .groupBy(groupKey(dialect, 'reports.outcome'))
    .execute();
  return new Map(rows.map((row) => [row.outcome, Number(row.n)]));
}

export async function findReportById(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('reports')
    .select([...REPORT_COLUMNS, 'project_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Reports of a project after an id, oldest first: the backlog of a resumed event stream. */
export async function listReportsAfterId(
  db: Kysely<DB>,
  projectId: string,
  afterId: string,
  limit: number,
) {
  return db
    .selectFrom('reports')
    .select(REPORT_COLUMNS)
    .where('project_id', '=', projectId)
    .where('id', '>', afterId)
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}

export type ReportRow = Awaited<ReturnType<typeof listReportsPage>>[number];
