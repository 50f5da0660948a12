/**
 * The read rows, and the Issues view: every one is a request a
 * user of the API or the dashboard makes, with the p99 target next to it. Built when measured,
 * so "7 days ago" and "10 minutes ago" are relative to the moment the row runs.
 */
import { RARE_TOOL_NAME, TOOL_NAMES } from './seed.js';

/** The tool of the filtered rows: the fifth most used (seed.ts skews tools by rank). */
export const READ_TOOL = TOOL_NAMES[4]!;
export const READ_SOURCE = 'cursor';

export interface ReadTargets {
  /** The big project: `READ_REPORTS` reports over 90 days. */
  bigProjectId: string;
  /** The busy project: its reports all from the last hour, as a busy project's are. */
  recentProjectId: string;
}

export interface ReadScenario {
  name: string;
  path: string;
  /** p99 target in ms at 1,000,000 reports. */
  targetMs: number;
}

const day = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10);
const minute = (msAgo: number) => `${new Date(Date.now() - msAgo).toISOString().slice(0, 16)}Z`;
const DAY = 86_400_000;

/** Every read row, in the order of the read table in BENCHMARKS.md. */
export function readScenarios({ bigProjectId, recentProjectId }: ReadTargets): ReadScenario[] {
  const reports = (query: string) => `/v1/dashboard/${bigProjectId}/reports${query}`;
  const recent = (query: string) => `/v1/dashboard/${recentProjectId}/reports${query}`;
  const consoleApi = (what: string) => `/v1/console/projects/${bigProjectId}/${what}`;
  return [
    { name: 'page 1 + stats, no filter', path: reports(''), targetMs: 10 },
    { name: 'page 1 + stats, outcome=failure', path: reports('?outcome=failure'), targetMs: 10 },
    {
      name: `page 1 + stats, tool_name=${READ_TOOL}`,
      path: reports(`?tool_name=${READ_TOOL}`),
      targetMs: 10,
    },
    // One report, the oldest: a seek in the tool index, where a walk of the project's reports
    // newest first would visit all of them.
    {
      name: `page 1 + stats, tool_name=${RARE_TOOL_NAME} (1 report, the oldest)`,
      path: reports(`?tool_name=${RARE_TOOL_NAME}`),
      targetMs: 10,
    },
    { name: 'page=500&limit=100', path: reports('?page=500&limit=100'), targetMs: 20 },
    {
      name: `outcome=failure&tool_name=${READ_TOOL}&page=50`,
      path: reports(`?outcome=failure&tool_name=${READ_TOOL}&page=50`),
      targetMs: 20,
    },
    {
      name: `source=${READ_SOURCE}&from=<7 days ago>`,
      path: reports(`?source=${READ_SOURCE}&from=${day(7 * DAY)}`),
      targetMs: 20,
    },
    { name: 'recent project, from=<today>', path: recent(`?from=${day(0)}`), targetMs: 20 },
    {
      name: 'recent project, from=<10 minutes ago>',
      path: recent(`?from=${minute(10 * 60_000)}`),
      targetMs: 20,
    },
    {
      name: 'dashboard timeseries, 30 days',
      path: consoleApi(`timeseries?from=${day(30 * DAY)}`),
      targetMs: 20,
    },
    {
      name: 'dashboard tools table, from/to (30 days)',
      path: consoleApi(`tools?from=${day(30 * DAY)}&to=${day(0)}&limit=100`),
      targetMs: 20,
    },
    // The Issues view is a project's front page. It has no target of its own: it gets the
    // dashboard reads' 20 ms.
    {
      name: 'issues view: open issues, by last seen',
      path: `/v1/dashboard/${bigProjectId}/issues`,
      targetMs: 20,
    },
  ];
}

/**
 * The reads of the dashboard that ingest must not wait behind: each of the 10 readers cycles
 * through them (the reports page's list, chart and tools table under a date range).
 */
export function dashboardReads({ bigProjectId, recentProjectId }: ReadTargets): string[] {
  return [
    `/v1/console/projects/${bigProjectId}/timeseries?from=${day(30 * DAY)}`,
    `/v1/console/projects/${bigProjectId}/tools?from=${day(30 * DAY)}&to=${day(0)}&limit=100`,
    `/v1/dashboard/${bigProjectId}/reports?source=${READ_SOURCE}&from=${day(7 * DAY)}`,
    `/v1/dashboard/${recentProjectId}/reports?from=${minute(10 * 60_000)}`,
  ];
}
