import { OUTCOMES } from '@debrief/protocol';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { DAY_MS, startOfUtcDay, utcDay } from '../../time/utc-time.js';
import { advanceMark, claimMark, findMark } from './notification-marks.repository.js';
import { DEFAULT_DIGEST_HOUR, issueUrl, type ProducerDeps } from './subscribers.js';

const SCOPE = 'digest.daily';
/** Issues in each list of a digest. */
export const DIGEST_LIST_SIZE = 5;

/**
 * `digest.daily`: once a UTC day, at the destination's `digest_hour` (or the first check after
 * it, when the server was down at that hour), a summary of the day before: its new and regressed
 * issues, its busiest issues, and its outcome rates against the day before it. The claim
 * (`notification_marks`, the last day sent) and the notification commit together, so a digest is
 * sent once per day whatever the instances.
 */
export async function sendDailyDigests(deps: ProducerDeps, now: Date): Promise<number> {
  const destinations = await deps.findSubscribers(deps.db, 'digest.daily');
  const today = utcDay(now);
  const hour = now.getUTCHours();
  const digests = new Map<string, Record<string, unknown>>();
  let sent = 0;
  for (const destination of destinations) {
    if (hour < (destination.digestHour ?? DEFAULT_DIGEST_HOUR)) continue;
    const mark = await findMark(deps.db, SCOPE, destination.id);
    if (mark && mark.value >= today) continue;
    let data = digests.get(destination.projectId);
    if (!data) {
      data = await digestOf(deps, destination.projectId, now);
      digests.set(destination.projectId, data);
    }
    const claimed = await deps.db.transaction().execute(async (trx) => {
      const ok = mark
        ? await advanceMark(trx, SCOPE, destination.id, mark.value, today, now)
        : await claimMark(trx, SCOPE, destination.id, today, now);
      if (!ok) return false;
      await deps.enqueue(trx, [
        {
          projectId: destination.projectId,
          type: 'digest.daily',
          destinationId: destination.id,
          data,
        },
      ]);
      return true;
    });
    if (claimed) sent += 1;
  }
  return sent;
}

/** The digest of the UTC day before `now` for a project. */
export async function digestOf(
  deps: Pick<ProducerDeps, 'db' | 'publicUrl'>,
  projectId: string,
  now: Date,
): Promise<Record<string, unknown>> {
  const end = startOfUtcDay(now);
  const start = end - DAY_MS;
  const from = new Date(start).toISOString();
  const before = new Date(end).toISOString();
  const { db, publicUrl } = deps;
  const summary = (row: {
    id: string;
    title: string;
    outcome: string;
    tool_name: string | null;
    report_count: number;
  }) => ({
    id: row.id,
    title: row.title,
    outcome: row.outcome,
    tool_name: row.tool_name,
    report_count: Number(row.report_count),
    url: issueUrl(publicUrl, projectId, row.id),
  });
  const columns = ['id', 'title', 'outcome', 'tool_name', 'report_count'] as const;
  const created = await db
    .selectFrom('issues')
    .select(columns)
    .where('project_id', '=', projectId)
    .where('first_seen', '>=', from)
    .where('first_seen', '<', before)
    .orderBy('report_count', 'desc')
    .limit(DIGEST_LIST_SIZE)
    .execute();
  const regressed = await db
    .selectFrom('issues')
    .select(columns)
    .where('project_id', '=', projectId)
    .where('regressed_at', '>=', from)
    .where('regressed_at', '<', before)
    .orderBy('report_count', 'desc')
    .limit(DIGEST_LIST_SIZE)
    .execute();
  const busiest = await busiestIssues(db, projectId, from, before);
  return {
    day: utcDay(start),
    new_issues: created.map(summary),
    regressed_issues: regressed.map(summary),
    busiest_issues: busiest.map((row) => ({ ...summary(row), count: Number(row.day_count) })),
    outcome_rates: await outcomeRates(db, projectId, from),
    outcome_rates_before: await outcomeRates(db, projectId, new Date(start - DAY_MS).toISOString()),
  };
}

/** The day's busiest issues: its reports per issue, for the issues seen since the day began. */
async function busiestIssues(db: Kysely<DB>, projectId: string, from: string, before: string) {
  const dayCount = (eb: ExpressionBuilder<DB, 'issues'>) =>
    eb
      .selectFrom('report_issues')
      .select((e) => e.fn.countAll<number | string>().as('n'))
      .where('report_issues.project_id', '=', projectId)
      .whereRef('report_issues.issue_id', '=', 'issues.id')
      .where('report_issues.created_at', '>=', from)
      .where('report_issues.created_at', '<', before);
  const rows = await db
    .selectFrom('issues')
    .select((eb) => [
      'issues.id',
      'issues.title',
      'issues.outcome',
      'issues.tool_name',
      'issues.report_count',
      dayCount(eb).as('day_count'),
    ])
    .where('issues.project_id', '=', projectId)
    .where('issues.last_seen', '>=', from)
    .where('issues.first_seen', '<', before)
    .execute();
  return rows
    .filter((row) => Number(row.day_count) > 0)
    .sort((a, b) => Number(b.day_count) - Number(a.day_count))
    .slice(0, DIGEST_LIST_SIZE);
}

/** Each outcome's share of a UTC day's reports (0 when the day had none), from the daily rollup. */
async function outcomeRates(db: Kysely<DB>, projectId: string, day: string) {
  const rows = await db
    .selectFrom('report_rollups_day_outcomes')
    .select(['outcome', 'count'])
    .where('project_id', '=', projectId)
    .where('day', '=', day)
    .execute();
  const total = rows.reduce((sum, row) => sum + Number(row.count), 0);
  const rates: Record<string, number> = {};
  for (const outcome of OUTCOMES) {
    const count = Number(rows.find((row) => row.outcome === outcome)?.count ?? 0);
    rates[outcome] = total === 0 ? 0 : Math.round((count / total) * 1000) / 1000;
  }
  return rates;
}
