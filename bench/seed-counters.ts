/**
 * The counters the server keeps beside the reports, rebuilt from the seeded reports with a
 * group-by in SQL: `report_counts` (per project, tool, source, outcome) and, when the schema
 * being measured has it, `report_rollups` (the same per hour). With them the seeded database
 * is what the API would have produced, so every read path answers as it would in production.
 */
import { query, type SeedConnection, tableExists } from './seed-connection.js';

const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Candidate SQL expressions for a report's hour bucket, in the forms a rollup table might store
 * it (ISO text truncated to the hour, a timestamp, or epoch hours, seconds or milliseconds).
 * `sample` is a stored bucket, from which a text form takes its separator and suffix.
 */
function hourCandidates(dialect: SeedConnection['dialect'], sample: unknown): string[] {
  const candidates: string[] = [];
  const text = typeof sample === 'string' && /^\d{4}-\d{2}-\d{2}.\d{2}/.test(sample);
  const sep = text ? sqlText((sample as string).slice(10, 11)) : '';
  const suffix = text ? sqlText((sample as string).slice(13)) : '';
  if (dialect === 'sqlite') {
    if (text)
      candidates.push(
        `substr(p.created_at, 1, 10) || ${sep} || substr(p.created_at, 12, 2) || ${suffix}`,
      );
    const seconds = `cast(strftime('%s', p.created_at) as integer)`;
    candidates.push(`${seconds} / 3600`, `${seconds} / 3600 * 3600`, `${seconds} / 3600 * 3600000`);
  } else {
    candidates.push(`date_trunc('hour', p.created_at)`);
    if (text)
      candidates.push(
        `to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD') || ${sep} || to_char(p.created_at at time zone 'UTC', 'HH24') || ${suffix}`,
      );
    const hours = `floor(extract(epoch from p.created_at) / 3600)::bigint`;
    candidates.push(hours, `${hours} * 3600`, `${hours} * 3600000`);
  }
  return candidates;
}

/**
 * How the server buckets a report's hour, learnt from a report it stored through the API
 * (`probeReportId`): the candidate whose value for that report matches the rollup row the
 * server wrote. Learnt rather than assumed, so the bench follows the rollup migration of the
 * code it measures; it fails loudly rather than seed counters the server would not have kept.
 */
async function hourExpression(conn: SeedConnection, probeReportId: string): Promise<string> {
  const [row] = await query<{ hour: unknown }>(
    conn,
    'select r.hour as hour from report_rollups r, reports p where p.id = ? and r.project_id = p.project_id',
    [probeReportId],
  );
  if (!row)
    throw new Error(
      'report_rollups exists but holds no row for the report submitted through the API',
    );
  for (const candidate of hourCandidates(conn.dialect, row.hour)) {
    try {
      const match = await query<{ n: number | string }>(
        conn,
        `select count(*) as n from report_rollups r, reports p
         where p.id = ? and r.project_id = p.project_id and r.hour = ${candidate}`,
        [probeReportId],
      );
      if (Number(match[0]?.n) > 0) return candidate;
    } catch {
      // A candidate of another type (text against a timestamp on PostgreSQL): the next one.
    }
  }
  throw new Error(`cannot tell how report_rollups.hour is bucketed (sample: ${String(row.hour)})`);
}

/**
 * Replaces the projects' counter rows by counts of their reports. Returns whether rollups were
 * seeded (false when the schema measured has no report_rollups table).
 */
export async function rebuildCounters(
  conn: SeedConnection,
  projectIds: string[],
  probeReportId: string,
): Promise<boolean> {
  const rollups = await tableExists(conn, 'report_rollups');
  const hour = rollups ? await hourExpression(conn, probeReportId) : null;
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
    if (hour === null) continue;
    await query(conn, 'delete from report_rollups where project_id = ?', [projectId]);
    await query(
      conn,
      `insert into report_rollups (project_id, hour, tool_name, source, outcome, count)
       select p.project_id, ${hour}, ${labels}, count(*) from reports p where p.project_id = ?
       group by p.project_id, ${hour}, ${labels}`,
      [projectId],
    );
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
    if (rollups) await query(conn, 'vacuum analyze report_rollups');
  }
  return rollups;
}
