import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../db/database.js';
import { decodeReportIds, encodeReportIds } from '../../db/grouping-queue-row.js';
import { UNROUTED_READ } from '../../db/read-routing.js';
import type { DB } from '../../db/schema.js';
import { iso } from '../../db/wire-timestamp.js';
import type { ReportToGroup } from './group-reports.js';
import type { KnownInputs } from './stored-inputs.js';
import type { Placement } from './working-issue.js';

/**
 * The reports waiting for their issue, and their placement (migration 0019). A stored batch of
 * reports that was not grouped as it was stored is queued as ONE row of `grouping_queue`
 * (db/grouping-queue-row.ts: its report ids, from when its first report was stored). The grouper reads the queue in
 * that order, groups the reports, inserts each one's row of `report_issues` (with its issue) and
 * deletes the rows it consumed, all in its batch's transaction. `report_issues` therefore only
 * holds placed reports, each written once.
 *
 * Why (measured, PostgreSQL, the bench's ingest at a fixed 3,000 req/s, pg_stat_statements):
 * were the write path to insert every report's `report_issues` row without an issue for the
 * grouper to update, the update would cost PostgreSQL ~57 µs a report (a new row version and
 * two index entries, next to the pages the ingest is inserting into), the insert at ingest ~19
 * (three indexes, one of them a partial index of the waiting). With the queue, the grouper's
 * insert costs ~9 µs a report and the ingest one row per batch: PostgreSQL's CPU a report with
 * grouping +16 µs instead of +53 over ISSUE_GROUPING=off, and ingest without grouping cheaper too.
 *
 * A report moved by hand before the grouper reached it (triage.service.ts moveReport) already
 * has its row: the grouper skips it (exactly once).
 */

/**
 * Where a scan of the queue begins: at its first entry (`all`), or (`recent`, PostgreSQL)
 * WAITING_SCAN_SLACK_SECONDS before the last report grouped.
 *
 * Why `recent`: on PostgreSQL a consumed row keeps its index entry until vacuum removes it. The
 * index is in report order, so these entries pile up at its start, ahead of every waiting row,
 * and a scan from the start walks them all (measured with a row per waiting report: ~43 ms with
 * 2,000,000 grouped since the last vacuum, against 0.06 ms from the bound). A batch stored more
 * than the slack behind the last grouped report (a commit that stalled, a clock behind another
 * instance's) is found by the next `all` scan (batch-runner.ts). SQLite removes an index entry
 * with its row: always `all`, and `all` is the only exact answer to "does any report wait?"
 */
export type WaitingScan = 'all' | 'recent';

/** How far before the last grouped report a `recent` scan begins. */
const WAITING_SCAN_SLACK_SECONDS = 10;

/** Whether `scan` starts after the index's first entry: `recent` on PostgreSQL. */
function bounded(dialect: Dialect, scan: WaitingScan): boolean {
  return scan === 'recent' && dialect === 'postgres';
}

/** Where a `recent` scan starts (PostgreSQL): one value, computed once per statement. */
const RECENT_START = sql<Date>`coalesce(
  (select last_created_at from grouping_progress where id = 'default')
    - ${sql.raw(`interval '${WAITING_SCAN_SLACK_SECONDS} seconds'`)},
  '-infinity')`;

/**
 * Queue rows a read asks for at once: a stored batch under load holds tens of reports, so one
 * page usually covers a grouper's batch; the read goes on page by page while it does not.
 */
const QUEUE_PAGE_ROWS = 100;

interface QueueRow {
  id: string;
  created_at: string | Date;
  report_ids: string;
}

/** What a batch takes off the queue: rows it consumed whole, and the rest of one it split. */
export interface QueueTake {
  done: string[];
  rest: { id: string; reportIds: string[] } | null;
}

/**
 * What the write path handed a grouper of the reports it stored (stored-inputs.ts), and whether
 * the queued reports among them may be grouped from it as they are: only while nothing but this
 * grouper has written issues since its last batch (pool-cache.ts PoolCache.unchangedAt). Triage
 * is the one other writer that places a queued report (a move by hand), and it writes issues.
 */
export interface HandedOver {
  inputs: KnownInputs;
  trusted: boolean;
}

/**
 * The next `limit` waiting reports (fewer if the queue holds fewer), in report order, within
 * `scan`, and what reading them takes off the queue (placeWaitingReports consumes it): the
 * queue's rows in their order (a walk of its index from the start, or from the bound of a
 * `recent` scan), then the reports: those `handed` over as they are, the others read by key,
 * those already placed (moved by hand) left out.
 */
