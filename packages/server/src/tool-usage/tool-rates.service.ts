import type { ToolRate, ToolRates, ToolRatesQuery, VersionRate } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import { projectToolStats } from '../console/console.service.js';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import { getOwnedProject, type OwnedProjects } from '../projects/project.service.js';
import { countReportsByVersion, sumUsage, usagePieces } from './tool-usage.repository.js';
import { WINDOWS_KEPT_MS } from './usage.service.js';

/** Tools of the report counts merged with the call counts: the busiest of each, at most. */
const TOOLS_READ = 1000;

type Ctx = { db: Kysely<DB>; database: Database; ownedProjects: OwnedProjects };

function rates(calls: number | null, errors: number | null, reports: number) {
  const counted = calls !== null && calls > 0;
  return {
    calls,
    errors,
    error_rate: counted && errors !== null ? errors / calls : null,
    reports,
    reports_per_1000_calls: counted ? (reports * 1000) / calls : null,
  };
}

/**
 * Per tool, the calls and errors hosts counted (POST /v1/usage) beside the reports agents sent,
 * over a range (all time without one): error rate and reports per 1,000 calls where counts
 * exist, null where none arrived. Tools with counts and no report are listed, and tools with
 * reports and no counts. Busiest first. With `by=server_version`, one tool's figures per
 * version, so a release can be compared with the one before.
 */
export async function toolRates(
  ctx: Ctx,
  accountId: string,
  projectId: string,
  query: ToolRatesQuery,
): Promise<ToolRates> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const range = { from: query.from?.start, before: query.to?.end };
  const pieces = usagePieces(range, new Date(Date.now() - WINDOWS_KEPT_MS));
  const [usage, reported] = await Promise.all([
    sumUsage(ctx.db, project.id, pieces, { toolName: query.tool_name }),
    projectToolStats(ctx, accountId, projectId, {
      from: query.from,
      to: query.to,
      source: undefined,
      page: 1,
      limit: TOOLS_READ,
    }),
  ]);
  const byTool = new Map<string | null, ToolRate>();
  const counted = new Map(usage.map((u) => [u.toolName, u]));
  for (const tool of reported.tools) {
    if (query.tool_name !== undefined && tool.tool_name !== query.tool_name) continue;
    const u = tool.tool_name === null ? undefined : counted.get(tool.tool_name);
    byTool.set(tool.tool_name, {
      tool_name: tool.tool_name,
      ...rates(u?.calls ?? null, u?.errors ?? null, tool.total),
    });
  }
  for (const u of usage) {
    if (!byTool.has(u.toolName))
      byTool.set(u.toolName, { tool_name: u.toolName, ...rates(u.calls, u.errors, 0) });
  }
  const tools = [...byTool.values()].sort(
    (a, b) =>
      (b.calls ?? -1) - (a.calls ?? -1) ||
      b.reports - a.reports ||
      (a.tool_name === null ? 1 : b.tool_name === null ? -1 : a.tool_name < b.tool_name ? -1 : 1),
  );
  const offset = (query.page - 1) * query.limit;
  return {
    project: { id: project.id, name: project.name },
    tools: tools.slice(offset, offset + query.limit),
    ...(query.by === 'server_version' && query.tool_name !== undefined
      ? { versions: await versionRates(ctx, project.id, query.tool_name, range, pieces) }
      : {}),
    pagination: { page: query.page, limit: query.limit, total: tools.length },
  };
}

async function versionRates(
  ctx: Ctx,
  projectId: string,
  toolName: string,
  range: { from?: Date; before?: Date },
  pieces: ReturnType<typeof usagePieces>,
): Promise<VersionRate[]> {
  const [usage, reports] = await Promise.all([
    sumUsage(ctx.db, projectId, pieces, { toolName, byVersion: true }),
    countReportsByVersion(ctx.db, ctx.database.dialect, projectId, toolName, range),
  ]);
  const versions = new Map<
    string,
    { calls: number | null; errors: number | null; reports: number; first: number; last: number }
  >();
  for (const u of usage) {
    versions.set(u.serverVersion, {
      calls: u.calls,
      errors: u.errors,
      reports: 0,
      first: u.first,
      last: u.last,
    });
  }
  for (const r of reports) {
    const v = versions.get(r.serverVersion);
    if (v) {
      v.reports = r.reports;
      v.first = Math.min(v.first, r.first);
      v.last = Math.max(v.last, r.last);
    } else {
      versions.set(r.serverVersion, { calls: null, errors: null, ...r });
    }
  }
  return [...versions.entries()]
    .sort(([, a], [, b]) => a.first - b.first)
    .map(([version, v]) => ({
      server_version: version === '' ? null : version,
      ...rates(v.calls, v.errors, v.reports),
      first_seen: toWireTimestamp(new Date(v.first)),
      last_seen: toWireTimestamp(new Date(v.last)),
    }));
}
