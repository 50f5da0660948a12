import type { ArrivalWrites } from '../../issues/chained-arrivals.js';
import { countColumns } from '../../issues/issue-counts.js';
import { jsonRowsInsert, type Statement, writesAfter } from './batch-statements.js';
import type { NewReport } from './report-writer.js';

/**
 * PostgreSQL's batch with its grouping (issues/chained-arrivals.ts), as ONE statement: the
 * reports, their rows of `report_issues` with their issues, the issues the batch opened and
 * touched, the waiting reports it placed, and its counters. The grouping is written only if
 * the `grouped` part moved the progress row: from the version it was grouped at, with no
 * stored report left waiting but the ones it places. Else the reports and counters are written
 * all the same, the reports without an issue (the background grouper's to place). Every part
 * that writes grouping reads `grouped` first (`exists (select 1 from grouped)`, computed once
 * before the part's first row), so it touches no issue before the progress row's lock is held:
 * the lock order of triage and the grouper, which take that row first.
 *
 * Its texts never change: the rows travel as JSON (batch-statements.ts jsonRowsInsert), so
 * PostgreSQL plans it once per connection (db/named-statements.ts).
 */

const APPLIED = 'exists (select 1 from grouped)';

const PROGRESS = `update grouping_progress set issues_version = issues_version + 1,
    grouped_count = grouped_count + $2::bigint, last_created_at = $3::timestamptz,
    last_report_id = $4::text, updated_at = $5::timestamptz
  where id = 'default' and issues_version = $1::bigint
    and not exists (select 1 from report_issues
      where issue_id is null and report_id <> all($6::text[]))
  returning 1`;

const ISSUE_COLUMNS = [
  'id',
  'project_id',
  'status',
  'title',
  'tool_name',
  'kind',
  'signature',
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
  'created_at',
  'updated_at',
] as const;

/** The issues' new state; a regression reopens (as grouping.repository.ts updateGroupedIssues). */
const UPDATE_ISSUES = `update issues set report_count = v.report_count,
    count_success = v.count_success, count_failure = v.count_failure,
    count_confusing = v.count_confusing, count_gave_up = v.count_gave_up,
    count_request = v.count_request, outcome = v.outcome, first_seen = v.first_seen,
    last_seen = v.last_seen, sample_details = v.sample_details, signature = v.signature,
    updated_at = v.updated_at,
    status = case when v.regressed_at is null then issues.status else 'open' end,
    regressed_at = coalesce(v.regressed_at, issues.regressed_at),
    resolved_at = case when v.regressed_at is null then issues.resolved_at else null end
  from json_populate_recordset(null::issues, $1::json) as v
  where issues.id = v.id and ${APPLIED}`;

const PLACE_WAITING = `update report_issues set issue_id = v.issue_id, issue_reason = v.issue_reason
  from json_populate_recordset(null::report_issues, $1::json) as v
  where report_issues.report_id = v.report_id and coalesce(report_issues.issue_id, '') = ''
    and ${APPLIED}`;

const INSERT_ISSUE_ROWS = `insert into report_issues
    (report_id, project_id, created_at, issue_id, issue_reason)
  select v.report_id, v.project_id, v.created_at,
    case when g.ok then v.issue_id end, case when g.ok then v.issue_reason end
  from json_populate_recordset(null::report_issues, $1::json) as v,
    (select ${APPLIED} as ok) as g`;

const FINAL = `select ${APPLIED} as applied`;

/**
 * The statement of a grouped batch: `writes` (the reports' insert without their issue rows,
 * then the counters: batch-steps.ts writeSteps) with the grouping. Its one row says whether
 * the grouping was written (`applied`).
 */
export function groupedWrite(
  writes: readonly Statement[],
  reports: readonly NewReport[],
  grouping: ArrivalWrites,
  now: Date,
): Statement {
  const at = now.toISOString();
  const issueOf = new Map(grouping.arrivals.map((p) => [p.reportId, p]));
  const issueRows = reports.map((r) => {
    const placed = issueOf.get(r.id);
    return {
      report_id: r.id,
      project_id: r.projectId,
      created_at: r.createdAt.toISOString(),
      issue_id: placed?.issueId ?? null,
      issue_reason: placed?.reason ?? null,
    };
  });
  const created = new Set(grouping.created.map((issue) => issue.id));
  const state = new Map(grouping.updates.map((u) => [u.issueId, u]));
  const rowOf = (u: ArrivalWrites['updates'][number]) => ({
    id: u.issueId,
    ...countColumns(u.counts),
    outcome: u.outcome,
    first_seen: u.firstSeen,
    last_seen: u.lastSeen,
    sample_details: u.sampleDetails,
    signature: u.signature,
    updated_at: at,
    regressed_at: u.regressedAt,
  });
  const newIssues = grouping.created.map((issue) => {
    const u = state.get(issue.id);
    return {
      project_id: issue.projectId,
      status: 'open',
      title: issue.title,
      tool_name: issue.toolName,
      kind: issue.kind,
      created_at: issue.now,
      ...(u ? rowOf(u) : {}),
      id: issue.id,
    };
  });
  const updated = grouping.updates.filter((u) => !created.has(u.issueId)).map(rowOf);
  const waiting = grouping.waiting.map((p) => ({
    report_id: p.reportId,
    issue_id: p.issueId,
    issue_reason: p.reason,
  }));
  const head: Statement = {
    sql: PROGRESS,
    parameters: [
      grouping.version,
      grouping.waiting.length + grouping.arrivals.length,
      grouping.last.createdAt,
      grouping.last.id,
      at,
      grouping.waiting.map((p) => p.reportId),
    ],
    returnsRows: true,
  };
  const json = (sql: string, rows: unknown[]): Statement => ({
    sql,
    parameters: [JSON.stringify(rows)],
    returnsRows: false,
  });
  const insertIssues = jsonRowsInsert(
    'issues',
    ISSUE_COLUMNS,
    newIssues.map((row) => ISSUE_COLUMNS.map((c) => (row as Record<string, unknown>)[c])),
    `where ${APPLIED}`,
  );
  return writesAfter(
    head,
    'grouped',
    [
      ...writes,
      json(INSERT_ISSUE_ROWS, issueRows),
      insertIssues,
      json(UPDATE_ISSUES, updated),
      json(PLACE_WAITING, waiting),
    ],
    FINAL,
  );
}
