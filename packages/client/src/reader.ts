import {
  IssueActivityList,
  type IssueActivityList as IssueActivityListType,
  IssueDetail,
  type IssueDetail as IssueDetailType,
  type IssueKind,
  IssueList,
  type IssueList as IssueListType,
  type IssueStatus,
  type IssueSummary,
  MovedReport,
  type MovedReport as MovedReportType,
  type Outcome,
  type Project,
  ProjectList,
  type Report,
  ReportList,
  type ReportList as ReportListType,
} from '@debrief/protocol';
import { resolveBaseUrl } from './base-url.js';
import { clientProblem, DebriefError } from './client-error.js';
import { type EventsOptions, streamReports } from './report-events.js';
import { request } from './request.js';
import type { FetchLike } from './transport.js';

export interface ReaderOptions {
  /** A secret API key, `wk_sk_…`. Keep it on the server side: it reads every report. */
  apiKey: string;
  /** Debrief's base URL; else `DEBRIEF_URL`, else `http://localhost:8080`. */
  baseUrl?: string;
  /** Longest one read may take, retries included. Default 30,000 ms. */
  timeoutMs?: number;
  /** Extra attempts on network errors and 5xx (reads are safe to repeat). Default 2. */
  retries?: number;
  fetch?: FetchLike;
}

/** Filters of `GET /v1/dashboard/{projectId}/reports`; dates may be ISO strings or Dates. */
export interface ReportFilters {
  outcome?: Outcome;
  tool_name?: string;
  source?: string;
  from?: string | Date;
  to?: string | Date;
  /** Only the reports of this issue. */
  issue_id?: string;
  page?: number;
  /** Reports per page, 1–100; the server's default is 50 and it clamps larger values to 100. */
  limit?: number;
  /**
   * `pagination.next_cursor` of the previous page, to get the page after it (instead of `page`,
   * with the same filters). `walkReports` follows it for you.
   */
  cursor?: string;
}

/** Filters of `GET /v1/dashboard/{projectId}/issues`. */
export interface IssueFilters {
  /** `open` (the server's default), `resolved`, `ignored` or `all`. */
  status?: IssueStatus | 'all';
  /** The issue's most frequent outcome. */
  outcome?: Outcome;
  /** `problem`, `request` or `success`; every kind when absent. */
  kind?: IssueKind;
  tool_name?: string;
  /** Text the title contains, ignoring case (at most 200 characters). */
  q?: string;
  /**
   * `last_seen` (default), `first_seen` or `count`, descending; with `from`/`to`, `count` is
   * the reports in the range.
   */
  sort?: 'last_seen' | 'first_seen' | 'count';
  page?: number;
  /** Issues per page, 1–100 (default 50). */
  limit?: number;
  /**
   * A date range, as `getReports` takes it (ISO strings or Dates; a date-only `to` covers its
   * day): only issues with a report in it, each with `range_count`.
   */
  from?: string | Date;
  to?: string | Date;
}

export interface Reader {
  readonly baseUrl: string;
  /** The account's projects, oldest first. */
  listProjects(): Promise<Project[]>;
  /** One page of reports (newest first), with facet stats and pagination. */
  getReports(projectId: string, filters?: ReportFilters): Promise<ReportListType>;
  /**
   * Every page matching the filters, newest first, following `pagination.next_cursor` from the
   * first page (or from `filters.cursor`): each page starts right after the last report of the
   * one before, so reports arriving meanwhile neither repeat nor skip one.
   */
  walkReports(
    projectId: string,
    filters?: Omit<ReportFilters, 'page'>,
  ): AsyncGenerator<ReportListType, void, undefined>;
  /** Every report matching the filters, newest first: the reports of `walkReports`' pages. */
  iterateReports(
    projectId: string,
    filters?: Omit<ReportFilters, 'page'>,
  ): AsyncGenerator<Report, void, undefined>;
  /** New reports as they arrive (Server-Sent Events), until aborted or the loop is left. */
  events(projectId: string, options?: EventsOptions): AsyncGenerator<Report, void, undefined>;
  /** One page of the project's issues (open ones by default, most recently seen first). */
  listIssues(projectId: string, filters?: IssueFilters): Promise<IssueListType>;
  /** Every issue matching the filters, fetching page after page. */
  iterateIssues(
    projectId: string,
    filters?: Omit<IssueFilters, 'page'>,
  ): AsyncGenerator<IssueSummary>;
  /** One issue with its outcome counts, sources, agent clients, daily counts and note. */
  getIssue(projectId: string, issueId: string): Promise<IssueDetailType>;
  /** An issue's history: who changed what and when, newest first (the last 100). */
  getIssueActivity(projectId: string, issueId: string): Promise<IssueActivityListType>;
  /**
   * Triage (the API key needs the `triage` scope, else a DebriefError `missing_scope`): set an
   * issue's status, note (null clears it) and/or title. Not retried: the caller decides.
   */
  updateIssue(
    projectId: string,
    issueId: string,
    change: { status?: IssueStatus; note?: string | null; title?: string },
  ): Promise<IssueDetailType>;
  /** Triage: merges the issue into `into`; answers the issue merged into. */
  mergeIssue(projectId: string, issueId: string, into: string): Promise<IssueDetailType>;
  /** Triage: moves a report into an issue (`{issue_id}`) or a new one (`{new_issue: true}`). */
  moveReport(
    projectId: string,
    reportId: string,
    target: { issue_id: string } | { new_issue: true },
  ): Promise<MovedReportType>;
}

