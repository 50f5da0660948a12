import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { DAY_MS, HOUR_MS } from '../time/utc-time.js';

/**
 * All SQL of call counts (migration 0030): a sender's window replaced, the hourly and daily sums
 * moved by its difference, and the sums read back over a range.
 */

/** One tool's counts in one window, as a sender sent them. */
export interface WindowCounts {
  toolName: string;
  calls: number;
  errors: number;
}

export interface UsageWindow {
  projectId: string;
  /** The UTC minute the counts start at. */
  windowStart: Date;
  /** '' when the sender named none. */
  instance: string;
  /** '' when none named. */
  serverVersion: string;
  tools: readonly WindowCounts[];
}

/** The window names tools new to the project, past the cap on distinct tool names. */
export class ToolNameCapReached extends Error {
  constructor(
    readonly cap: number,
    readonly newNames: string[],
  ) {
    super(`${newNames.length} new tool names past the cap of ${cap}`);
  }
}

/**
 * Stores a sender's window, replacing what the same sender said about the same tools before,
 * and moves the hourly and daily sums by the difference: a resend counts once. In one
 * transaction, which holds the project's usage lock on PostgreSQL (two resends of one window at
 * once would each see no earlier row and both add) and SQLite's write lock from its start (its
 * transactions begin IMMEDIATE). Windows older than `pruneBefore` are deleted: none can be
 * resent any more, and the sums keep their counts.
 */
