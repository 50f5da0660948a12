import { z } from 'zod';
import { Id32 } from './issue.schema.js';
import { OUTCOMES } from './outcomes.js';
import { describeValue, LABEL_MAX_LENGTH, WireTimestamp } from './report.schema.js';

/**
 * Notifications: a project's destinations (a signed webhook, a Slack incoming webhook, email)
 * and the events each subscribes to. Debrief writes a notification to an outbox in the same
 * transaction as the change that causes it and a background deliverer sends it, retried until a
 * 2xx, so nothing is lost and each keeps one `webhook-id` across attempts.
 */
export const NOTIFICATION_TYPES = [
  'issue.created',
  'issue.regressed',
  'issue.spiking',
  'report.created',
  'quota.warning',
  'quota.reached',
  'ingest.throttled',
  'digest.daily',
] as const;
export const NotificationType = z.enum(NOTIFICATION_TYPES, {
  error: (i) =>
    `must be one of ${NOTIFICATION_TYPES.join(', ')} (received ${describeValue(i.input)})`,
});
export type NotificationType = z.infer<typeof NotificationType>;

export const DESTINATION_TYPES = ['webhook', 'slack', 'email'] as const;
export const DestinationType = z.enum(DESTINATION_TYPES, {
  error: (i) =>
    `must be one of ${DESTINATION_TYPES.join(', ')} (received ${describeValue(i.input)})`,
});
export type DestinationType = z.infer<typeof DestinationType>;

/** Which reports a destination hears about (`report.created`, and the issues' first report). */
export const DestinationFilter = z
  .object({
    outcome: z.enum(OUTCOMES).optional(),
    tool_name: z.string().min(1).max(LABEL_MAX_LENGTH).optional(),
    source: z.string().min(1).max(LABEL_MAX_LENGTH).optional(),
  })
  .strict();
export type DestinationFilter = z.infer<typeof DestinationFilter>;

/** `issue.spiking`: at least `min_reports` in the last hour and `factor` × its hourly average over 7 days. */
export const SpikeRule = z
  .object({
    min_reports: z.number().int().min(1).max(1_000_000).default(10),
    factor: z.number().min(1).max(1000).default(5),
  })
  .strict();
export type SpikeRule = z.infer<typeof SpikeRule>;

/** Body of `POST /v1/dashboard/{projectId}/destinations`. */
export const CreateDestinationBody = z
  .object({
    type: DestinationType,
    name: z.string().min(1).max(LABEL_MAX_LENGTH).optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    to: z.array(z.email()).min(1).max(20).optional(),
    events: z.array(NotificationType).min(1).max(NOTIFICATION_TYPES.length),
    filter: DestinationFilter.optional(),
    spike: SpikeRule.optional(),
    /** `digest.daily`: the hour (UTC) it is sent. */
    digest_hour: z.number().int().min(0).max(23).optional(),
    /** Metadata keys of a report that may appear in its notifications; none unless listed. */
    metadata_keys: z.array(z.string().min(1).max(LABEL_MAX_LENGTH)).max(20).optional(),
  })
  .strict();
export type CreateDestinationBody = z.infer<typeof CreateDestinationBody>;

/** Body of `PATCH …/destinations/{id}`: any of the create fields, `paused`, or `rotate_secret`. */
export const UpdateDestinationBody = CreateDestinationBody.omit({ type: true })
  .partial()
  .extend({
    paused: z.boolean().optional(),
    /** Webhooks: a new secret, answered once; the old one still signs beside it for 24 h. */
    rotate_secret: z.literal(true).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { error: 'must change at least one field' });
export type UpdateDestinationBody = z.infer<typeof UpdateDestinationBody>;

/** A destination as the API answers it. Never carries its secret, except `secret` once on create/rotate. */
export const Destination = z.object({
  id: Id32,
  project_id: Id32,
  type: DestinationType,
  name: z.string().nullable(),
  url: z.string().nullable(),
  to: z.array(z.string()).nullable(),
  events: z.array(NotificationType),
  filter: DestinationFilter,
  spike: SpikeRule,
  digest_hour: z.number().int().nullable(),
  metadata_keys: z.array(z.string()),
  /** `user`: paused by its owner. `failing`: paused after a day of failed deliveries. `gone`: a 410. */
  status: z.enum(['active', 'paused', 'failing', 'gone']),
  created_at: WireTimestamp,
  last_delivery_at: WireTimestamp.nullable(),
  last_error: z.string().nullable(),
  /** Only in the answer to create and to a secret rotation. */
  secret: z.string().optional(),
});
export type Destination = z.infer<typeof Destination>;

export const DestinationList = z.object({ data: z.array(Destination) });

/** One attempt to deliver one notification to one destination. */
export const Delivery = z.object({
  id: Id32,
  /** The `webhook-id`: the same for every attempt of one notification. */
  message_id: z.string(),
  type: NotificationType,
  attempt: z.number().int().min(1),
  status: z.enum(['pending', 'succeeded', 'failed']),
  response_status: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: WireTimestamp,
  next_attempt_at: WireTimestamp.nullable(),
});
export type Delivery = z.infer<typeof Delivery>;

export const DeliveryList = z.object({ data: z.array(Delivery) });

/**
 * The body every destination's message is made from (a webhook sends it as it is):
 * `data.project`, `data.issue` and `data.report` are in the read API's wire shape, each with a
 * `url` to the dashboard.
 */
export const NotificationPayload = z.object({
  type: NotificationType,
  timestamp: WireTimestamp,
  data: z.looseObject({
    project: z.looseObject({ id: Id32, name: z.string(), url: z.string() }),
    issue: z.looseObject({ id: Id32, url: z.string() }).optional(),
    report: z.looseObject({ id: Id32 }).optional(),
  }),
});
export type NotificationPayload = z.infer<typeof NotificationPayload>;

export const DestinationId = Id32;
