import type { NotificationPayload } from '@debrief/protocol';
import type { Channel, ChannelResult } from '../notification-port.js';
import { summarizeNotification, truncate } from './notification-summary.js';

/**
 * Posts a JSON text to a URL and says how it went: the deliverer's guarded poster (SSRF guard,
 * timeouts, bounded response) has this shape and is passed in; the channel never reaches the
 * network itself.
 */
export interface JsonPoster {
  postJson(url: string, body: string, headers?: Record<string, string>): Promise<ChannelResult>;
}

/**
 * Slack reads `&`, `<` and `>` as markup (`<!channel>` pings a whole channel, `<url|text>` is a
 * link), so every text that comes from a report or an issue is escaped before it reaches a
 * `mrkdwn` field or the top-level `text`.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack's limits: a header holds 150 characters, a section 3,000, a field 2,000. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const FIELD_MAX = 2000;

/**
 * A Block Kit message for an incoming webhook: a header, a section with the details, fields for
 * outcome, tool and count, the digest's or batch's lines, and a button to the issue. The
 * top-level `text` is always set: Slack's mobile and desktop notifications show only that.
 */
export function formatSlackMessage(payload: NotificationPayload): Record<string, unknown> {
  const summary = summarizeNotification(payload);
  const headline = escapeSlack(summary.headline);
  const blocks: Record<string, unknown>[] = [
    {
      type: 'header',
      // plain_text is shown as it is, never parsed for mentions or links, so it needs no escape.
      text: { type: 'plain_text', text: truncate(summary.headline, HEADER_MAX), emoji: false },
    },
  ];
  if (summary.details !== null)
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(escapeSlack(summary.details), SECTION_MAX) },
    });
  blocks.push({
    type: 'section',
    fields: summary.fields.map((field) => ({
      type: 'mrkdwn',
      text: truncate(`*${field.label}*\n${escapeSlack(field.value)}`, FIELD_MAX),
    })),
  });
  if (summary.lines.length > 0)
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(summary.lines.map(escapeSlack).join('\n'), SECTION_MAX),
      },
    });
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'button',
        text: { type: 'plain_text', text: summary.link.label },
        url: summary.link.url,
      },
    ],
  });
  const text =
    summary.details === null
      ? headline
      : `${headline}: ${escapeSlack(truncate(summary.details, 200))}`;
  return { text, blocks };
}

/** The Slack channel: one Block Kit message per notification to the destination's webhook URL. */
export function slackChannel(poster: JsonPoster): Channel {
  return async (target, message) => {
    if (!target.url) return { ok: false, error: 'This Slack destination has no webhook URL.' };
    return poster.postJson(target.url, JSON.stringify(formatSlackMessage(message.payload)));
  };
}
