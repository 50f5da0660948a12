/**
 * The counters the server keeps beside the reports, rebuilt from the seeded reports with a
 * group-by in SQL: `report_counts` (per project, tool, source, outcome) and, when the schema
 * being measured has them, the rollups (the same per UTC hour and per UTC day). With them the seeded database
 * is what the API would have produced, so every read path answers as it would in production.
 */
import { query, type SeedConnection, tableExists } from './seed-connection.js';

/**
 * A report's bucket in each rollup table, as the server computes it (migration 0010,
 * reports/report-rollup-key.ts): the UTC hour or day it starts, timestamptz on PostgreSQL and
 * ISO 8601 text on SQLite.
 */
function bucket(dialect: SeedConnection['dialect'], grain: 'hour' | 'day'): string {
  if (dialect === 'postgres')
    return `date_trunc('${grain}', p.created_at at time zone 'UTC') at time zone 'UTC'`;
  return grain === 'hour'
    ? `substr(p.created_at, 1, 13) || ':00:00.000Z'`
    : `substr(p.created_at, 1, 10) || 'T00:00:00.000Z'`;
}

const ROLLUPS = [
  { table: 'report_rollups', column: 'hour', grain: 'hour' },
  { table: 'report_rollups_daily', column: 'day', grain: 'day' },
] as const;

/**
 * Replaces the projects' counter rows by counts of their reports. Returns whether rollups were
 * seeded (false when the schema measured has no report_rollups table).
 */
export async function rebuildCounters(
  conn: SeedConnection,
  projectIds: string[],
): Promise<boolean> {
  const rollups = await tableExists(conn, 'report_rollups');
  const labels = `coalesce(p.tool_name, ''), coalesce(p.source, ''), p.outcome`;
  await query(conn, 'begin');
  for (const projectId of projectIds) {
    await query(conn, 'delete from report_counts where project_id = ?', [projectId]);
    await query(
      conn,
      `insert into report_counts (project_id, tool_name, source, outcome, count)
       select p.project_id, ${labels}, count(*) from reports p where p.project_id = ?
       group by p.project_id, ${labels}`,
      [projectId],
    );
    if (!rollups) continue;
    for (const { table, column, grain } of ROLLUPS) {
      const at = bucket(conn.dialect, grain);
      await query(conn, `delete from ${table} where project_id = ?`, [projectId]);
      await query(
        conn,
        `insert into ${table} (project_id, ${column}, tool_name, source, outcome, count)
         select p.project_id, ${at}, ${labels}, count(*) from reports p where p.project_id = ?
         group by p.project_id, ${at}, ${labels}`,
        [projectId],
      );
    }
  }
  await query(conn, 'commit');
  if (conn.dialect === 'postgres') {
    // PostgreSQL's autovacuum vacuums and analyzes a table after a bulk insert like this one
    // (inserts alone trigger it since version 13) within a minute or two: do it now rather than
    // measure plans made without statistics, or index-only scans that must visit the heap for
    // want of a visibility map. SQLite has no automatic ANALYZE, and the server runs none: it
    // is measured as it would run.
    await query(conn, 'vacuum analyze reports');
    await query(conn, 'vacuum analyze report_counts');
    if (rollups) for (const { table } of ROLLUPS) await query(conn, `vacuum analyze ${table}`);
  }
  return rollups;
}
