import { escapeHtml } from '../../agent-resources/docs-page.js';
import type { LinkClaims } from './link-token.js';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)} · Debrief</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}
button{font:inherit;padding:.5rem 1rem;margin:.25rem 0;cursor:pointer}form{margin:1rem 0}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/**
 * The confirmation page of an email's link. A GET changes nothing (mail scanners open links);
 * each button POSTs the choice.
 */
export function confirmationPage(claims: LinkClaims, token: string): string {
  // encodeURIComponent leaves no quote or angle bracket, so the URL is safe in the attribute.
  const action = (name: string) => `?token=${encodeURIComponent(token)}&amp;action=${name}`;
  const mute = claims.issueId
    ? `<form method="post" action="${action('mute')}"><p>Stop notifications about this issue only; other issues still reach you.</p><button type="submit" name="confirm" value="mute">Mute this issue</button></form>`
    : '';
  return page(
    'Email notifications',
    `<p>Notifications of this Debrief destination are sent to <strong>${escapeHtml(claims.address)}</strong>.</p>
${mute}
<form method="post" action="${action('unsubscribe')}"><p>Stop every notification of this destination to this address.</p><button type="submit" name="confirm" value="unsubscribe">Unsubscribe ${escapeHtml(claims.address)}</button></form>`,
  );
}

export function donePage(claims: LinkClaims, action: 'unsubscribe' | 'mute'): string {
  return action === 'mute'
    ? page(
        'Issue muted',
        '<p>This issue sends no more notifications to this destination. A developer can unmute it from the dashboard.</p>',
      )
    : page(
        'Unsubscribed',
        `<p><strong>${escapeHtml(claims.address)}</strong> receives no more notifications from this destination.</p>`,
      );
}

export function invalidLinkPage(): string {
  return page(
    'This link does not work',
    '<p>It may have been cut by your mail program. Open the whole link from the email, or ask the project’s developers to change the destination.</p>',
  );
}
