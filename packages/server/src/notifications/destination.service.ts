import { randomBytes } from 'node:crypto';
import {
  type CreateDestinationBody,
  type Delivery,
  type Destination,
  formatWireTimestamp,
  NOTIFICATION_TYPES,
  type NotificationType,
  SpikeRule,
  type UpdateDestinationBody,
} from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import { getOwnedProject } from '../projects/project.service.js';
import { DAY_MS } from '../time/utc-time.js';
import {
  findAttemptOf,
  insertMessages,
  listDeliveries as listDeliveryRows,
} from './delivery.repository.js';
import {
  type DestinationColumns,
  type DestinationRecord,
  deleteDestination as deleteDestinationRows,
  findDestination,
  insertDestination,
  listDestinations as listDestinationRows,
  toColumns,
  updateDestination as updateDestinationRow,
} from './destination.repository.js';
import { assertPublicDestinationUrl } from './destination-url.js';
import { newMessageId } from './fan-out.js';
import { buildPayload, readSubject } from './notification-payload.js';

/** After a rotation the previous secret still signs beside the new one this long. */
export const PREVIOUS_SECRET_MS = DAY_MS;
const DELIVERIES_LIMIT = 100;

type Ctx = Pick<AppContext, 'db' | 'ownedProjects' | 'config'>;

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function toWireDestination(record: DestinationRecord, secret?: string): Destination {
  return {
    id: record.id,
    project_id: record.projectId,
    type: record.type,
    name: record.name,
    url: record.url,
    to: record.to,
    events: record.events,
    filter: record.filter,
    spike: SpikeRule.parse(record.spike),
    digest_hour: record.digestHour,
    metadata_keys: record.metadataKeys,
    status: record.status,
    created_at: formatWireTimestamp(new Date(record.createdAt)),
    last_delivery_at:
      record.lastDeliveryAt === null ? null : formatWireTimestamp(new Date(record.lastDeliveryAt)),
    last_error: record.lastError,
    ...(secret ? { secret } : {}),
  };
}

/** What each type needs: webhooks and Slack a URL, email its addresses, and nothing else. */
function assertShape(
  ctx: Ctx,
  type: Destination['type'],
  fields: { url?: string | null | undefined; to?: string[] | null | undefined },
): void {
  const needsUrl = type !== 'email';
  const missing = needsUrl ? !fields.url : !fields.to || fields.to.length === 0;
  if (missing) {
    const field = needsUrl ? 'url' : 'to';
    throw new ApiError(
      'validation_failed',
      needsUrl
        ? `A ${type} destination needs "url": the ${type === 'slack' ? 'Slack incoming webhook URL' : "receiver's https URL"}.`
        : 'An email destination needs "to": a list of email addresses.',
      { errors: [{ field, message: 'is required for this type' }] },
    );
  }
  const extra = needsUrl ? fields.to : fields.url;
  if (extra) {
    const field = needsUrl ? 'to' : 'url';
    throw new ApiError('validation_failed', `A ${type} destination takes no "${field}".`, {
      errors: [{ field, message: `is not used by a ${type} destination` }],
    });
  }
  if (fields.url)
    assertPublicDestinationUrl(fields.url, ctx.config.notifications.allowPrivateDestinations);
}

async function getDestination(ctx: Ctx, accountId: string, projectId: string, id: string) {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const record = /^[0-9a-f]{32}$/.test(id) ? await findDestination(ctx.db, project.id, id) : null;
  if (!record) {
    throw new ApiError(
      'not_found',
      `No destination with id ${JSON.stringify(id.slice(0, 64))} in this project. GET /v1/dashboard/${project.id}/destinations lists them.`,
    );
  }
  return record;
}

export async function listDestinations(ctx: Ctx, accountId: string, projectId: string) {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const records = await listDestinationRows(ctx.db, project.id);
  return { data: records.map((record) => toWireDestination(record)) };
}

export async function showDestination(ctx: Ctx, accountId: string, projectId: string, id: string) {
  return toWireDestination(await getDestination(ctx, accountId, projectId, id));
}

export async function createDestination(
  ctx: Ctx,
  accountId: string,
  projectId: string,
  body: CreateDestinationBody,
): Promise<Destination> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  assertShape(ctx, body.type, body);
  const id = newId();
  const now = Date.now();
  const secret = body.type === 'webhook' ? newWebhookSecret() : null;
  await insertDestination(
    ctx.db,
    { id, projectId: project.id, type: body.type, createdAt: now },
    {
      ...toColumns({
        name: body.name ?? null,
        url: body.url ?? null,
        to: body.to ?? null,
        events: [...new Set(body.events)],
        filter: body.filter ?? {},
        spike: body.spike ?? {},
        digestHour: body.digest_hour ?? null,
        metadataKeys: body.metadata_keys ?? [],
      }),
      status: 'active',
      secret,
    },
  );
  const record = (await findDestination(ctx.db, project.id, id)) as DestinationRecord;
  return toWireDestination(record, secret ?? undefined);
}