export const DEFAULT_READ_TIMEOUT_MS = 30_000;

/** Reads throw `DebriefError` on failure: unlike reporting, they are the caller's main job. */
export function createReader(options: ReaderOptions): Reader {
  const baseUrl = resolveBaseUrl(options.baseUrl);
  const fetchFn = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;

  async function send<T>(
    method: 'GET' | 'PATCH' | 'POST',
    path: string,
    schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
    body?: unknown,
  ): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const result = await request({
      fetch: fetchFn,
      url: `${baseUrl}${path}`,
      init: { method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
      // Reads are safe to repeat; a write (a merge) might have been applied before a timeout.
      retries: method === 'GET' ? Math.max(0, options.retries ?? 2) : 0,
      deadline: Date.now() + timeoutMs,
    });
    if (!result.ok) throw new DebriefError(result.problem, result.retryAfterSeconds);
    const parsed = schema.safeParse(result.body);
    if (!parsed.success) {
      throw new DebriefError(
        clientProblem(
          'invalid_response',
          `${method} ${path} answered in an unexpected shape.`,
          result.status,
        ),
      );
    }
    return parsed.data;
  }
  const get = <T>(
    path: string,
    schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  ) => send('GET', path, schema);
  const project = (projectId: string) => `/v1/dashboard/${encodeURIComponent(projectId)}`;
  const listIssues = (projectId: string, filters: IssueFilters = {}) =>
    get(`${project(projectId)}/issues${queryString(filters)}`, IssueList);

  const getReports = (projectId: string, filters: ReportFilters = {}) =>
    get(
      `/v1/dashboard/${encodeURIComponent(projectId)}/reports${queryString(filters)}`,
      ReportList,
    );

  async function* walkReports(
    projectId: string,
    filters: Omit<ReportFilters, 'page'> = {},
  ): AsyncGenerator<ReportListType, void, undefined> {
    let cursor = filters.cursor;
    do {
      const list = await getReports(projectId, { ...filters, cursor });
      yield list;
      cursor = list.pagination.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  return {
    baseUrl,
    listProjects: () => get('/v1/projects', ProjectList),
    getReports,
    walkReports,
    async *iterateReports(projectId, filters = {}) {
      for await (const list of walkReports(projectId, filters)) yield* list.reports;
    },
    events(projectId, eventOptions = {}) {
      return streamReports(
        {
          fetch: fetchFn,
          url: `${baseUrl}/v1/dashboard/${encodeURIComponent(projectId)}/events`,
          apiKey: options.apiKey,
          connectTimeoutMs: timeoutMs,
        },
        eventOptions,
      );
    },
    listIssues,
    async *iterateIssues(projectId, filters = {}) {
      const seen = new Set<string>();
      for (let page = 1; ; page++) {
        const list = await listIssues(projectId, { ...filters, page });
        for (const issue of list.issues) {
          if (seen.has(issue.id)) continue;
          seen.add(issue.id);
          yield issue;
        }
        const { limit, total } = list.pagination;
        if (list.issues.length < limit || page * limit >= total) return;
      }
    },
    getIssue: (projectId, issueId) =>
      get(`${project(projectId)}/issues/${encodeURIComponent(issueId)}`, IssueDetail),
    getIssueActivity: (projectId, issueId) =>
      get(
        `${project(projectId)}/issues/${encodeURIComponent(issueId)}/activity`,
        IssueActivityList,
      ),
    updateIssue: (projectId, issueId, change) =>
      send(
        'PATCH',
        `${project(projectId)}/issues/${encodeURIComponent(issueId)}`,
        IssueDetail,
        change,
      ),
    mergeIssue: (projectId, issueId, into) =>
      send(
        'POST',
        `${project(projectId)}/issues/${encodeURIComponent(issueId)}/merge`,
        IssueDetail,
        { into },
      ),
    moveReport: (projectId, reportId, target) =>
      send(
        'POST',
        `${project(projectId)}/reports/${encodeURIComponent(reportId)}/move`,
        MovedReport,
        target,
      ),
  };
}

function queryString(filters: ReportFilters | IssueFilters): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    params.set(key, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
