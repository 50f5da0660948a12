import {
  ISSUE_TREND_DAYS,
  type IssueActivityList,
  type IssueDetail,
  type IssueList,
  type ListIssuesQuery,
} from '@debrief/protocol';
import type { AppContext } from '../context.js';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import { ApiError } from '../errors/api-error.js';
import { mutedIssueIds } from '../notifications/mutes/mute.repository.js';
import { getOwnedProject } from '../projects/project.service.js';
import { DAY_MS, startOfUtcDay } from '../time/utc-time.js';
import { countIssues, findIssue, listIssuesPage } from './issue.repository.js';
import { listIssueActivity } from './issue-activity.repository.js';
import {
  countIssueClients,
  countIssueClientVersions,
  countIssueModels,
  countIssueSources,
} from './issue-breakdowns.repository.js';
import { countsOfRow } from './issue-counts.js';
import { countIssueDays } from './issue-days.repository.js';

import { countIssuesInRange, listIssuesInRange } from './issue-range.repository.js';
import { toIssueSummary } from './issue-wire.js';

const BREAKDOWN_LIMIT = 20;
const ACTIVITY_LIMIT = 100;
const DAILY_DAYS = 90;
const ISSUE_ID = /^[0-9a-f]{32}$/;

export function issueNotFound(): ApiError {
  return new ApiError(
    'not_found',
    'No issue with this id in this project. It may have been merged into another issue: list them with GET /v1/dashboard/{projectId}/issues?status=all.',
  );
}

/**
 * A project's issues, one status (open by default) or all, filtered, sorted and paged. With a
 * `from`/`to` range (either bound), only issues with a report in it, each with its
 * `range_count`, and `sort=count` by that count (issue-range.repository.ts says how it is
 * counted); without one, `range_count` is null and the counts are all-time. Each issue carries
 * its `trend`, the last 14 UTC days whatever the range, counted for the whole page at once.
 */
export async function listIssues(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  query: ListIssuesQuery,
): Promise<IssueList> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const filters = {
    status: query.status === 'all' ? undefined : query.status,
    outcome: query.outcome,
    kind: query.kind,
    toolName: query.tool_name,
    title: query.q === undefined ? undefined : { contains: query.q, dialect: ctx.database.dialect },
  };
  // The reports list's semantics: `from` from the start of what it names, `to` up to the end.
  const range = { from: query.from?.start, before: query.to?.end };
  const ranged = range.from !== undefined || range.before !== undefined;
  const total = ranged
    ? await countIssuesInRange(ctx.db, project.id, filters, range)
    : await countIssues(ctx.db, project.id, filters);
  const offset = (query.page - 1) * query.limit;
  const page = { offset, limit: query.limit };
  const rows =
    offset >= total
      ? []
      : ranged
        ? await listIssuesInRange(ctx.db, project.id, filters, range, query.sort, page)
        : await listIssuesPage(ctx.db, project.id, filters, query.sort, page);
  const now = Date.now();
  const ids = rows.map((row) => row.id);
  const trendSince = new Date(startOfUtcDay(now - (ISSUE_TREND_DAYS - 1) * DAY_MS));
  const [muted, extras] = await Promise.all([
    mutedIssueIds(ctx.db, project.id, ids, new Date(now)),
    ctx.issueListExtras.of(ctx.db, project.id, rows, trendSince),
  ]);
  return {
    project: { id: project.id, name: project.name },
    issues: rows.map((row, index) => ({
      ...toIssueSummary(row, 'range_count' in row ? Number(row.range_count) : null),
      possible_duplicate_of: extras[index]?.possibleDuplicateOf ?? null,
      muted: muted.has(row.id),
      trend: extras[index]?.trend ?? [],
    })),
    pagination: { page: query.page, limit: query.limit, total },
  };
}

/** One issue with its outcome counts, sources, agent clients and models, daily counts and note. */
export async function getIssue(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  issueId: string,
): Promise<IssueDetail> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId)) throw issueNotFound();
  const row = await findIssue(ctx.db, project.id, issueId);
  if (!row) throw issueNotFound();
  const { dialect } = ctx.database;
  const since = new Date(startOfUtcDay(Date.now() - DAILY_DAYS * DAY_MS));
  const [sources, clients, models, clientVersions, daily] = await Promise.all([
    countIssueSources(ctx.db, dialect, project.id, row.id, BREAKDOWN_LIMIT),
    countIssueClients(ctx.db, dialect, project.id, row.id, BREAKDOWN_LIMIT),
    countIssueModels(ctx.db, dialect, project.id, row.id, BREAKDOWN_LIMIT),
    countIssueClientVersions(ctx.db, dialect, project.id, row.id, BREAKDOWN_LIMIT),
    countIssueDays(ctx.db, project.id, row.id, since),
  ]);
  return {
    ...toIssueSummary(row),
    resolved_at: toWireTimestamp(row.resolved_at),
    note: row.note,
    agent_note: row.agent_note,
    outcome_counts: countsOfRow(row),
    sources,
    clients,
    models,
    client_versions: clientVersions,
    daily,
    created_at: toWireTimestamp(row.created_at),
    updated_at: toWireTimestamp(row.updated_at),
  };
}

/** An issue's history, newest first (issue-activity.repository.ts). */
export async function getIssueActivity(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  issueId: string,
): Promise<IssueActivityList> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId)) throw issueNotFound();
  const row = await findIssue(ctx.db, project.id, issueId);
  if (!row) throw issueNotFound();
  return { issue_id: row.id, activity: await listIssueActivity(ctx.db, row.id, ACTIVITY_LIMIT) };
}
