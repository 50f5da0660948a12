import type { NotificationPayload } from '@debrief/protocol';
import { escapeHtml } from '../../agent-resources/docs-page.js';
import { summarizeNotification } from '../channels/notification-summary.js';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * One notification as an email, in plain text and HTML (every text from a report or an issue
 * escaped), ending with the link that unsubscribes the address or mutes the issue. A subject is
 * one line: report text could otherwise add headers.
 */
export function formatEmail(payload: NotificationPayload, unsubscribeLink: string): EmailContent {
  const summary = summarizeNotification(payload);
  const subject = summary.headline.replace(/[\r\n]+/g, ' ').slice(0, 200);
  const footer = payload.data.issue
    ? 'Mute this issue or unsubscribe this address'
    : 'Unsubscribe this address';
  const text = [
    summary.headline,
    '',
    ...(summary.details === null ? [] : [summary.details, '']),
    ...summary.fields.map((f) => `${f.label}: ${f.value}`),
    ...(summary.lines.length > 0 ? ['', ...summary.lines] : []),
    '',
    `${summary.link.label}: ${summary.link.url}`,
    '',
    '--',
    `${footer}: ${unsubscribeLink}`,
  ].join('\n');
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; color: #1b1f24; max-width: 640px">
<h1 style="font-size: 18px">${escapeHtml(summary.headline)}</h1>
${summary.details === null ? '' : `<blockquote style="white-space: pre-wrap; border-left: 3px solid #d0d7de; margin: 0; padding: 4px 12px">${escapeHtml(summary.details)}</blockquote>`}
<table style="margin: 12px 0">${summary.fields
    .map(
      (f) =>
        `<tr><th style="text-align: left; padding-right: 12px">${escapeHtml(f.label)}</th><td>${escapeHtml(f.value)}</td></tr>`,
    )
    .join('')}</table>
${summary.lines.length === 0 ? '' : `<ul>${summary.lines.map((line) => `<li>${escapeHtml(line.replace(/^• /, ''))}</li>`).join('')}</ul>`}
<p><a href="${escapeHtml(summary.link.url)}">${escapeHtml(summary.link.label)}</a></p>
<hr><p style="font-size: 12px; color: #57606a"><a href="${escapeHtml(unsubscribeLink)}">${footer}</a></p>
</body></html>`;
  return { subject, text, html };
}
