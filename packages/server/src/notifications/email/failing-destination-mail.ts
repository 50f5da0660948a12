import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Transporter } from 'nodemailer';
import { escapeHtml } from '../../agent-resources/docs-page.js';
import type { DB } from '../../db/schema.js';

/** What the owner is told about a destination paused after a day of failures. */
export interface FailingDestination {
  id: string;
  projectId: string;
  name: string | null;
  url: string | null;
  lastError: string | null;
}

/**
 * Tells the project's owner (its account's email) that a destination failed for a day and was
 * paused, with a link to the project's Notifications page where it can be resumed. Sent once, when
 * it is paused; a failure to send is logged, never retried (the dashboard shows the state too).
 */
export function failingDestinationMailer(options: {
  db: Kysely<DB>;
  transport: Transporter;
  from: string;
  publicUrl: string;
  log: Pick<FastifyBaseLogger, 'warn'>;
}) {
  return async (destination: FailingDestination): Promise<void> => {
    const owner = await options.db
      .selectFrom('projects')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .select(['accounts.email', 'projects.name'])
      .where('projects.id', '=', destination.projectId)
      .executeTakeFirst();
    if (!owner) return;
    const label = destination.name ?? destination.url ?? destination.id;
    const page = `${options.publicUrl}/projects/${destination.projectId}/notifications`;
    const error = destination.lastError ?? 'no answer';
    try {
      await options.transport.sendMail({
        from: options.from,
        to: owner.email,
        subject: `A notification destination of ${owner.name} is paused`.replace(/[\r\n]+/g, ' '),
        text: `Deliveries to "${label}" failed for a day, so Debrief paused it. The last error: ${error}.\n\nFix the receiver, then resume it on ${page} (nothing is sent to it while it is paused).`,
        html: `<p>Deliveries to <strong>${escapeHtml(label)}</strong> failed for a day, so Debrief paused it. The last error: ${escapeHtml(error)}.</p><p>Fix the receiver, then <a href="${escapeHtml(page)}">resume it on the Notifications page</a> (nothing is sent to it while it is paused).</p>`,
      });
    } catch (failure) {
      options.log.warn(
        { err: failure, destination: destination.id },
        'failing-destination email not sent',
      );
    }
  };
}
