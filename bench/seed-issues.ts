/**
 * Groups the seeded reports into issues, as the server's grouper would have done
 * long before a project reached a million reports: one issue per project, tool and kind
 * (success, problem, request), each report naming its issue. Without it the server starts on
 * two million ungrouped reports, and the read rows measured its grouper catching up instead of
 * the reads. Their counts per issue and day (`issue_days`) are filled from the placements. The issues' signatures come from the real engine, so reports sent during the run
 * are compared with them as with any issue.
 */
import { randomBytes } from 'node:crypto';
import { fingerprint, TERMS_VERSION } from '../packages/server/src/issues/grouping/index.js';
import { DETAILS } from './seed.js';
import { query, type SeedConnection, stampTermsVersion, tableExists } from './seed-connection.js';

const KIND = `case p.outcome when 'success' then 'success' when 'request' then 'request' else 'problem' end`;

interface Group {
  tool_name: string | null;
  kind: string;
  n: number | string;
  success: number | string;
  failure: number | string;
  confusing: number | string;
  gave_up: number | string;
  request: number | string;
  first_seen: string | Date;
  last_seen: string | Date;
}

const iso = (value: string | Date) =>
  value instanceof Date ? value.toISOString() : new Date(value).toISOString();

/** Returns whether the schema has issues (false: nothing to group). */
export async function groupSeededReports(
  conn: SeedConnection,
  projectIds: string[],
): Promise<boolean> {
  if (!(await tableExists(conn, 'issues'))) return false;
  const narrow = await tableExists(conn, 'report_issues');
  const count = (outcome: string) => `sum(case when p.outcome = '${outcome}' then 1 else 0 end)`;
  await query(conn, 'begin');
  for (const projectId of projectIds) {
    const groups = await query<Group>(
      conn,
      `select p.tool_name as tool_name, ${KIND} as kind, count(*) as n,
         ${count('success')} as success, ${count('failure')} as failure,
         ${count('confusing')} as confusing, ${count('gave_up')} as gave_up,
         ${count('request')} as request,
         min(p.created_at) as first_seen, max(p.created_at) as last_seen
       from reports p where p.project_id = ? group by p.tool_name, ${KIND}`,
      [projectId],
    );
    const now = new Date().toISOString();
    for (const group of groups) {
      const id = randomBytes(16).toString('hex');
      const counts = {
        success: Number(group.success),
        failure: Number(group.failure),
        confusing: Number(group.confusing),
        gave_up: Number(group.gave_up),
        request: Number(group.request),
      };
      const outcome = Object.entries(counts).sort((a, b) => b[1] - a[1])[0]![0];
      const signature = fingerprint({ outcome, tool_name: group.tool_name, details: DETAILS[0]! });
      await query(
        conn,
        `insert into issues (id, project_id, status, title, tool_name, kind, signature, outcome,
           report_count, count_success, count_failure, count_confusing, count_gave_up,
           count_request, sample_details, first_seen, last_seen, created_at, updated_at)
         values (?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          id,
          projectId,
          `Seeded ${group.kind} reports of ${group.tool_name ?? 'no tool'}`,
          group.tool_name,
          group.kind,
          JSON.stringify(signature),
          outcome,
          Number(group.n),
          counts.success,
          counts.failure,
          counts.confusing,
          counts.gave_up,
          counts.request,
          DETAILS[0]!,
          iso(group.first_seen),
          iso(group.last_seen),
          now,
          now,
        ],
      );
      const tool = group.tool_name === null ? 'p.tool_name is null' : 'p.tool_name = ?';
      // Each report's row of `report_issues` (migration 0017), or, before it, its own columns.
      await query(
        conn,
        narrow
          ? `insert into report_issues (report_id, project_id, created_at, issue_id, issue_reason)
             select p.id, p.project_id, p.created_at, ?, 'seeded by the bench' from reports p
             where p.project_id = ? and ${tool} and ${KIND} = ?
             on conflict (report_id) do update
             set issue_id = excluded.issue_id, issue_reason = excluded.issue_reason`
          : `update reports set issue_id = ?, issue_reason = 'seeded by the bench'
             where project_id = ? and ${tool.replace(/p\./g, '')} and ${KIND.replace(/p\./g, '')} = ?`,
        group.tool_name === null
          ? [id, projectId, group.kind]
          : [id, projectId, group.tool_name, group.kind],
      );
    }
  }
  await stampTermsVersion(conn, projectIds, TERMS_VERSION);
  // Their reports per issue and UTC day (migration 0036), as the grouper keeps them.
  const days = await tableExists(conn, 'issue_days');
  if (days) {
    const day =
      conn.dialect === 'postgres'
        ? `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`
        : 'substr(created_at, 1, 10)';
    for (const projectId of projectIds) {
      await query(conn, 'delete from issue_days where project_id = ?', [projectId]);
      await query(
        conn,
        `insert into issue_days (issue_id, day, project_id, count)
         select issue_id, ${day}, project_id, count(*) from report_issues
         where project_id = ? and issue_id is not null
         group by project_id, issue_id, ${day}`,
        [projectId],
      );
    }
  }
  await query(conn, 'commit');
  if (conn.dialect === 'postgres') {
    await query(conn, 'vacuum analyze issues');
    if (narrow) await query(conn, 'vacuum analyze report_issues');
    if (days) await query(conn, 'vacuum analyze issue_days');
  }
  return true;
}
