import type { Kysely } from 'kysely';
import nodemailer, { type Transporter } from 'nodemailer';
import type { DB } from '../../db/schema.js';
import type { Channel } from '../notification-port.js';
import { formatEmail } from './email-message.js';
import { notificationLinkKey, signLink, unsubscribeUrl } from './link-token.js';

/** Bounded waits, as for webhooks: a mail server that hangs fails the attempt, which is retried. */
const SMTP_TIMEOUT_MS = 10_000;

/** A nodemailer SMTP transport for `SMTP_URL` (credentials and TLS as the URL says). */
export function createSmtpTransport(url: string): Transporter {
  return nodemailer.createTransport({
    url,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
}

export interface EmailChannelOptions {
  db: Kysely<DB>;
  transport: Transporter;
  from: string;
  publicUrl: string;
}

/**
 * The email channel: one message per address of the destination (each carries its own
 * unsubscribe link, also as `List-Unsubscribe` with one-click POST per RFC 8058), skipping the
 * addresses that unsubscribed and those the message already reached on an earlier attempt
 * (`message.recipients`, written as each address is accepted). An attempt succeeds when every
 * address still owed the message accepted it; a retry after a partial failure sends only to the
 * addresses that failed, so no address gets one notification twice.
 */
export function emailChannel(options: EmailChannelOptions): Channel {
  return async (target, message) => {
    const to = target.to ?? [];
    if (to.length === 0) return { ok: false, error: 'This email destination has no address.' };
    const left = new Set(
      (
        await options.db
          .selectFrom('notification_unsubscribes')
          .select('address')
          .where('destination_id', '=', target.id)
          .execute()
      ).map((row) => row.address.toLowerCase()),
    );
    const key = await notificationLinkKey(options.db);
    const payload = message.payload;
    const reached = message.recipients?.reached ?? new Set<string>();
    const failures: string[] = [];
    for (const address of to) {
      const lower = address.toLowerCase();
      if (left.has(lower) || reached.has(lower)) continue;
      const token = signLink(key, {
        projectId: payload.data.project.id,
        destinationId: target.id,
        address,
        ...(payload.data.issue ? { issueId: payload.data.issue.id } : {}),
      });
      const link = unsubscribeUrl(options.publicUrl, token);
      const content = formatEmail(payload, link);
      try {
        await options.transport.sendMail({
          from: options.from,
          to: address,
          subject: content.subject,
          text: content.text,
          html: content.html,
          messageId: `<${message.id}.${Buffer.from(address).toString('hex').slice(0, 32)}@debrief>`,
          headers: {
            'X-Debrief-Event': payload.type,
            'X-Debrief-Message-Id': message.id,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
          },
          list: { unsubscribe: { url: link, comment: 'Unsubscribe' } },
        });
      } catch (error) {
        failures.push(`${address}: ${(error as Error).message}`);
        continue;
      }
      await message.recipients?.done(address);
    }
    if (failures.length === 0) return { ok: true };
    // The log names the addresses still owed the message; the others are never sent it again.
    // `reached` holds this attempt's too: `done` adds each.
    const others = reached.size;
    const note =
      message.recipients && others > 0
        ? ` (${others} other ${others === 1 ? 'address has' : 'addresses have'} it; a retry sends only to ${failures.length === 1 ? 'this one' : 'these'})`
        : '';
    return { ok: false, error: `${failures.join('; ').slice(0, 400)}${note}` };
  };
}
