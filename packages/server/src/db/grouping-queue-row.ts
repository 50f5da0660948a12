/**
 * A row of `grouping_queue` (migration 0019), the one place its format is written and read: the
 * reports a stored batch did not group as it stored them, waiting for the background grouper
 * (issues/pipeline/grouping-queue.ts). Written by the write path (reports/write-path/: a
 * committed batch's row, or a SQLite move's rows), by the migration that made the queue and by
 * the copy of a database (db/copy-tables.ts); read and consumed by the grouper.
 *
 * A row names its reports in report order as a JSON array of ids (`report_ids`), from when its
 * earliest report was stored (`created_at`), and is named by one of its report ids (`id`), unique
 * as they are. A row names at most QUEUE_ROW_REPORTS reports, so that reading one stays bounded.
 */

/** Reports a queue row may name: a SQLite move or an upgrade splits larger ones. */
export const QUEUE_ROW_REPORTS = 1000;

/** The columns of a queue row, in the order queueRowOf gives their values. */
export const QUEUE_COLUMNS = ['id', 'created_at', 'report_ids'] as const;

/** `report_ids` of a row naming `ids`, in the order given. */
export function encodeReportIds(ids: readonly string[]): string {
  return JSON.stringify(ids);
}

/** The report ids a row's `report_ids` names, in report order. */
export function decodeReportIds(text: string): string[] {
  return JSON.parse(text) as string[];
}

/**
 * The queue row of a batch of reports stored together (in the order given, which is report
 * order), as values in QUEUE_COLUMNS order: named by its first report, from the earliest one's
 * time (ISO). Null for no reports.
 */
export function queueRowOf(
  reports: readonly { id: string; createdAt: Date }[],
): [id: string, createdAt: string, reportIds: string] | null {
  const first = reports[0];
  if (!first) return null;
  let earliest = first.createdAt;
  for (const r of reports) if (r.createdAt < earliest) earliest = r.createdAt;
  return [first.id, earliest.toISOString(), encodeReportIds(reports.map((r) => r.id))];
}

/**
 * The SQL text that queues the reports `source` selects (a `from … where …` of a table with
 * columns `id` and `created_at`), ordered by `order`, QUEUE_ROW_REPORTS a row, each row named by
 * its smallest id. SQLite's json_group_array takes the rows in the order the subquery gives them;
 * PostgreSQL's json_agg is told the order.
 */
export function queueRowsInsertSql(
  dialect: 'sqlite' | 'postgres',
  { id, source, order }: { id: string; source: string; order: string },
): string {
  const ids =
    dialect === 'postgres' ? `json_agg(${id} order by ${order})::text` : `json_group_array(${id})`;
  return `
    insert into grouping_queue (id, created_at, report_ids)
    select min(${id}), min(created_at), ${ids}
    from (
      select ${id}, created_at, (row_number() over (order by ${order}) - 1) / ${QUEUE_ROW_REPORTS} as part
      ${source}
      order by ${order}
    ) as queued
    group by part
  `;
}

/** The SQLite expression of `report_ids` for a row naming the one report whose id is `column`. */
export function singleReportIdsSql(column: string): string {
  return `json_array(${column})`;
}