export async function replaceUsageWindow(
  db: Kysely<DB>,
  dialect: Dialect,
  window: UsageWindow,
  pruneBefore: Date,
  /** Distinct tool names a project's counts may hold; a window bringing more is refused. */
  toolNameCap: number,
): Promise<void> {
  if (window.tools.length === 0) return;
  const windowText = window.windowStart.toISOString();
  const names = window.tools.map((t) => t.toolName);
  await db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`tool_usage ${window.projectId}`}, 0))`.execute(
        trx,
      );
    }
    await checkToolNameCap(trx, window.projectId, names, toolNameCap);
    const before = await trx
      .selectFrom('tool_usage_windows')
      .select(['tool_name', 'server_version', 'calls', 'errors'])
      .where('project_id', '=', window.projectId)
      .where('window_start', '=', windowText)
      .where('instance', '=', window.instance)
      .where('tool_name', 'in', names)
      .execute();
    await trx
      .insertInto('tool_usage_windows')
      .values(
        window.tools.map((t) => ({
          project_id: window.projectId,
          window_start: windowText,
          instance: window.instance,
          tool_name: t.toolName,
          server_version: window.serverVersion,
          calls: t.calls,
          errors: t.errors,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['project_id', 'window_start', 'instance', 'tool_name']).doUpdateSet((eb) => ({
          server_version: eb.ref('excluded.server_version'),
          calls: eb.ref('excluded.calls'),
          errors: eb.ref('excluded.errors'),
        })),
      )
      .execute();

    // The difference per (tool, version): the new counts added, the replaced ones taken away.
    const deltas = new Map<
      string,
      { toolName: string; version: string; calls: number; errors: number }
    >();
    const add = (toolName: string, version: string, calls: number, errors: number) => {
      const key = `${version}\u0000${toolName}`;
      const delta = deltas.get(key) ?? { toolName, version, calls: 0, errors: 0 };
      delta.calls += calls;
      delta.errors += errors;
      deltas.set(key, delta);
    };
    for (const t of window.tools) add(t.toolName, window.serverVersion, t.calls, t.errors);
    for (const row of before)
      add(row.tool_name, row.server_version, -Number(row.calls), -Number(row.errors));
    const changed = [...deltas.values()].filter((d) => d.calls !== 0 || d.errors !== 0);
    if (changed.length > 0) {
      const ms = window.windowStart.getTime();
      for (const [table, column, size] of SUMS) {
        const bucket = new Date(Math.floor(ms / size) * size).toISOString();
        await sql`
          insert into ${sql.table(table)} (project_id, ${sql.ref(column)}, tool_name, server_version, calls, errors)
          values ${sql.join(
            changed.map(
              (d) =>
                sql`(${window.projectId}, ${bucket}, ${d.toolName}, ${d.version}, ${d.calls}, ${d.errors})`,
            ),
          )}
          on conflict (project_id, ${sql.ref(column)}, tool_name, server_version) do update set
            calls = ${sql.table(table)}.calls + excluded.calls,
            errors = ${sql.table(table)}.errors + excluded.errors
        `.execute(trx);
      }
    }
    await trx
      .deleteFrom('tool_usage_windows')
      .where('project_id', '=', window.projectId)
      .where('window_start', '<', pruneBefore.toISOString())
      .execute();
  });
}

/**
 * Refuses a window whose new tool names would take the project past `cap` distinct ones, so a
 * leaked ingest key cannot grow the sums (and every read of them) without bound. Exact: run
 * under the transaction's lock, so concurrent windows see each other's names.
 */
async function checkToolNameCap(
  trx: Kysely<DB>,
  projectId: string,
  names: readonly string[],
  cap: number,
): Promise<void> {
  const known = await trx
    .selectFrom('tool_usage_days')
    .select('tool_name')
    .distinct()
    .where('project_id', '=', projectId)
    .where('tool_name', 'in', names)
    .execute();
  if (known.length === names.length) return;
  const seen = new Set(known.map((row) => row.tool_name));
  const fresh = names.filter((name) => !seen.has(name));
  const counted = await trx
    .selectFrom('tool_usage_days')
    .select(sql<number | string>`count(distinct tool_name)`.as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  if (Number(counted.n) + fresh.length > cap) throw new ToolNameCapReached(cap, fresh);
}

const SUMS = [
  ['tool_usage_hours', 'hour', HOUR_MS],
  ['tool_usage_days', 'day', DAY_MS],
] as const;

type UsageTable = 'tool_usage_days' | 'tool_usage_hours' | 'tool_usage_windows';

/** A piece of a range and the table that counts it: whole days, whole hours, or windows. */
export interface UsagePiece {
  table: UsageTable;
  column: 'day' | 'hour' | 'window_start';
  from?: Date;
  before?: Date;
}

const GRAINS = [
  { table: 'tool_usage_days', column: 'day', ms: DAY_MS },
  { table: 'tool_usage_hours', column: 'hour', ms: HOUR_MS },
] as const;

/**
 * How a half-open range [from, before) is summed: its whole days from the daily sums, the whole
 * hours around them from the hourly ones, and the minutes left at its ends from the windows.
 * Windows are kept for `windowsSince` on only; an end older than that counts its whole hour.
 * All time is the daily sums alone.
 */
export function usagePieces(
  range: { from?: Date; before?: Date },
  windowsSince: Date,
  grains: readonly (typeof GRAINS)[number][] = GRAINS,
): UsagePiece[] {
  const { from, before } = range;
  const [grain, ...finer] = grains;
  if (!grain) {
    if (from && from.getTime() < windowsSince.getTime()) {
      // Outside the windows kept: the whole hour holding this end (no other piece reads it).
      const start = Math.floor(from.getTime() / HOUR_MS) * HOUR_MS;
      const end = before ? Math.ceil(before.getTime() / HOUR_MS) * HOUR_MS : undefined;
      return [
        {
          table: 'tool_usage_hours',
          column: 'hour',
          from: new Date(start),
          before: end === undefined ? undefined : new Date(end),
        },
      ];
    }
    return [{ table: 'tool_usage_windows', column: 'window_start', from, before }];
  }
  const first = from && new Date(Math.ceil(from.getTime() / grain.ms) * grain.ms);
  const end = before && new Date(Math.floor(before.getTime() / grain.ms) * grain.ms);
  if (first && end && first.getTime() >= end.getTime())
    return usagePieces(range, windowsSince, finer);
  const pieces: UsagePiece[] = [
    { table: grain.table, column: grain.column, from: first, before: end },
  ];
  if (from && first && from.getTime() < first.getTime())
    pieces.push(...usagePieces({ from, before: first }, windowsSince, finer));
  if (before && end && end.getTime() < before.getTime())
    pieces.push(...usagePieces({ from: end, before }, windowsSince, finer));
  return pieces;
}

/** Summed counts of one tool, or of one version of a tool. */
export interface UsageSum {
  toolName: string;
  serverVersion: string;
  calls: number;
  errors: number;
  /** The earliest and latest bucket that counted (ms). */
  first: number;
  last: number;
}

/**
 * The counts of a project's tools over a range (all time when open), per tool, or per tool and
 * version with `byVersion`; only `toolName` when given.
 */
export async function sumUsage(
  db: Kysely<DB>,
  projectId: string,
  pieces: readonly UsagePiece[],
  options: { toolName?: string; byVersion?: boolean },
): Promise<UsageSum[]> {
  const parts = await Promise.all(
    pieces.map((piece) => {
      const column = sql.ref(piece.column);
      const version = options.byVersion ? sql`server_version` : sql`''`;
      return sql<{
        tool_name: string;
        server_version: string;
        calls: number | string;
        errors: number | string;
        first: Date | string;
        last: Date | string;
      }>`
        select tool_name, ${version} as server_version, sum(calls) as calls, sum(errors) as errors,
          min(${column}) as first, max(${column}) as last
        from ${sql.table(piece.table)}
        where project_id = ${projectId}
          ${piece.from ? sql`and ${column} >= ${piece.from.toISOString()}` : sql``}
          ${piece.before ? sql`and ${column} < ${piece.before.toISOString()}` : sql``}
          ${options.toolName !== undefined ? sql`and tool_name = ${options.toolName}` : sql``}
        group by tool_name${options.byVersion ? sql`, server_version` : sql``}
      `.execute(db);
    }),
  );
  const sums = new Map<string, UsageSum>();
  for (const { rows } of parts) {
    for (const row of rows) {
      const key = `${row.server_version}\u0000${row.tool_name}`;
      const first = new Date(row.first).getTime();
      const last = new Date(row.last).getTime();
      const sum = sums.get(key);
      if (sum) {
        sum.calls += Number(row.calls);
        sum.errors += Number(row.errors);
        sum.first = Math.min(sum.first, first);
        sum.last = Math.max(sum.last, last);
      } else {
        sums.set(key, {
          toolName: row.tool_name,
          serverVersion: row.server_version,
          calls: Number(row.calls),
          errors: Number(row.errors),
          first,
          last,
        });
      }
    }
  }
  return [...sums.values()];
}

/** Reports about one tool per `metadata.server_version` ('' = none), with their first and last. */
export async function countReportsByVersion(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  toolName: string,
  range: { from?: Date; before?: Date },
): Promise<{ serverVersion: string; reports: number; first: number; last: number }[]> {
  const version =
    dialect === 'postgres'
      ? sql`coalesce(metadata::jsonb ->> 'server_version', '')`
      : sql`coalesce(cast(json_extract(metadata, '$.server_version') as text), '')`;
  const { rows } = await sql<{
    server_version: string;
    n: number | string;
    first: Date | string;
    last: Date | string;
  }>`
    select ${version} as server_version, count(*) as n, min(created_at) as first, max(created_at) as last
    from reports
    where project_id = ${projectId} and tool_name = ${toolName}
      ${range.from ? sql`and created_at >= ${range.from.toISOString()}` : sql``}
      ${range.before ? sql`and created_at < ${range.before.toISOString()}` : sql``}
    group by 1
  `.execute(db);
  return rows.map((row) => ({
    serverVersion: row.server_version,
    reports: Number(row.n),
    first: new Date(row.first).getTime(),
    last: new Date(row.last).getTime(),
  }));
}
