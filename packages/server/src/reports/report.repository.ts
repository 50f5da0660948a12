import { type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
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
  /** Only the reports of this issue. */
  issueId?: string;
}

/** A report's columns, its issue's from `report_issues` (migration 0017; see withIssue). */
const REPORT_COLUMNS = [
  'reports.id',
  'reports.outcome',
  'reports.tool_name',
  'reports.source',
  'reports.details',
  'reports.metadata',
  'reports.created_at',
  'reports.redactions',
  'report_issues.issue_id',
  'report_issues.issue_reason',
] as const;

/**
 * `reports` with each report's issue row (migration 0017): a left join, so a report is never
 * hidden for want of one; its issue then reads as null, as before it is grouped.
 */
export function withIssue(db: Kysely<DB>) {
  return db
    .selectFrom('reports')
    .leftJoin('report_issues', 'report_issues.report_id', 'reports.id');
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
  const { issueId } = filters;
  if (issueId !== undefined) {
    q = q.where((eb) =>
      eb(
        'reports.id',
        'in',
        eb
          .selectFrom('report_issues')
          .select('report_issues.report_id')
          .where('report_issues.project_id', '=', projectId)
          .where('report_issues.issue_id', '=', issueId),
      ),
    );
  }
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

/** Where a page ends: the last report's time (full precision, ISO 8601) and id. */
export interface ReportKey {
  createdAt: string;
  id: string;
}

/** A page by number (rows to skip) or after a report (a cursor: a keyset seek). */
export type PageStart = { offset: number } | { after: ReportKey };

/**
 * The label a page seeks on when several are given, most selective first as projects usually
 * look: an issue's reports (seeked in `report_issues`, whose index is (project_id,
 * issue_id, created_at, report_id), migration 0017, the other labels checked on the issue's
 * rows), then many tools, a handful of agent clients, five outcomes. The others are checked
 * inside the entries of that label's index, which carries all three (migration 0011).
 */
const SEEK_ORDER = ['issueId', 'toolName', 'source', 'outcome'] as const;
const LABEL_COLUMN = {
  toolName: 'reports.tool_name',
  source: 'reports.source',
  outcome: 'reports.outcome',
} as const;

/**
 * One page of reports, newest first (created_at desc, id desc), as a deferred join: the inner
 * query picks the page's ids from index entries alone (every column it reads is in the index it
 * seeks), so the rows a deep page skips, and those a second label rules out, cost an index entry
 * each; only the page's own rows are read from the table. Without it, PostgreSQL fetched every
 * skipped row of a deep page from the heap, and SQLite read the row of every report of the
 * first label to check the second (`outcome=failure&tool_name=X`: 1.2 s at 1M reports). After a
 * cursor the seek starts at the key itself: O(limit).
 *
 * On SQLite (no statistics: the server never runs ANALYZE) the planner takes the first index
 * that matches an equality, which for `outcome=failure&tool_name=X` would be the outcome index,
 * reading every failure's row to check its tool: the labels other than the one to seek on are
 * written as `+column`, which matches no index (see groupKey). PostgreSQL chooses with
 * statistics: the columns as they are.
 */
export async function listReportsPage(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: ReportFilters,
  page: PageStart & { limit: number },
) {
  const seekOn = SEEK_ORDER.find((label) => filters[label] !== undefined);
  const before = filters.before?.toISOString();
  const after = 'after' in page ? page.after : undefined;
  // A cursor inside the range is the tighter upper bound; both bounds together would let SQLite
  // seek from `before` and walk down to the cursor, O(rows skipped) again instead of O(limit).
  const bounded = before !== undefined && !(after && after.createdAt < before);
  const offset = 'offset' in page ? page.offset : 0;
  const shape: PageShape = {
    dialect,
    seekOn,
    labels: SEEK_ORDER.filter((label) => filters[label] !== undefined),
    from: filters.from !== undefined,
    before: bounded,
    after: after !== undefined,
    firstRows:
      offset === 0 && Number.isInteger(page.limit) && page.limit <= MAX_LITERAL_LIMIT
        ? page.limit
        : null,
  };
  const compiled = pageQuery(db, shape, {
    projectId,
    issueId: filters.issueId ?? null,
    toolName: filters.toolName ?? null,
    source: filters.source ?? null,
    outcome: filters.outcome ?? null,
    from: filters.from?.toISOString() ?? null,
    before: before ?? null,
    afterAt: after?.createdAt ?? null,
    afterId: after?.id ?? null,
    limit: page.limit,
    offset,
  });
  return (await db.executeQuery(compiled)).rows;
}

/** What makes a page's SQL text (compiled-shapes.ts): all else is a bound value. */
interface PageShape {
  dialect: Dialect;
  seekOn: (typeof SEEK_ORDER)[number] | undefined;
  labels: (typeof SEEK_ORDER)[number][];
  from: boolean;
  before: boolean;
  after: boolean;
  /**
   * A page that skips nothing (page 1, or after a cursor), its row count written into the
   * statement, with no OFFSET: then PostgreSQL's generic plan of the statement costs what its
   * custom plans cost, so a read connection plans it once (pg-read-pool.ts names the statements
   * of compiled shapes) instead of on every read: ~0.3 ms of PostgreSQL's CPU a page. With a
   * bound LIMIT or OFFSET the generic plan assumes 10 % of the project's rows and PostgreSQL
   * keeps planning each read. Null: both bound, as deeper pages are.
   */
  firstRows: number | null;
}

/** A page limit larger than this is bound, never written into the statement (bounds the shapes). */
const MAX_LITERAL_LIMIT = 1000;

interface PageParams extends Record<string, unknown> {
  projectId: string;
  issueId: string | null;
  toolName: string | null;
  source: string | null;
  outcome: string | null;
  from: string | null;
  before: string | null;
  afterAt: string | null;
  afterId: string | null;
  limit: number;
  offset: number;
}

/**
 * SQLite rates a range on created_at as more selective than a label's equality and would walk
 * the time index checking the label; likely() says the range keeps most rows, and SQLite still
 * seeks on it (it looks through the wrapper), after the label.
 */
function bounded(dialect: Dialect, term: RawBuilder<SqlBool>): RawBuilder<SqlBool> {
  return dialect === 'sqlite' ? sql<SqlBool>`likely(${term})` : term;
}

/**
 * The page of `ids` (a table's (created_at, id) columns, newest first): its time bounds and
 * cursor, then the rows to skip and to take.
 */
function inPage<D, T extends keyof D, O>(
  ids: SelectQueryBuilder<D, T, O>,
  shape: PageShape,
  p: PageParams,
  createdAt: string,
  id: string,
): SelectQueryBuilder<D, T, O> {
  const at = sql.ref(createdAt);
  const terms: RawBuilder<SqlBool>[] = [];
  if (shape.from) terms.push(sql<SqlBool>`${at} >= ${p.from}`);
  if (shape.before) terms.push(sql<SqlBool>`${at} < ${p.before}`);
  if (shape.after) terms.push(sql<SqlBool>`(${at}, ${sql.ref(id)}) < (${p.afterAt}, ${p.afterId})`);
  let q = ids;
  for (const term of terms) q = q.where(bounded(shape.dialect, term));
  q = q.orderBy(at, 'desc').orderBy(sql.ref(id), 'desc');
  return shape.firstRows !== null
    ? q.limit(sql.lit(shape.firstRows))
    : q.limit(p.limit).offset(p.offset);
}

/** The ids (and times) of a page of reports, seeked in the index of one label. */
function labelPageIds(db: Kysely<DB>, shape: PageShape, p: PageParams) {
  let ids = db
    .selectFrom('reports')
    .select(['reports.id', 'reports.created_at'])
    .where('reports.project_id', '=', p.projectId);
  for (const label of shape.labels) {
    if (label === 'issueId') continue;
    const column = LABEL_COLUMN[label];
    const value = p[label] as string;
    ids =
      shape.dialect === 'sqlite' && label !== shape.seekOn
        ? ids.where(sql<string>`+${sql.ref(column)}`, '=', value)
        : ids.where(column, '=', value);
  }
  return inPage(ids, shape, p, 'reports.created_at', 'reports.id');
}

/**
 * The ids (and times) of a page of an issue's reports, seeked in `report_issues`; other labels
 * are checked on each report's row, looked up by its key (few: an issue's reports mostly share
 * its tool and outcome).
 */
function issuePageIds(db: Kysely<DB>, shape: PageShape, p: PageParams) {
  let ids = db
    .selectFrom('report_issues')
    .select(['report_issues.report_id as id', 'report_issues.created_at'])
    .where('report_issues.project_id', '=', p.projectId)
    .where('report_issues.issue_id', '=', p.issueId);
  const labels = shape.labels.filter(
    (label): label is keyof typeof LABEL_COLUMN => label !== 'issueId',
  );
  if (labels.length > 0) {
    ids = ids.where((eb) => {
      let row = eb
        .selectFrom('reports')
        .select('reports.id')
        .whereRef('reports.id', '=', 'report_issues.report_id');
      for (const label of labels) {
        row = row.where(LABEL_COLUMN[label], '=', p[label] as string);
      }
      return eb.exists(row);
    });
  }
  return inPage(ids, shape, p, 'report_issues.created_at', 'report_issues.report_id');
}

const pageQuery = compiledShapes((db: Kysely<DB>, shape: PageShape, p: PageParams) => {
  const inner =
    shape.seekOn === 'issueId' ? issuePageIds(db, shape, p) : labelPageIds(db, shape, p);
  return db
    .selectFrom(inner.as('page'))
    .innerJoin('reports', 'reports.id', 'page.id')
    .leftJoin('report_issues', 'report_issues.report_id', 'reports.id')
    .select(REPORT_COLUMNS)
    .orderBy('page.created_at', 'desc')
    .orderBy('page.id', 'desc');
});

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
  return withIssue(db)
    .select([...REPORT_COLUMNS, 'reports.project_id'])
    .where('reports.id', '=', id)
    .executeTakeFirst();
}

/** Reports of a project after an id, oldest first: the backlog of a resumed event stream. */
export async function listReportsAfterId(
  db: Kysely<DB>,
  projectId: string,
  afterId: string,
  limit: number,
) {
  return withIssue(db)
    .select(REPORT_COLUMNS)
    .where('reports.project_id', '=', projectId)
    .where('reports.id', '>', afterId)
    .orderBy('reports.id', 'asc')
    .limit(limit)
    .execute();
}

export type ReportRow = Awaited<ReturnType<typeof listReportsPage>>[number];
