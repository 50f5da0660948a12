import type { NotificationPayload } from '@debrief/protocol';
import { describe, expect, it } from 'vitest';
import { formatEmail } from '../../src/notifications/email/email-message.js';

const project = { id: 'a'.repeat(32), name: 'Acme', url: 'http://debrief.test/projects/a' };

describe('notification emails', () => {
  it('writes the daily digest as HTML and plain text, with its lists and the unsubscribe link', () => {
    const digest: NotificationPayload = {
      type: 'digest.daily',
      timestamp: '2026-11-28T09:00:00Z',
      data: {
        project,
        day: '2026-11-27',
        new_issues: [{ id: 'b'.repeat(32), title: 'upload <fails>', report_count: 4 }],
        regressed_issues: [],
        busiest_issues: [{ id: 'c'.repeat(32), title: 'search slow', report_count: 90 }],
        outcome_rates: { success: 0.75, failure: 0.25 },
        outcome_rates_before: { success: 0.5, failure: 0.5 },
      },
    };
    const mail = formatEmail(digest, 'http://debrief.test/v1/notifications/unsubscribe?token=t.s');
    expect(mail.subject).toBe('Daily digest for Acme (2026-11-27)');
    expect(mail.text).toContain('New issues:\n• upload <fails> (4)');
    expect(mail.text).toContain('Regressed issues: none');
    expect(mail.text).toContain('success 75 % (50 %), failure 25 % (50 %)');
    expect(mail.text).toContain(
      'Unsubscribe this address: http://debrief.test/v1/notifications/unsubscribe?token=t.s',
    );
    expect(mail.html).toContain('<li>upload &lt;fails&gt; (4)</li>');
    expect(mail.html).toContain('<li>search slow (90)</li>');
    expect(mail.html).toContain('href="http://debrief.test/projects/a"');
  });

  it('keeps a subject on one line whatever the issue title holds', () => {
    const mail = formatEmail(
      {
        type: 'issue.regressed',
        timestamp: '2026-11-28T09:00:00Z',
        data: {
          project,
          issue: { id: 'b'.repeat(32), url: 'http://x/i', title: 'a\r\nBcc: victim@example.test' },
        },
      },
      'http://x/u',
    );
    expect(mail.subject).toBe('Regressed in Acme: a Bcc: victim@example.test');
    expect(mail.text).toContain('Mute this issue or unsubscribe this address: http://x/u');
  });
});
