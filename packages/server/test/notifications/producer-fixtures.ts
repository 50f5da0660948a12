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
      // Only the rows read: an entry committed between the two statements waits for the next take.
      if (rows.length > 0)
        await db
          .deleteFrom('notification_marks')
          .where('scope', '=', 'test-outbox')
          .where(
            'subject',
            'in',
            rows.map((row) => row.subject),
          )
          .execute();
      return rows.map((row) => JSON.parse(row.value) as NotificationEntry);
    },
  };
}
