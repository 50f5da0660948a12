import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../../../test/harness/test-server.js';
import { newId } from '../../src/ids.js';
import { createSmtpTransport } from '../../src/notifications/email/email-channel.js';
import { failingDestinationMailer } from '../../src/notifications/email/failing-destination-mail.js';
import { openTenantDatabase } from '../support/seed.js';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.js';

describe('the owner hears of a destination paused after a day of failures', () => {
  let opened: Awaited<ReturnType<typeof openTenantDatabase>>;
  let smtp: SmtpReceiver;
  beforeAll(async () => {
    opened = await openTenantDatabase('sqlite');
    smtp = await startSmtpReceiver();
  });
  afterAll(async () => {
    await smtp.close();
    await opened.close();
  });

  it('emails the account owner with the last error and a link to resume it', async () => {
    const t = await createTenant({ db: opened.db } as never);
    const warnings: unknown[] = [];
    const mail = failingDestinationMailer({
      db: opened.db,
      transport: createSmtpTransport(smtp.url),
      from: 'Debrief <debrief@example.test>',
      publicUrl: 'http://debrief.test',
      log: { warn: (o: unknown) => warnings.push(o) },
    });
    await mail({
      id: newId(),
      projectId: t.projectId,
      name: 'CI <hook>',
      url: 'https://hooks.example/x',
      lastError: 'HTTP 503',
    });
    expect(warnings).toEqual([]);
    expect(smtp.mails).toHaveLength(1);
    const [sent] = smtp.mails;
    expect(sent?.to && !Array.isArray(sent.to) ? sent.to.text : '').toBe(t.email);
    expect(sent?.subject).toMatch(/is paused$/);
    expect(sent?.text).toContain('The last error: HTTP 503');
    expect(sent?.html).toContain('CI &lt;hook&gt;');
    expect(sent?.html).toContain(`http://debrief.test/projects/${t.projectId}/notifications`);
  });
});
