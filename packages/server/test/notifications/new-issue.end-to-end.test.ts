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
import { type ReceivedWebhook, startReceiver, verify } from './webhook-receiver.js';

/** Bound on a hang, not a speed target (the delay is measured by `npm run bench:notify`). */
const WAIT_MS = 30_000;

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** SQLite with one instance; PostgreSQL with two instances on one database, each delivering. */
const SETUPS = DIALECTS.map((dialect) => ({ dialect, instances: dialect === 'postgres' ? 2 : 1 }));

/**
 * A new issue's notifications end to end, against a running server and real receivers on
 * 127.0.0.1: a Standard Webhooks receiver that verifies every request with the `standardwebhooks`
 * verifier, a Slack-format receiver and an SMTP server whose mail is parsed with `mailparser`.
 * A failure that opens an issue reaches each exactly once; a receiver that answers 503 for a
 * while gets every notification once it is back, each with the `webhook-id` of its failed
 * attempts. On PostgreSQL two instances share the database, and reports arrive through both.
 * The setups run side by side (each its servers and receivers), the tests of one in turn.
 * (kill -9 during deliveries: delivery.durability.test.ts.)
 */
describe.concurrent.each(SETUPS)(
  'a new issue notifies webhook, Slack and email ($dialect, $instances instance(s))',
  ({ dialect, instances }) => {
    let servers: TestServer[];
    let hooks: Awaited<ReturnType<typeof startReceiver>>;
    let smtp: SmtpReceiver;

    beforeAll(async () => {
      hooks = await startReceiver();
      smtp = await startSmtpReceiver();
      const env = {
        ALLOW_PRIVATE_DESTINATIONS: 'true',
        // Short waits, and enough of them that no notification runs out of attempts while the
        // receiver below refuses them (it stays down until each has been refused twice).
        NOTIFY_RETRY_SCHEDULE: Array(40).fill('250ms').join(','),
        SMTP_URL: smtp.url,
        SMTP_FROM: 'Debrief <debrief@example.test>',
      };
      const first = await startTestServer(dialect, env);
      servers = [first];
      if (instances > 1)
        servers.push(
          await startTestServer(dialect, env, { databaseUrl: first.config.databaseUrl }),
        );
    });
    afterAll(async () => {
      for (const server of [...(servers ?? [])].reverse()) await server.close();
      await hooks?.close();
      await smtp?.close();
    });

    /** A tenant and an admin key; the destinations are added through the last instance. */
    async function tenant(): Promise<{ t: Tenant; admin: string; base: string }> {
      const a = servers[0]!;
      const t = await a.tenant();
      const admin = (await createApiKey(a.ctx.db, t.accountId, 'admin', ['read', 'admin'])).key;
      return { t, admin, base: `${servers.at(-1)!.url}/v1/dashboard/${t.projectId}/destinations` };
    }
    const at = (path: string) => hooks.received.filter((r) => r.path === path);
    const mailsTo = (address: string) =>
      smtp.mails.filter((m) => m.to && JSON.stringify(m.to).includes(address));

    /** Each destination's delivery log shows `count` succeeded attempts. */
    async function allDelivered(base: string, admin: string, ids: string[], count: number) {
      for (const id of ids) {
        const log = await call(`${base}/${id}/deliveries`, { headers: bearer(admin) });
        const rows = log.body.data as { status: string }[];
        if (rows.filter((d) => d.status === 'succeeded').length !== count) return false;
      }
      return true;
    }

    it.sequential('one failure report that opens an issue: exactly one signed webhook, one Slack message, one email', async () => {
      const { t, admin, base } = await tenant();
      const events = ['issue.created', 'issue.regressed'];
      const webhook = await call(base, {
        headers: bearer(admin),
        body: { type: 'webhook', url: `${hooks.url}-webhook-${dialect}`, events },
      });
      const slack = await call(base, {
        headers: bearer(admin),
        body: { type: 'slack', url: `${hooks.url}-slack-${dialect}`, events },
      });
      const address = `dev-${dialect}@example.test`;
      const email = await call(base, {
        headers: bearer(admin),
        body: { type: 'email', to: [address], events },
      });
      expect([webhook.status, slack.status, email.status]).toEqual([201, 201, 201]);
      const secret = webhook.body.secret as string;

      const reportId = await submit(servers.at(-1)!, t, {
        outcome: 'failure',
        details: 'search_docs answered 500 for the query "rate limits" <!channel>',
        tool_name: 'search_docs',
      });
      const webhookPath = `/hook-webhook-${dialect}`;
      const slackPath = `/hook-slack-${dialect}`;
      await until(
        () =>
          at(webhookPath).length >= 1 && at(slackPath).length >= 1 && mailsTo(address).length >= 1,
        'a webhook, a Slack message and an email',
      );
      // Each attempt written as a success: nothing is left to retry, so nothing more can come.
      await until(
        () => allDelivered(base, admin, [webhook.body.id, slack.body.id, email.body.id], 1),
        'the three deliveries recorded',
      );
      expect(at(webhookPath)).toHaveLength(1);
      expect(at(slackPath)).toHaveLength(1);
      expect(mailsTo(address)).toHaveLength(1);

      const signed = at(webhookPath)[0]!;
      const event = verify(secret, signed) as { type: string; data: any };
      expect(event.type).toBe('issue.created');
      expect(event.data.report.id).toBe(reportId);
      expect(event.data.issue).toMatchObject({ outcome: 'failure', tool_name: 'search_docs' });
      expect(event.data.issue.url).toContain(`/issues/${event.data.issue.id}`);

      const message = at(slackPath)[0]!.json;
      expect(message.text).toMatch(/^New issue in /);
      expect(JSON.stringify(message)).toContain('&lt;!channel&gt;');
      // Only plain_text (the header, which Slack never parses for mentions) keeps it as it is.
      const parsed: string[] = [message.text];
      JSON.stringify(message.blocks, (_key, value) => {
        if (value?.type === 'mrkdwn') parsed.push(value.text);
        return value;
      });
      expect(parsed.filter((text) => text.includes('&lt;!channel&gt;')).length).toBeGreaterThan(1);
      for (const text of parsed) expect(text).not.toContain('<!channel>');

      const mail = mailsTo(address)[0]!;
      expect(mail.subject).toMatch(/^New issue in /);
      expect(mail.text).toContain('search_docs');
      expect(mail.html).toContain('&lt;!channel&gt;');
    });

    it.sequential('a receiver that answers 503 for a while gets every notification once it is back, each with one webhook-id', async () => {
      const { t, admin, base } = await tenant();
      const path = `/hook-down-${dialect}`;
      const created = await call(base, {
        headers: bearer(admin),
        body: { type: 'webhook', url: `${hooks.url}-down-${dialect}`, events: ['issue.created'] },
      });
      expect(created.status).toBe(201);
      const secret = created.body.secret as string;
      let down = true;
      const answeredOk = new Set<string>();
      hooks.setAnswer((request: ReceivedWebhook) => {
        if (request.path !== path) return { status: 200 };
        if (down) return { status: 503 };
        answeredOk.add(String(request.headers['webhook-id']));
        return { status: 200 };
      });

      const ISSUES = 3;
      for (let i = 0; i < ISSUES; i += 1) {
        await submit(servers[i % servers.length]!, t, {
          outcome: 'failure',
          tool_name: `down_tool_${i}`,
          details: `down_tool_${i} could not reach its index number ${i}`,
        });
      }
      /** webhook-id → how many requests carried it. */
      const attemptsById = () => {
        const counts = new Map<string, number>();
        for (const r of at(path)) {
          const id = String(r.headers['webhook-id']);
          counts.set(id, (counts.get(id) ?? 0) + 1);
        }
        return counts;
      };
      // Down until every notification has been refused twice (counted, not timed).
      await until(() => {
        const counts = attemptsById();
        return counts.size === ISSUES && [...counts.values()].every((n) => n >= 2);
      }, 'two refused attempts of each notification');
      const refusedIds = new Set(attemptsById().keys());
      down = false;

      await until(() => answeredOk.size === ISSUES, 'every notification delivered once back');
      await until(
        () => allDelivered(base, admin, [created.body.id], ISSUES),
        'the deliveries recorded',
      );
      // The ones delivered are the ones refused, by their webhook-id; each verifies, and each
      // issue came in exactly one notification.
      expect(answeredOk).toEqual(refusedIds);
      expect(new Set(attemptsById().keys())).toEqual(refusedIds);
      const issueById = new Map<string, string>();
      for (const request of at(path)) {
        const event = verify(secret, request) as { data: { issue: { id: string } } };
        const id = String(request.headers['webhook-id']);
        expect(issueById.get(id) ?? event.data.issue.id).toBe(event.data.issue.id);
        issueById.set(id, event.data.issue.id);
      }
      expect(new Set(issueById.values()).size).toBe(ISSUES);
      const log = await call(`${base}/${created.body.id}/deliveries`, { headers: bearer(admin) });
      const rows = log.body.data as {
        message_id: string;
        status: string;
        response_status: number;
      }[];
      for (const id of refusedIds) {
        const mine = rows.filter((d) => d.message_id === id);
        expect(mine.filter((d) => d.status === 'succeeded')).toHaveLength(1);
        expect(mine.filter((d) => d.response_status === 503).length).toBeGreaterThanOrEqual(2);
      }
    });
  },
);
