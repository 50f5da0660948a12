import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { HOUR_MS, WEEK_MS } from '../../time/utc-time.js';
import {
  claimMark,
  deleteMarks,
  marksWithPrefix,
  touchMark,
} from './notification-marks.repository.js';
import { byProject, type ProducerDeps, type SubscribedDestination } from './subscribers.js';

const SCOPE = 'issue.spiking';
/** Hours in the baseline: the 7 days before the last hour. */
const BASELINE_HOURS = WEEK_MS / HOUR_MS;

/**
 * `issue.spiking`: an issue is spiking for a destination when its reports in the last hour are at
 * least the destination's `spike.min_reports` and more than `spike.factor` × its hourly average
 * over the 7 days before that hour. It fires once per spike: the claim (`notification_marks`,
 * subject `<destination>:<issue>`) stays while the rule holds and is released only after the rule
 * has not held for an hour, so an issue hovering at the threshold does not fire again and again.
 * Ignored issues never spike. Runs every minute; the counts are seeks in report_issues' index
 * (project_id, issue_id, created_at) for the issues seen in the last hour only.
 */
export async function checkSpikes(deps: ProducerDeps, now: Date): Promise<number> {
  const destinations = await deps.findSubscribers(deps.db, 'issue.spiking');
  let fired = 0;
  for (const [projectId, list] of byProject(destinations)) {
    const rates = await hourlyRates(deps.db, projectId, now);
    for (const destination of list) fired += await applyRule(deps, destination, rates, now);
  }
  return fired;
}

interface IssueRate {
  issueId: string;
  lastHour: number;
  hourlyAverage: number;
}

async function hourlyRates(db: Kysely<DB>, projectId: string, now: Date): Promise<IssueRate[]> {
  const hourAgo = new Date(now.getTime() - HOUR_MS).toISOString();
  const baselineFrom = new Date(now.getTime() - HOUR_MS - WEEK_MS).toISOString();
  const count = (eb: ExpressionBuilder<DB, 'issues'>, from: string, before: string) =>
    eb
      .selectFrom('report_issues')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('report_issues.project_id', '=', projectId)
      .whereRef('report_issues.issue_id', '=', 'issues.id')
      .where('report_issues.created_at', '>=', from)
      .where('report_issues.created_at', '<', before);
  const rows = await db
    .selectFrom('issues')
    .select((eb) => [
      'issues.id',
      count(eb, hourAgo, now.toISOString()).as('last_hour'),
      count(eb, baselineFrom, hourAgo).as('baseline'),
    ])
    .where('issues.project_id', '=', projectId)
    .where('issues.status', '!=', 'ignored')
    .where('issues.last_seen', '>=', hourAgo)
    .execute();
  return rows.map((row) => ({
    issueId: row.id,
    lastHour: Number(row.last_hour ?? 0),
    hourlyAverage: Number(row.baseline ?? 0) / BASELINE_HOURS,
  }));
}

async function applyRule(
  deps: ProducerDeps,
  destination: SubscribedDestination,
  rates: readonly IssueRate[],
  now: Date,
): Promise<number> {
  const { min_reports, factor } = destination.spike;
  const prefix = `${destination.id}:`;
  const held = new Map(
    (await marksWithPrefix(deps.db, SCOPE, prefix)).map((m) => [m.subject, m.updated_at]),
  );
  const holding = new Set<string>();
  let fired = 0;
  for (const rate of rates) {
    if (rate.lastHour < min_reports || rate.lastHour <= factor * rate.hourlyAverage) continue;
    const subject = `${prefix}${rate.issueId}`;
    holding.add(subject);
    if (held.has(subject)) {
      await touchMark(deps.db, SCOPE, subject, now);
      continue;
    }
    const claimed = await deps.db.transaction().execute(async (trx) => {
      if (!(await claimMark(trx, SCOPE, subject, now.toISOString(), now))) return false;
      await deps.enqueue(trx, [
        {
          projectId: destination.projectId,
          type: 'issue.spiking',
          issueId: rate.issueId,
          destinationId: destination.id,
          data: {
            last_hour: rate.lastHour,
            hourly_average: Math.round(rate.hourlyAverage * 100) / 100,
            min_reports,
            factor,
          },
        },
      ]);
      return true;
    });
    if (claimed) fired += 1;
  }
  // Calm: the rule has not held for an hour since it last did.
  const calmed = [...held]
    .filter(
      ([subject, touched]) =>
        !holding.has(subject) && now.getTime() - new Date(touched).getTime() >= HOUR_MS,
    )
    .map(([subject]) => subject);
  await deleteMarks(deps.db, SCOPE, calmed);
  return fired;
}
