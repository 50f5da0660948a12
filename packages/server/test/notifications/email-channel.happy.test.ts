import type { NotificationPayload } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { newId } from '../../src/ids.js';
import { createSmtpTransport, emailChannel } from '../../src/notifications/email/email-channel.js';
import { mutedDestinations } from '../../src/notifications/mutes/mute-check.js';
import type { DestinationTarget } from '../../src/notifications/notification-port.js';
import { seedIssue } from '../support/seed-issue.js';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.js';

describe.each(DIALECTS)('email channel (%s)', (dialect) => {
  let server: TestServer;
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer(dialect);
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
  });

  async function setup(to: string[]) {
    const t = await server.tenant();
    const issueId = await seedIssue(server.ctx.db, t.projectId, { at: [new Date()] });
    const target: DestinationTarget = { id: newId(), type: 'email', name: 'team', url: null, to };
    const payload: NotificationPayload = {
      type: 'issue.created',
      timestamp: '2026-11-28T01:00:00Z',
      data: {
        project: { id: t.projectId, name: 'Acme', url: `${server.url}/projects/${t.projectId}` },
        issue: {
          id: issueId,
          url: `${server.url}/projects/${t.projectId}/issues/${issueId}`,
          title: 'search fails',
          outcome: 'failure',
          tool_name: 'search',
          report_count: 1,
        },
        report: {
          id: newId(),
          outcome: 'failure',
          tool_name: 'search',
          details: '<script>alert(1)</script> & timeout',
        },
      },
    };
    const channel = emailChannel({
      db: server.ctx.db,
      transport: createSmtpTransport(smtp.url),
      from: 'Debrief <debrief@example.test>',
      publicUrl: server.url,
    });
    const send = () => channel(target, { id: `msg_${newId()}`, timestamp: new Date(), payload });
    return { t, issueId, target, send };
  }

  const mailsTo = (address: string) =>
    smtp.mails.filter((m) =>
      (Array.isArray(m.to) ? m.to : [m.to]).some((a) => a?.text === address),
    );

  it('sends one message per address, in HTML and plain text, with an unsubscribe link', async () => {
    const { send } = await setup(['a@example.test', 'b@example.test']);
    expect(await send()).toEqual({ ok: true });
    const [mail] = mailsTo('a@example.test');
    expect(mailsTo('b@example.test')).toHaveLength(1);
    expect(mail?.subject).toBe('New issue in Acme: search fails');
    expect(mail?.from?.text).toContain('debrief@example.test');
    expect(mail?.text).toContain('<script>alert(1)</script> & timeout');
    expect(mail?.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; timeout');
    expect(mail?.html).not.toContain('<script>');
    const header = (key: string) => mail?.headerLines.find((h) => h.key === key)?.line;
    expect(header('list-unsubscribe-post')).toBe(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );
    expect(header('list-unsubscribe')).toMatch(/^List-Unsubscribe:\s+<http:\/\/\S+token=\S+>/);
    expect(String(mail?.text)).toMatch(/\/v1\/notifications\/unsubscribe\?token=/);
  });

  it('the link shows a confirmation, then unsubscribes that address only', async () => {
    const { send } = await setup(['c@example.test', 'd@example.test']);
    await send();
    const link = /(http:\/\/\S+\/v1\/notifications\/unsubscribe\?token=\S+)/.exec(
      String(mailsTo('c@example.test')[0]?.text),
    )?.[1];
    expect(link).toBeDefined();
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Unsubscribe c@example.test');
    expect(html).toContain('Mute this issue');
    // A GET (a mail scanner opening the link) changed nothing.
    await send();
    expect(mailsTo('c@example.test')).toHaveLength(2);
    // The mail client's one-click POST (RFC 8058): a form body, no action.
    const done = await fetch(link!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Unsubscribed');
    await send();
    expect(mailsTo('c@example.test')).toHaveLength(2);
    expect(mailsTo('d@example.test')).toHaveLength(3);
  });

  it('the mute button mutes the issue for that destination; a forged link does nothing', async () => {
    const { t, issueId, target, send } = await setup(['e@example.test']);
    await send();
    const link =
      /(http:\/\/\S+\/v1\/notifications\/unsubscribe\?token=\S+)/.exec(
        String(mailsTo('e@example.test')[0]?.text),
      )?.[1] ?? '';
    const forged = link.replace(/token=([^.]+)\./, (_m, body: string) => `token=${body}x.`);
    expect((await fetch(forged)).status).toBe(404);
    expect((await fetch(`${forged}&action=mute`, { method: 'POST' })).status).toBe(404);
    const muted = await fetch(`${link}&action=mute`, { method: 'POST' });
    expect(muted.status).toBe(200);
    expect(await muted.text()).toContain('Issue muted');
    const state = await mutedDestinations(server.ctx.db, t.projectId, issueId);
    expect([...state.ids]).toEqual([target.id]);
  });

  it('a refusing mail server fails the attempt, so it is retried', async () => {
    const { send } = await setup(['f@example.test']);
    smtp.refuse = true;
    const result = await send();
    smtp.refuse = false;
    expect(result.ok).toBe(false);
    expect(result.error).toContain('f@example.test');
  });
});
