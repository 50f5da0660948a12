import type { ApiKeyScope } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { bearer, call } from '../support/http.js';
import { issueOf, submit, triageKey } from '../support/issues-helpers.js';
import { type Receiver, startReceiver } from './receiver.js';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.js';

/** Bound on a hang, not a speed target (the delay is measured by `npm run bench`). */
const WAIT_MS = 20_000;

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A running server with a Slack-format receiver and an SMTP server on 127.0.0.1: a failure that
 * creates an issue reaches both once; a muted issue reaches only the destination it is not muted
 * for. Runs where the destinations API and the deliverer are in the build. The dialects run
 * side by side (each its own server and receivers), the tests of one in turn.
 */
const SUITE = 'Slack and email deliveries from a running server (%s)';
describe.concurrent.each(DIALECTS)(SUITE, (dialect) => {
  let server: TestServer;
  let slack: Receiver;
  let smtp: SmtpReceiver;
  let t: Tenant;
  let admin: string;
  let hasApi = false;
  beforeAll(async () => {
    slack = await startReceiver();
    smtp = await startSmtpReceiver();
    server = await startTestServer(dialect, {
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      NOTIFY_RETRY_SCHEDULE: '1s,1s,1s',
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Debrief <debrief@example.test>',
    });
    hasApi = server.app.routeContracts.some(
      (route) => route.url === '/v1/dashboard/:projectId/destinations',
    );
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
    await slack.close();
    await smtp.close();
  });

  const destinations = () => `${server.url}/v1/dashboard/${t.projectId}/destinations`;
  /**
   * Whether every event of the project has been fanned out and every message has had its
   * last attempt: nothing more can be sent (no sleep for "nothing more arrives").
   */
  async function settled(): Promise<boolean> {
    const outbox = await server.ctx.db
      .selectFrom('notification_outbox')
      .select('id')
      .where('project_id', '=', t.projectId)
      .execute();
    const pending = await server.ctx.db
      .selectFrom('notification_messages')
      .select('id')
      .where('project_id', '=', t.projectId)
      .where('status', '=', 'pending')
      .execute();
    return outbox.length === 0 && pending.length === 0;
  }

  it.sequential('a new issue sends exactly one Slack message and one email', async (ctx) => {
    if (!hasApi) ctx.skip(); // The destinations API is not in this build.
    const toSlack = await call(destinations(), {
      body: { type: 'slack', url: slack.url, events: ['issue.created', 'issue.regressed'] },
      headers: bearer(admin),
    });
    expect(toSlack.status).toBe(201);
    const toEmail = await call(destinations(), {
      body: {
        type: 'email',
        to: ['dev@example.test'],
        events: ['issue.created', 'issue.regressed'],
      },
      headers: bearer(admin),
    });
    expect(toEmail.status).toBe(201);

    await submit(server, t, {
      outcome: 'failure',
      details: 'search_docs timed out <!channel>',
      tool_name: 'search_docs',
    });
    await until(
      () => slack.requests.length >= 1 && smtp.mails.length >= 1,
      'a Slack message and an email',
    );
    // Exactly once: each attempt recorded as done, nothing is left to send again.
    await until(settled, 'every message had its last attempt');
    expect(slack.requests).toHaveLength(1);
    expect(smtp.mails).toHaveLength(1);
    const message = JSON.parse(slack.requests[0]!.body);
    expect(message.text).toMatch(/^New issue in /);
    expect(JSON.stringify(message)).toContain('&lt;!channel&gt;');
    expect(smtp.mails[0]?.subject).toMatch(/^New issue in /);
    expect(smtp.mails[0]?.html).toContain('&lt;!channel&gt;');
  });

  it.sequential('an issue muted for Slack regresses by email only', async (ctx) => {
    if (!hasApi) ctx.skip();
    const reportId = await submit(server, t, {
      outcome: 'failure',
      details: 'upload_file rejects PNG files larger than 2 MB with error 413',
      tool_name: 'upload_file',
    });
    const issueId = await issueOf(server, t, reportId);
    await until(() => smtp.mails.length >= 2, 'the new issue by email');
    const slackBefore = slack.requests.length;
    const mailsBefore = smtp.mails.length;
    const triage = bearer(await triageKey(server, t));
    const list = await call(destinations(), { headers: bearer(admin) });
    const slackDestination = (list.body.data as { id: string; type: string }[]).find(
      (d) => d.type === 'slack',
    );
    const mute = await call(`${server.url}/v1/dashboard/${t.projectId}/issues/${issueId}/mutes`, {
      body: { destination_id: slackDestination?.id, hours: 24 },
      headers: triage,
    });
    expect(mute.status).toBe(201);
    const resolved = await call(`${server.url}/v1/dashboard/${t.projectId}/issues/${issueId}`, {
      method: 'PATCH',
      body: { status: 'resolved' },
      headers: triage,
    });
    expect(resolved.status).toBe(200);
    await submit(server, t, {
      outcome: 'failure',
      details: 'upload_file rejects PNG files larger than 2 MB with error 413',
      tool_name: 'upload_file',
    });
    await until(() => smtp.mails.length > mailsBefore, 'the regression by email');
    // The regression's message to Slack had its turn too (muted), and nothing waits.
    await until(settled, 'every message had its last attempt');
    expect(smtp.mails.at(-1)?.subject).toMatch(/^Regressed in /);
    expect(slack.requests.length).toBe(slackBefore);
  });
});
