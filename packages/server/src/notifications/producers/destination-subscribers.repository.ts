import { DestinationFilter, type NotificationType, SpikeRule } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { SubscribedDestination } from './subscribers.js';

/**
 * The columns of `notification_destinations` the producers read (the destinations' own
 * migration owns the table; typed here so the producers depend on these columns only).
 */
interface DestinationColumns {
  id: string;
  project_id: string;
  events: string;
  filter: string;
  spike: string;
  digest_hour: number | null;
  status: string;
}

/**
 * The active destinations subscribed to `type`, across projects: `FindSubscribers` over the
 * destinations table. `events` is a JSON array, so the SQL keeps the rows that name the type
 * and the parse decides; a spike rule's absent fields take the protocol's defaults.
 */
export async function findSubscribers(
  db: Kysely<DB>,
  type: NotificationType,
): Promise<SubscribedDestination[]> {
  const rows = await db
    .withTables<{ notification_destinations: DestinationColumns }>()
    .selectFrom('notification_destinations')
    .select(['id', 'project_id', 'events', 'filter', 'spike', 'digest_hour'])
    .where('status', '=', 'active')
    .where('events', 'like', `%"${type}"%`)
    .orderBy('id')
    .execute();
  return rows
    .filter((row) => (JSON.parse(row.events) as string[]).includes(type))
    .map((row) => ({
      id: row.id,
      projectId: row.project_id,
      filter: DestinationFilter.catch({}).parse(JSON.parse(row.filter)),
      spike: SpikeRule.catch({ min_reports: 10, factor: 5 }).parse(JSON.parse(row.spike ?? '{}')),
      digestHour: row.digest_hour === null ? null : Number(row.digest_hour),
    }));
}
