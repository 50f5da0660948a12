import type { ApiKeyScope, Delivery } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { bearer, call } from '../support/http.js';
import { submit } from '../support/issues-helpers.js';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.js';

/** Bound on a hang, not a speed target. */
const WAIT_MS = 20_000;

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * An email destination with two addresses, one of which the mail server refuses: the other
 * gets the notification once, and only the refused address is retried until it is accepted.
 */
describe.each(DIALECTS)('email to a partly refused destination (%s)', (dialect) => {
  let server: TestServer;
  let smtp: SmtpReceiver;
  let t: Tenant;
  let admin: string;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer(dialect, {
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      NOTIFY_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s',
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Debrief <debrief@example.test>',
    });
    t = await server.tenant();
    admin = (
      await createApiKey(server.ctx.db, t.accountId, 'admin', [
        'read',
        'admin',
      ] as unknown as ApiKeyScope[])
    ).key;
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
  });

  const mailsTo = (address: string) =>
    smtp.mails.filter((m) =>
      (Array.isArray(m.to) ? m.to : [m.to]).some((a) => a?.text === address),
    );

  it('sends the accepted address one mail and retries only the refused one', async () => {
    const good = 'dev@example.test';
    const bad = 'oncall@example.test';
    const created = await call(`${server.url}/v1/dashboard/${t.projectId}/destinations`, {
      body: { type: 'email', to: [good, bad], events: ['issue.created'] },
      headers: bearer(admin),
    });
    expect(created.status).toBe(201);
    const log = async () =>
      (
        await call(
          `${server.url}/v1/dashboard/${t.projectId}/destinations/${created.body.id}/deliveries`,
          { headers: bearer(admin) },
        )
      ).body.data as Delivery[];

    smtp.refuseRecipients.add(bad);
    await submit(server, t, {
      outcome: 'failure',
      details: 'export_csv drops every row after the first 1,000',
      tool_name: 'export_csv',
    });
    // At least one retry refused as well: the accepted address is not sent it again.
    await until(
      async () => (await log()).filter((d) => d.status === 'failed').length >= 2,
      'two refused attempts',
    );
    expect(mailsTo(good)).toHaveLength(1);
    expect(mailsTo(bad)).toHaveLength(0);
    const [refused] = (await log()).filter((d) => d.status === 'failed');
    expect(refused?.error).toContain(bad);
    expect(refused?.error).not.toContain(good);
    expect(refused?.error).toMatch(/\(1 other address has it; a retry sends only to this one\)$/);

    smtp.refuseRecipients.delete(bad);
    await until(() => mailsTo(bad).length >= 1, 'the refused address, once accepted');
    await until(
      async () => (await log()).some((d) => d.status === 'succeeded'),
      'the attempt that succeeded',
    );
    const attempts = await log();
    expect(new Set(attempts.map((d) => d.message_id)).size).toBe(1);
    expect(attempts.filter((d) => d.status === 'succeeded')).toHaveLength(1);
    expect(mailsTo(good)).toHaveLength(1);
    expect(mailsTo(bad)).toHaveLength(1);
    expect(mailsTo(bad)[0]?.subject).toBe(mailsTo(good)[0]?.subject);
  });
});