export async function listWaitingReports(
  trx: Kysely<DB>,
  dialect: Dialect,
  limit: number,
  scan: WaitingScan,
  handed?: HandedOver,
) {
  const take: QueueTake = { done: [], rest: null };
  const ids: string[] = [];
  let after: QueueRow | null = null;
  pages: while (ids.length < limit) {
    const start: QueueRow | null = after;
    const rows: QueueRow[] = await trx
      .selectFrom('grouping_queue')
      .select(['id', 'created_at', 'report_ids'])
      .$if(bounded(dialect, scan), (q) => q.where('created_at', '>=', RECENT_START))
      .$if(start !== null, (q) =>
        q.where((eb) =>
          eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(start!.created_at, start!.id)),
        ),
      )
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(QUEUE_PAGE_ROWS)
      .execute();
    for (const row of rows) {
      const room = limit - ids.length;
      if (room === 0) break pages;
      const named = decodeReportIds(row.report_ids);
      if (named.length > room) {
        ids.push(...named.slice(0, room));
        take.rest = { id: row.id, reportIds: named.slice(room) };
        break pages;
      }
      ids.push(...named);
      take.done.push(row.id);
    }
    if (rows.length < QUEUE_PAGE_ROWS) break;
    after = rows[rows.length - 1]!;
  }
  if (ids.length === 0) return { reports: [], take };
  if (!handed) return { reports: await readWaitingReports(trx, dialect, ids), take };
  const given: WaitingReport[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    // Taken off whether used or not: grouped by this batch either way, if it commits.
    const input = handed.inputs.take(id);
    if (input && handed.trusted) given.push(input);
    else unknown.push(id);
  }
  const read = unknown.length > 0 ? await readWaitingReports(trx, dialect, unknown) : [];
  if (given.length === 0) return { reports: read, take };
  return { reports: inReportOrder(read.length > 0 ? given.concat(read) : given), take };
}

/**
 * `reports` sorted as `order by created_at, id` sorts them (ids are lowercase hex; a stored
 * time's text is ISO, which sorts as the time does).
 */
function inReportOrder(reports: WaitingReport[]): WaitingReport[] {
  const keyed = reports.map((report) => {
    const at = report.created_at;
    return { time: typeof at === 'string' ? at : iso(at), report };
  });
  keyed.sort((a, b) =>
    a.time < b.time
      ? -1
      : a.time > b.time
        ? 1
        : a.report.id < b.report.id
          ? -1
          : a.report.id > b.report.id
            ? 1
            : 0,
  );
  return keyed.map(({ report }) => report);
}

/** The stored reports `ids` names, without those placed already, in report order. */
async function readWaitingReports(
  trx: Kysely<DB>,
  dialect: Dialect,
  ids: readonly string[],
): Promise<WaitingReport[]> {
  // Driven by the ids, a key lookup each: on PostgreSQL `unnest` of one array parameter, one
  // text whatever the count (`id = any($1)` let the planner scan all of `reports` at 20,000
  // reports: grouping-plans.happy.test.ts); SQLite has no arrays, a list.
  const named =
    dialect === 'postgres'
      ? sql`unnest(${pgList(ids)}) as named(id) join reports on reports.id = named.id`
      : sql`reports`;
  const { rows: reports } = await sql<WaitingReport>`
    select reports.id, reports.project_id, reports.outcome, reports.tool_name, reports.details,
      reports.created_at
    from ${named}
    left join report_issues on report_issues.report_id = reports.id
    where report_issues.report_id is null
      ${dialect === 'postgres' ? sql`` : sql`and reports.id in (${sql.join(ids)})`}
    order by reports.created_at, reports.id
  `.execute(trx);
  return reports;
}

/**
 * Report ids (hex, as a queue row's id is) or numbers as a PostgreSQL text[], sent as one text
 * the server splits: given a JavaScript array, node-postgres quotes and escapes each element,
 * ~20 % of the grouping thread's CPU with a batch's thousand ids sent twice (a CPU profile of
 * 20,000 grouped in batches of 1,000). Never for text that may hold a comma.
 */
function pgList(items: readonly (string | number)[]) {
  return sql`string_to_array(${items.join(',')}, ',')`;
}

/** `list` as its distinct values and, for each item, its value's 1-based number among them. */
function numbered(list: readonly string[]): { values: string[]; numbers: number[] } {
  const at = new Map<string, number>();
  const values: string[] = [];
  const numbers = list.map((value) => {
    let n = at.get(value);
    if (n === undefined) {
      n = values.push(value);
      at.set(value, n);
    }
    return n;
  });
  return { values, numbers };
}

/** A waiting report, as the engine reads it. */
export type WaitingReport = ReportToGroup;