export async function updateDestination(
  ctx: Ctx,
  accountId: string,
  projectId: string,
  id: string,
  body: UpdateDestinationBody,
): Promise<Destination> {
  const record = await getDestination(ctx, accountId, projectId, id);
  assertShape(ctx, record.type, {
    url: body.url ?? record.url,
    to: body.to ?? record.to,
  });
  const now = Date.now();
  const columns: DestinationColumns = toColumns({
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.to !== undefined ? { to: body.to } : {}),
    ...(body.events !== undefined ? { events: [...new Set(body.events)] } : {}),
    ...(body.filter !== undefined ? { filter: body.filter } : {}),
    ...(body.spike !== undefined ? { spike: body.spike } : {}),
    ...(body.digest_hour !== undefined ? { digestHour: body.digest_hour } : {}),
    ...(body.metadata_keys !== undefined ? { metadataKeys: body.metadata_keys } : {}),
  });
  // Resuming (or un-pausing after a day of failures, or a 410) starts afresh.
  if (body.paused === true) columns.status = 'paused';
  if (body.paused === false) Object.assign(columns, { status: 'active', failing_since: null });
  let secret: string | undefined;
  if (body.rotate_secret) {
    if (record.type !== 'webhook') {
      throw new ApiError(
        'validation_failed',
        'Only a webhook destination has a secret to rotate.',
        {
          errors: [{ field: 'rotate_secret', message: 'only for webhooks' }],
        },
      );
    }
    secret = newWebhookSecret();
    Object.assign(columns, {
      secret,
      previous_secret: record.secret,
      previous_secret_until: now + PREVIOUS_SECRET_MS,
    });
  }
  await updateDestinationRow(ctx.db, record.id, columns, now);
  const updated = (await findDestination(ctx.db, record.projectId, record.id)) as DestinationRecord;
  return toWireDestination(updated, secret);
}

export async function deleteDestination(
  ctx: Ctx,
  accountId: string,
  projectId: string,
  id: string,
): Promise<void> {
  const record = await getDestination(ctx, accountId, projectId, id);
  await ctx.db.transaction().execute((trx) => deleteDestinationRows(trx, record.id));
}

export async function listDestinationDeliveries(
  ctx: Ctx,
  accountId: string,
  projectId: string,
  id: string,
): Promise<{ data: Delivery[] }> {
  const record = await getDestination(ctx, accountId, projectId, id);
  return { data: await listDeliveryRows(ctx.db, record.id, DELIVERIES_LIMIT) };
}

/**
 * "Send a test": a message of the type asked for (or the destination's first event), about the
 * project's latest issue when it has one, sent at once and only once (no retries), whatever
 * the destination's filter or pause. Answers the attempt, as the delivery log shows it.
 */
export async function sendTestMessage(
  ctx: Ctx & Pick<AppContext, 'deliverer'>,
  accountId: string,
  projectId: string,
  id: string,
  type?: NotificationType,
): Promise<Delivery> {
  const record = await getDestination(ctx, accountId, projectId, id);
  const eventType = type ?? record.events[0] ?? NOTIFICATION_TYPES[0];
  const latest = await latestIssue(ctx.db, record.projectId);
  const entry = {
    projectId: record.projectId,
    type: eventType,
    ...(latest ? { issueId: latest } : {}),
    data: { test: true },
  };
  const subject = await readSubject(ctx.db, entry);
  if (!subject) throw new ApiError('not_found', 'The project of this destination is gone.');
  const now = Date.now();
  const messageId = newMessageId(now);
  await insertMessages(ctx.db, [
    {
      id: messageId,
      destinationId: record.id,
      projectId: record.projectId,
      type: eventType,
      payload: buildPayload(ctx.config.publicUrl, entry, subject, record, new Date(now)),
      maxAttempts: 1,
      now,
    },
  ]);
  await ctx.deliverer.sendNow([messageId]);
  const attempt = await findAttemptOf(ctx.db, messageId);
  if (!attempt)
    throw new ApiError('service_unavailable', 'The test message could not be sent now; try again.');
  return attempt;
}

async function latestIssue(db: Kysely<DB>, projectId: string): Promise<string | null> {
  const row = await db
    .selectFrom('issues')
    .select('id')
    .where('project_id', '=', projectId)
    .orderBy('last_seen', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}
