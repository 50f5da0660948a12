import type { DestinationFilter, NotificationType, SpikeRule } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { newId } from '../../src/ids.js';
import type { NotificationEntry } from '../../src/notifications/notification-port.js';
import type {
  ProducerDeps,
  SubscribedDestination,
} from '../../src/notifications/producers/index.js';

/**
 * The producers' two ports, served in memory: the destinations a test subscribes (the
 * destinations API is the deliverer's side) and the entries enqueued, recorded only once their
 * transaction committed.
 */
export function producerDeps(db: Kysely<DB>) {
  const subscriptions: { type: NotificationType; destination: SubscribedDestination }[] = [];
  const deps: ProducerDeps = {
    db,
    publicUrl: 'http://debrief.test',
    findSubscribers: async (_db, type) =>
      subscriptions.filter((s) => s.type === type).map((s) => s.destination),
    enqueue: async (trx, list) => {
      // A row in the same transaction, so a rolled-back claim leaves no entry behind.
      for (const entry of list)
        await trx
          .insertInto('notification_marks')
          .values({
            scope: 'test-outbox',
            subject: newId(),
            value: JSON.stringify(entry),
            updated_at: new Date().toISOString(),
          })
          .execute();
    },
  };
  return {
    deps,
    subscribe(
      type: NotificationType,
      projectId: string,
      options: { filter?: DestinationFilter; spike?: Partial<SpikeRule>; digestHour?: number } = {},
    ): string {
      const id = newId();
      subscriptions.push({
        type,
        destination: {
          id,
          projectId,
          filter: options.filter ?? {},
          spike: { min_reports: 10, factor: 5, ...options.spike },
          digestHour: options.digestHour ?? null,
        },
      });
      return id;
    },
    /** The entries committed so far, oldest first, and forgets them. */
    async take(): Promise<NotificationEntry[]> {
      const rows = await db
        .selectFrom('notification_marks')
        .select(['subject', 'value'])
        .where('scope', '=', 'test-outbox')
        .orderBy('subject')
        .execute();
      await db.deleteFrom('notification_marks').where('scope', '=', 'test-outbox').execute();
      return rows.map((row) => JSON.parse(row.value) as NotificationEntry);
    },
  };
}

/** An issue with report_issues rows at the given times (what the grouper would have written). */
export async function seedIssue(
  db: Kysely<DB>,
  projectId: string,
  options: { at: Date[]; status?: string; title?: string; regressedAt?: Date },
): Promise<string> {
  const id = newId();
  const times = [...options.at].sort((a, b) => a.getTime() - b.getTime());
  const first = times[0] ?? new Date();
  const last = times.at(-1) ?? first;
  await db
    .insertInto('issues')
    .values({
      id,
      project_id: projectId,
      status: options.status ?? 'open',
      regressed_at: options.regressedAt?.toISOString() ?? null,
      resolved_at: null,
      title: options.title ?? `Issue ${id.slice(-6)}`,
      tool_name: 'search',
      kind: 'text',
      signature: id,
      outcome: 'failure',
      report_count: times.length,
      count_success: 0,
      count_failure: times.length,
      count_confusing: 0,
      count_gave_up: 0,
      count_request: 0,
      sample_details: 'it failed',
      first_seen: first.toISOString(),
      last_seen: last.toISOString(),
      note: null,
      created_at: first.toISOString(),
      updated_at: last.toISOString(),
    })
    .execute();
  const rows = times.map((at) => ({
    report_id: newId(at.getTime()),
    project_id: projectId,
    created_at: at.toISOString(),
    issue_id: id,
    issue_reason: 'test',
  }));
  for (let i = 0; i < rows.length; i += 100)
    await db
      .insertInto('report_issues')
      .values(rows.slice(i, i + 100))
      .execute();
  return id;
}

export const minutesAgo = (now: Date, minutes: number, count: number): Date[] =>
  Array.from({ length: count }, (_, i) => new Date(now.getTime() - (minutes + i) * 60_000));