/**
 * Whether any stored report waits for its issue, within `scan`: one row of the queue, in its
 * order. Asked by the report writer before it groups arriving reports (in its transaction,
 * `all`), and by a grouper before it takes its lock (batch-runner.ts), on its own connection
 * (UNROUTED_READ): it has passed the writer's barrier already, and an in-process grouper's probe
 * would otherwise start a reader process of a server nobody reads from.
 */
export async function anyReportWaiting(
  db: Kysely<DB>,
  dialect: Dialect,
  scan: WaitingScan,
): Promise<boolean> {
  const { rows } = await sql`
    ${UNROUTED_READ} select id from grouping_queue
    ${bounded(dialect, scan) ? sql`where created_at >= ${RECENT_START}` : sql``}
    order by created_at, id limit 1
  `.execute(db);
  return rows.length > 0;
}

/** Rows of a SQLite insert into `report_issues`: 5 parameters each. */
const SQLITE_ROWS = 200;

/**
 * Places the reports read by listWaitingReports (`reports`) in their issues, with the engine's
 * reason for each: their rows of `report_issues`, inserted, and takes `take` off the queue.
 *
 * A plain insert, without `on conflict`: none of `reports` has a row yet. The read left out
 * those placed by hand (triage.service.ts moveReport), and nothing else places a queued report
 * while the batch holds the progress row's lock, which a move waits for. On PostgreSQL `on
 * conflict do nothing` probed the primary key before each row's insert, which probes it again:
 * the statement cost ~10.2 µs of PostgreSQL's time a report without it ~7.6 (medians of 8 rounds
 * of 20,000 grouped 1,000 a batch, pg_stat_statements). Were one there after all, the unique
 * key fails the batch, which rolls back and is read again.
 *
 * On PostgreSQL in one statement, sized for the wire: the report ids as one array, each one's
 * issue and reason as numbers into arrays of the batch's distinct issues and reasons (a batch
 * has a few of each), and the project and time read from the report's row by key. Sending every
 * column of every row (~200 bytes a report) cost the grouping thread ~3 µs a report in the
 * socket's writes alone (a CPU profile of 20,000 grouped in batches of 1,000).
 */
export async function placeWaitingReports(
  trx: Kysely<DB>,
  dialect: Dialect,
  placements: readonly Placement[],
  reports: readonly WaitingReport[],
  take: QueueTake,
): Promise<void> {
  // An empty queue (a round that found nothing): no round trip.
  if (placements.length === 0 && take.done.length === 0 && take.rest === null) return;
  if (dialect === 'postgres') {
    const issues = numbered(placements.map((p) => p.issueId));
    const reasons = numbered(placements.map((p) => p.reason));
    await sql`
      with consumed as (delete from grouping_queue where id = any(${pgList(take.done)}))
      insert into report_issues (report_id, project_id, created_at, issue_id, issue_reason)
      select reports.id, reports.project_id, reports.created_at,
        (${issues.values}::text[])[v.issue], (${reasons.values}::text[])[v.reason]
      from unnest(${pgList(placements.map((p) => p.reportId))},
        ${pgList(issues.numbers)}::int[], ${pgList(reasons.numbers)}::int[]) as v(id, issue, reason)
      join reports on reports.id = v.id
    `.execute(trx);
  } else {
    const byId = new Map(reports.map((r) => [r.id, r]));
    const rows = placements.map((p) => {
      const report = byId.get(p.reportId);
      if (!report) throw new Error(`Placed a report the batch did not read (${p.reportId}).`);
      return {
        report_id: p.reportId,
        project_id: report.project_id,
        created_at: iso(report.created_at),
        issue_id: p.issueId,
        issue_reason: p.reason,
      };
    });
    for (let i = 0; i < rows.length; i += SQLITE_ROWS) {
      await trx
        .insertInto('report_issues')
        .values(rows.slice(i, i + SQLITE_ROWS))
        .execute();
    }
    if (take.done.length > 0)
      await trx.deleteFrom('grouping_queue').where('id', 'in', take.done).execute();
  }
  if (take.rest) {
    // The rest keeps its place in report order from its first report's time: a row stored over
    // more than a `recent` scan's slack (an upgrade's, 0019) is otherwise left behind it.
    const [first] = take.rest.reportIds;
    await trx
      .updateTable('grouping_queue')
      .set({
        report_ids: encodeReportIds(take.rest.reportIds),
        created_at: sql<string>`coalesce(
          (select created_at from reports where id = ${first}), grouping_queue.created_at)`,
      })
      .where('id', '=', take.rest.id)
      .execute();
  }
}
