/**
 * The counters the server keeps beside the reports, rebuilt from the seeded reports with a
 * group-by in SQL: `report_counts` (per project, tool, source, outcome) and, when the schema
 * being measured has them, its per-outcome totals (migration 0018) and the rollups (per UTC
 * minute, hour or day, by outcome and the labels each keeps: ROLLUP_GRAINS). With them the
 * seeded database is what the API would have produced, so every read path answers as it would
 * in production.
 */
import {
  ROLLUP_GRAINS,
  type RollupGrain,
  rollupColumns,
} from '../packages/server/src/reports/report-rollup-key.js';
import { query, type SeedConnection, tableExists } from './seed-connection.js';

/**
 * A report's bucket in each rollup table, as the server computes it (migrations 0010, 0015 and
 * 0016, reports/report-rollup-key.ts): the UTC minute, hour, day or week (from a Thursday) it
 * starts, timestamptz on PostgreSQL and ISO 8601 text on SQLite.
 */
function bucket(dialect: SeedConnection['dialect'], grain: RollupGrain['column']): string {
  if (grain === 'week')
    return dialect === 'postgres'
      ? 'to_timestamp(floor(extract(epoch from p.created_at) / 604800) * 604800)'
      : `strftime('%Y-%m-%dT%H:%M:%fZ', (cast(strftime('%s', p.created_at) as integer) / 604800) * 604800, 'unixepoch')`;
  if (dialect === 'postgres')
    return `date_trunc('${grain}', p.created_at at time zone 'UTC') at time zone 'UTC'`;
  if (grain === 'minute') return `substr(p.created_at, 1, 16) || ':00.000Z'`;
  return grain === 'hour'
    ? `substr(p.created_at, 1, 13) || ':00:00.000Z'`
    : `substr(p.created_at, 1, 10) || 'T00:00:00.000Z'`;
}

/** A rollup's column as computed from a report `p`: its bucket, or a label ('' when absent). */
function columnValue(
  dialect: SeedConnection['dialect'],
  grain: RollupGrain,
  column: string,
): string {
  if (column === grain.column) return bucket(dialect, grain.column);
  if (column === 'tool_name' || column === 'source') return `coalesce(p.${column}, '')`;
  return `p.${column}`;
}

/** The rollup tables of the schema measured (an older one may lack some). */
async function rollupsOf(conn: SeedConnection): Promise<RollupGrain[]> {
  const present: RollupGrain[] = [];
  for (const grain of ROLLUP_GRAINS as readonly RollupGrain[])
    if (await tableExists(conn, grain.table)) present.push(grain);
  return present;
}

/**
 * Replaces the projects' counter rows by counts of their reports. Returns whether rollups were
 * seeded (false when the schema measured has no report_rollups table).
 */
export async function rebuildCounters(
  conn: SeedConnection,
  projectIds: string[],
): Promise<boolean> {
  const grains = await rollupsOf(conn);
  const rollups = grains.length > 0;
  // Per-outcome totals (migration 0018), when the schema measured has them.
  const totals = await tableExists(conn, 'report_outcome_counts');
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
    if (totals) {
      await query(conn, 'delete from report_outcome_counts where project_id = ?', [projectId]);
      await query(
        conn,
        `insert into report_outcome_counts (project_id, outcome, count)
         select project_id, outcome, sum(count) from report_counts where project_id = ?
         group by project_id, outcome`,
        [projectId],
      );
    }
    for (const grain of grains) {
      const columns = rollupColumns(grain);
      const values = columns.map((column) => columnValue(conn.dialect, grain, column)).join(', ');
      await query(conn, `delete from ${grain.table} where project_id = ?`, [projectId]);
      await query(
        conn,
        `insert into ${grain.table} (${columns.join(', ')}, count)
         select ${values}, count(*) from reports p where p.project_id = ?
         group by ${values}`,
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
    if (totals) await query(conn, 'vacuum analyze report_outcome_counts');
    for (const { table } of grains) await query(conn, `vacuum analyze ${table}`);
  }
  return rollups;
}
