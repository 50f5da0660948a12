import type { ThrottledRow } from '../../limits/limits.repository.js';
import { MINUTE_MS } from '../../time/utc-time.js';
import { advanceMark, claimMark, findMarks, touchMark } from './notification-marks.repository.js';
import type { ProducerDeps } from './subscribers.js';

const SCOPE = 'ingest.throttled';
/** An episode ends after this long without a refusal; the next refusal starts a new one. */
export const THROTTLE_EPISODE_GAP_MS = 30 * MINUTE_MS;
/** Reasons that refuse the whole key or project: one episode per project, whatever the address. */
const PROJECT_WIDE = new Set(['key_rate', 'project_cap']);

/**
 * `ingest.throttled`: a key or an address started being refused. Called with each flush of the
 * refused-submission counts (limits/throttle-log.ts, every 5 s); an episode is a run of refusals
 * for one project and reason (and address, for the per-address limits) with no gap of 30
 * minutes, and only its start is announced. The claim and the notification commit together.
 */
export async function announceThrottleEpisodes(
  deps: ProducerDeps,
  rows: readonly ThrottledRow[],
  now: Date,
): Promise<number> {
  if (rows.length === 0) return 0;
  const subscribed = new Set(
    (await deps.findSubscribers(deps.db, 'ingest.throttled')).map((d) => d.projectId),
  );
  const episodes = new Map<string, { row: ThrottledRow; count: number }>();
  for (const row of rows) {
    if (!subscribed.has(row.projectId)) continue;
    const who = PROJECT_WIDE.has(row.reason) ? '*' : row.address;
    const subject = `${row.projectId}:${row.reason}:${who}`;
    const seen = episodes.get(subject);
    if (seen) seen.count += row.count;
    else episodes.set(subject, { row, count: row.count });
  }
  const marks = new Map(
    (await findMarks(deps.db, SCOPE, [...episodes.keys()])).map((m) => [m.subject, m]),
  );
  let fired = 0;
  for (const [subject, { row, count }] of episodes) {
    const mark = marks.get(subject);
    if (mark && now.getTime() - new Date(mark.updated_at).getTime() < THROTTLE_EPISODE_GAP_MS) {
      await touchMark(deps.db, SCOPE, subject, now);
      continue;
    }
    const started = await deps.db.transaction().execute(async (trx) => {
      const claimed = mark
        ? await advanceMark(trx, SCOPE, subject, mark.value, now.toISOString(), now)
        : await claimMark(trx, SCOPE, subject, now.toISOString(), now);
      if (!claimed) return false;
      await deps.enqueue(trx, [
        {
          projectId: row.projectId,
          type: 'ingest.throttled',
          data: {
            reason: row.reason,
            address: PROJECT_WIDE.has(row.reason) ? null : row.address,
            refused: count,
          },
        },
      ]);
      return true;
    });
    if (started) fired += 1;
  }
  return fired;
}
