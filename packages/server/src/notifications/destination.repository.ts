import type {
  DestinationFilter,
  DestinationType,
  NotificationType,
  SpikeRule,
} from '@debrief/protocol';
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, NotificationDestinationsTable } from '../db/schema.js';

export type DestinationStatus = 'active' | 'paused' | 'failing' | 'gone';

/** A destination as the service uses it: JSON columns parsed, times as epoch milliseconds. */
export interface DestinationRecord {
  id: string;
  projectId: string;
  type: DestinationType;
  name: string | null;
  url: string | null;
  to: string[] | null;
  events: NotificationType[];
  filter: DestinationFilter;
  spike: Partial<SpikeRule>;
  digestHour: number | null;
  metadataKeys: string[];
  status: DestinationStatus;
  secret: string | null;
  previousSecret: string | null;
  previousSecretUntil: number | null;
  failingSince: number | null;
  lastDeliveryAt: number | null;
  lastError: string | null;
  createdAt: number;
}

const orNull = (value: number | string | null): number | null =>
  value === null ? null : Number(value);

function toRecord(row: Selectable<NotificationDestinationsTable>): DestinationRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    type: row.type as DestinationType,
    name: row.name,
    url: row.url,
    to: row.to_addresses === null ? null : (JSON.parse(row.to_addresses) as string[]),
    events: JSON.parse(row.events) as NotificationType[],
    filter: JSON.parse(row.filter) as DestinationFilter,
    spike: JSON.parse(row.spike) as Partial<SpikeRule>,
    digestHour: row.digest_hour,
    metadataKeys: JSON.parse(row.metadata_keys) as string[],
    status: row.status as DestinationStatus,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: orNull(row.previous_secret_until),
    failingSince: orNull(row.failing_since),
    lastDeliveryAt: orNull(row.last_delivery_at),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
  };
}

/** The columns a create or an update writes (JSON already serialised by toColumns). */
export type DestinationColumns = Omit<
  Updateable<NotificationDestinationsTable>,
  'id' | 'project_id' | 'created_at'
>;

export function toColumns(
  fields: Partial<
    Pick<
      DestinationRecord,
      'name' | 'url' | 'to' | 'events' | 'filter' | 'spike' | 'digestHour' | 'metadataKeys'
    >
  >,
): DestinationColumns {
  const columns: DestinationColumns = {};
  if (fields.name !== undefined) columns.name = fields.name;
  if (fields.url !== undefined) columns.url = fields.url;
  if (fields.to !== undefined) columns.to_addresses = fields.to && JSON.stringify(fields.to);
  if (fields.events !== undefined) columns.events = JSON.stringify(fields.events);
  if (fields.filter !== undefined) columns.filter = JSON.stringify(fields.filter);
  if (fields.spike !== undefined) columns.spike = JSON.stringify(fields.spike);
  if (fields.digestHour !== undefined) columns.digest_hour = fields.digestHour;
  if (fields.metadataKeys !== undefined)
    columns.metadata_keys = JSON.stringify(fields.metadataKeys);
  return columns;
}

export async function insertDestination(
  db: Kysely<DB>,
  row: { id: string; projectId: string; type: DestinationType; createdAt: number },
  columns: DestinationColumns,
): Promise<void> {
  await db
    .insertInto('notification_destinations')
    .values({
      events: '[]',
      ...columns,
      id: row.id,
      project_id: row.projectId,
      type: row.type,
      created_at: row.createdAt,
      updated_at: row.createdAt,
    } as Insertable<NotificationDestinationsTable>)
    .execute();
}

export async function updateDestination(
  db: Kysely<DB>,
  id: string,
  columns: DestinationColumns,
  now: number,
): Promise<void> {
  await db
    .updateTable('notification_destinations')
    .set({ ...columns, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function findDestination(
  db: Kysely<DB>,
  projectId: string,
  id: string,
): Promise<DestinationRecord | null> {
  const row = await db
    .selectFrom('notification_destinations')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function findDestinationById(
  db: Kysely<DB>,
  id: string,
): Promise<DestinationRecord | null> {
  const row = await db
    .selectFrom('notification_destinations')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function listDestinations(
  db: Kysely<DB>,
  projectId: string,
): Promise<DestinationRecord[]> {
  const rows = await db
    .selectFrom('notification_destinations')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toRecord);
}

/** Every destination of these projects that may receive messages now (fan-out). */
export async function listActiveDestinations(
  db: Kysely<DB>,
  projectIds: readonly string[],
): Promise<DestinationRecord[]> {
  if (projectIds.length === 0) return [];
  const rows = await db
    .selectFrom('notification_destinations')
    .selectAll()
    .where('project_id', 'in', projectIds)
    .where('status', '=', 'active')
    .execute();
  return rows.map(toRecord);
}

/** A destination and everything delivered or waiting for it. */
export async function deleteDestination(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('notification_attempts').where('destination_id', '=', id).execute();
  await db.deleteFrom('notification_messages').where('destination_id', '=', id).execute();
  await db.deleteFrom('notification_outbox').where('destination_id', '=', id).execute();
  await db.deleteFrom('notification_destinations').where('id', '=', id).execute();
}
