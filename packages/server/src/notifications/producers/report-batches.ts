import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { toWireTimestamp } from '../../db/wire-timestamp.js';
import { MINUTE_MS } from '../../time/utc-time.js';
import { advanceMark, claimMark, findMark } from './notification-marks.repository.js';
import type { ProducerDeps, SubscribedDestination } from './subscribers.js';

const SCOPE = 'report.created';
/** At most one `report.created` message per destination per minute; the rest wait for the next. */
export const REPORT_BATCH_MS = MINUTE_MS;
/**
 * Reports are read once they are this old: a report's `created_at` is set before its commit, and
 * on SQLite it reaches `reports` from the writer's inbox a moment later, so the newest seconds
 * are left for the next pass instead of being skipped.
 */
export const REPORT_SETTLE_MS = 10_000;
/** Reports a message carries in `data.reports`; `data.count` says how many there were. */
export const REPORTS_PER_MESSAGE = 5;
const DETAILS_MAX = 1000;

/** The cursor of a destination: reports up to `after` are announced; `sent_at` the last message. */
interface Cursor {
  after: string;
  sent_at: string | null;
}

/**
 * `report.created`, bounded: every pass (a few seconds apart) each subscribed destination whose
 * last message is a minute old gets one message for the reports that match its filter since its
 * cursor: the first few in `data.reports`, how many in `data.count`. The cursor moves in the
 * transaction that enqueues the message, by a compare-and-set, so a crash or a second instance
 * never sends a report twice. A new destination starts with the reports that arrive after it.
 * Reading behind ingest, rather than in the write path, keeps ingest's throughput untouched.
 */
export async function sendReportBatches(deps: ProducerDeps, now: Date): Promise<number> {
  const destinations = await deps.findSubscribers(deps.db, 'report.created');
  // Destinations of one project with one filter read the same range in the same pass (their
  // cursors move together): read it once for all of them.
  const reads = new Map<string, ReturnType<typeof matchingReports>>();
  const read: ReadReports = (destination, after, bound) => {
    const { outcome, tool_name, source } = destination.filter;
    const key = JSON.stringify([destination.projectId, outcome, tool_name, source, after, bound]);
    let found = reads.get(key);
    if (!found) {
      found = matchingReports(deps.db, destination, after, bound);
      reads.set(key, found);
    }
    return found;
  };
  let sent = 0;
  for (const destination of destinations) {
    if (await sendBatch(deps, destination, now, read)) sent += 1;
  }
  return sent;
}

type ReadReports = (
  destination: SubscribedDestination,
  after: string,
  bound: string,
) => ReturnType<typeof matchingReports>;

async function sendBatch(
  deps: ProducerDeps,
  destination: SubscribedDestination,
  now: Date,
  read: ReadReports,
): Promise<boolean> {
  const bound = new Date(now.getTime() - REPORT_SETTLE_MS).toISOString();
  const mark = await findMark(deps.db, SCOPE, destination.id);
  if (!mark) {
    const start: Cursor = { after: bound, sent_at: null };
    await claimMark(deps.db, SCOPE, destination.id, JSON.stringify(start), now);
    return false;
  }
  const cursor = JSON.parse(mark.value) as Cursor;
  if (cursor.sent_at && now.getTime() - Date.parse(cursor.sent_at) < REPORT_BATCH_MS) return false;
  if (cursor.after >= bound) return false;
  const { count, first } = await read(destination, cursor.after, bound);
  if (count === 0) {
    // Nothing to say: move the cursor now and then, so the next pass's range stays short.
    if (now.getTime() - new Date(mark.updated_at).getTime() >= REPORT_BATCH_MS)
      await advanceMark(
        deps.db,
        SCOPE,
        destination.id,
        mark.value,
        JSON.stringify({ ...cursor, after: bound }),
        now,
      );
    return false;
  }
  const next: Cursor = { after: bound, sent_at: now.toISOString() };
  return deps.db.transaction().execute(async (trx) => {
    if (!(await advanceMark(trx, SCOPE, destination.id, mark.value, JSON.stringify(next), now)))
      return false;
    await deps.enqueue(trx, [
      {
        projectId: destination.projectId,
        type: 'report.created',
        reportId: first[0]?.id,
        destinationId: destination.id,
        data: {
          count,
          reports: first.map((r) => ({
            id: r.id,
            outcome: r.outcome,
            tool_name: r.tool_name,
            source: r.source,
            details:
              r.details.length > DETAILS_MAX
                ? `${r.details.slice(0, DETAILS_MAX - 1)}…`
                : r.details,
            created_at: toWireTimestamp(r.created_at),
            issue_id: r.issue_id,
          })),
        },
      },
    ]);
    return true;
  });
}

async function matchingReports(
  db: Kysely<DB>,
  destination: SubscribedDestination,
  after: string,
  bound: string,
) {
  let q = db
    .selectFrom('reports')
    .where('reports.project_id', '=', destination.projectId)
    .where('reports.created_at', '>', after)
    .where('reports.created_at', '<=', bound);
  const { outcome, tool_name, source } = destination.filter;
  if (outcome !== undefined) q = q.where('reports.outcome', '=', outcome);
  if (tool_name !== undefined) q = q.where('reports.tool_name', '=', tool_name);
  if (source !== undefined) q = q.where('reports.source', '=', source);
  const total = await q
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  const first = await q
    .leftJoin('report_issues', 'report_issues.report_id', 'reports.id')
    .select([
      'reports.id',
      'reports.outcome',
      'reports.tool_name',
      'reports.source',
      'reports.details',
      'reports.created_at',
      'report_issues.issue_id',
    ])
    .orderBy('reports.created_at', 'asc')
    .orderBy('reports.id', 'asc')
    .limit(REPORTS_PER_MESSAGE)
    .execute();
  return { count: Number(total?.n ?? 0), first };
}
