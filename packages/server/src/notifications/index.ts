import type { DestinationType } from '@debrief/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { Deliverer } from './deliverer.js';
import type { DestinationRecord } from './destination.repository.js';
import { createGuardedPoster, type GuardedPoster } from './guarded-post.js';
import type { Channel } from './notification-port.js';
import { webhookChannel } from './webhook-channel.js';

/**
 * Notifications: destinations (destination.service.ts and the routes), the outbox producers
 * write to (outbox.repository.ts enqueueNotifications, through notification-port.ts), and
 * ONE entry for delivery, startDeliverer: fan-out (fan-out.ts), claims and retries
 * (deliverer.ts, retry-schedule.ts), the channels (webhook-channel.ts; Slack and email beside
 * it) over one guarded HTTP client (guarded-post.ts).
 */

export type { GuardedPoster } from './guarded-post.js';
export type { Channel } from './notification-port.js';
export { enqueueNotifications } from './outbox.repository.js';
export { Deliverer };

export interface StartDelivererDeps {
  db: Kysely<DB>;
  dialect: Dialect;
  log: FastifyBaseLogger;
  publicUrl: string;
  retryScheduleMs: readonly number[];
  allowPrivateDestinations: boolean;
  /** Channels beside the webhook's (Slack, email), made with the poster the webhook uses. */
  channels?: (poster: GuardedPoster) => Partial<Record<DestinationType, Channel>>;
  onFailing?: (destination: DestinationRecord) => void;
  intervalMs?: number;
  leaseMs?: number;
}

/** The deliverer, started; `stop()` finishes its round and closes its connections. */
export async function startDeliverer(
  deps: StartDelivererDeps,
): Promise<{ deliverer: Deliverer; stop(): Promise<void> }> {
  const poster = createGuardedPoster({ allowPrivate: deps.allowPrivateDestinations });
  const deliverer = new Deliverer({
    db: deps.db,
    dialect: deps.dialect,
    log: deps.log,
    publicUrl: deps.publicUrl,
    retryScheduleMs: deps.retryScheduleMs,
    channels: { webhook: webhookChannel(poster), ...deps.channels?.(poster) },
    onFailing:
      deps.onFailing ??
      ((destination) =>
        deps.log.warn(
          { destination: destination.id, project: destination.projectId },
          'a notification destination failed for a day and is paused',
        )),
    ...(deps.intervalMs !== undefined ? { intervalMs: deps.intervalMs } : {}),
    ...(deps.leaseMs !== undefined ? { leaseMs: deps.leaseMs } : {}),
  });
  await deliverer.start();
  return {
    deliverer,
    async stop() {
      await deliverer.stop();
      poster.close();
    },
  };
}
