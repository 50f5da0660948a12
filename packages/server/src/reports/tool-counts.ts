import { sql } from 'kysely';

/** A page of the tools table: `offset` tools skipped, at most `limit` returned. */
export interface ToolPage {
  offset: number;
  limit: number;
}

/** One tool's counts; `toolName` null = reports sent without one. */
export interface ToolCounts {
  toolName: string | null;
  total: number;
  success: number;
  failure: number;
  confusing: number;
  gave_up: number;
  request: number;
}

/**
 * The per-outcome sums and the order of the tools table, for `report_counts` (a `count` per
 * row, '' for no tool) or `reports` (one per row, NULL for no tool): worst success rate first
 * (success over success, failure, confusing and gave_up; tools without such a use last), then
 * busiest, then the reports without a tool, then by name. Sorted and paged by the
 * database, so a project with very many tools never sends them all through the event loop.
 */
export function toolColumns(per: 'counter' | 'report') {
  const n = per === 'counter' ? sql`count` : sql`1`;
  const outcome = (o: string) =>
    sql<number | string>`sum(case when outcome = ${sql.lit(o)} then ${n} else 0 end)`;
  const total =
    per === 'counter' ? sql<number | string>`sum(count)` : sql<number | string>`count(*)`;
  const uses = sql`(${outcome('success')} + ${outcome('failure')} + ${outcome('confusing')} + ${outcome('gave_up')})`;
  const noTool =
    per === 'counter'
      ? sql<number>`max(case when tool_name = '' then 1 else 0 end)`
      : sql<number>`max(case when tool_name is null then 1 else 0 end)`;
  return [
    total.as('total'),
    outcome('success').as('success'),
    outcome('failure').as('failure'),
    outcome('confusing').as('confusing'),
    outcome('gave_up').as('gave_up'),
    outcome('request').as('request'),
    // Over the uses of the tool: a `request` asks for something it lacks, so it is not one;
    // a tool with only requests has no rate (NULL) and is listed after every rated one.
    sql<number | null>`1.0 * ${outcome('success')} / nullif(${uses}, 0)`.as('success_rate'),
    sql<number>`case when ${uses} = 0 then 1 else 0 end`.as('unrated'),
    noTool.as('no_tool'),
  ] as const;
}

/** The ORDER BY of toolColumns, by output names (both dialects accept them bare). */
export const TOOL_ORDER = sql`unrated asc, success_rate asc, total desc, no_tool asc, tool_name asc`;

export function toToolCounts(row: {
  tool_name: string | null;
  total: number | string;
  success: number | string;
  failure: number | string;
  confusing: number | string;
  gave_up: number | string;
  request: number | string;
}): ToolCounts {
  return {
    toolName: row.tool_name === '' ? null : row.tool_name,
    total: Number(row.total),
    success: Number(row.success),
    failure: Number(row.failure),
    confusing: Number(row.confusing),
    gave_up: Number(row.gave_up),
    request: Number(row.request),
  };
}
