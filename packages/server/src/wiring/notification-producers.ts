import type { DestinationType } from '@debrief/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from '../db/schema.js';
import type { ThrottledRow } from '../limits/limits.repository.js';
import { type JsonPoster, slackChannel } from '../notifications/channels/slack-channel.js';
import { createSmtpTransport, emailChannel } from '../notifications/email/email-channel.js';
import {
  type FailingDestination,
  failingDestinationMailer,
} from '../notifications/email/failing-destination-mail.js';
import { skipMuted } from '../notifications/mutes/mute-check.js';
import type { Channel, EnqueueNotifications } from '../notifications/notification-port.js';
import {
  announceThrottleEpisodes,
  findSubscribers,
  type ProducerDeps,
  startNotificationProducers,
} from '../notifications/producers/index.js';

/**
 * The joins of the notification producers and channels to the rest, kept thin: the periodic
 * producers and the throttle episodes get the outbox's `enqueue`; the channels beside the
 * webhook's get the deliverer's poster. Every channel checks mutes before it sends.
 */
export function notificationProducers(
  db: Kysely<DB>,
  config: Pick<Config, 'publicUrl'>,
  log: Pick<FastifyBaseLogger, 'warn'>,
  enqueue: EnqueueNotifications,
) {
  const deps: ProducerDeps = { db, enqueue, findSubscribers, publicUrl: config.publicUrl };
  return {
    /** Starts the minute's checks and the `report.created` batches; `close()` stops them. */
    start: () => startNotificationProducers(deps, { log }),
    /** For ThrottleLog's flush: announces the throttle episodes its rows start. */
    onThrottled: (rows: readonly ThrottledRow[]) =>
      announceThrottleEpisodes(deps, rows, new Date()),
  };
}

/**
 * The deliverer's channels by destination type, each wrapped so a muted issue sends nothing:
 * `others` (the webhook's) and Slack over the deliverer's poster, email over SMTP_URL when set.
 */
export function notificationChannels(
  db: Kysely<DB>,
  config: Pick<Config, 'publicUrl' | 'smtp'>,
  poster: JsonPoster,
  others: Partial<Record<DestinationType, Channel>> = {},
): Partial<Record<DestinationType, Channel>> {
  const channels: Partial<Record<DestinationType, Channel>> = {
    ...others,
    slack: slackChannel(poster),
  };
  if (config.smtp)
    channels.email = emailChannel({
      db,
      transport: createSmtpTransport(config.smtp.url),
      from: config.smtp.from,
      publicUrl: config.publicUrl,
    });
  return Object.fromEntries(
    Object.entries(channels).map(([type, channel]) => [type, skipMuted(db, channel)]),
  );
}

/**
 * The deliverer's `onFailing` when SMTP_URL is set: the project's owner gets an email when a
 * destination is paused after a day of failures (the log line stays). Undefined without SMTP.
 */
export function failingDestinationNotice(
  db: Kysely<DB>,
  config: Pick<Config, 'publicUrl' | 'smtp'>,
  log: Pick<FastifyBaseLogger, 'warn'>,
): ((destination: FailingDestination) => void) | undefined {
  if (!config.smtp) return undefined;
  const mail = failingDestinationMailer({
    db,
    transport: createSmtpTransport(config.smtp.url),
    from: config.smtp.from,
    publicUrl: config.publicUrl,
    log,
  });
  return (destination) => {
    log.warn(
      { destination: destination.id, project: destination.projectId },
      'a notification destination failed for a day and is paused',
    );
    void mail(destination);
  };
}
