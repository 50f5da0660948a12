import type { NotificationPayload } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatSlackMessage,
  slackChannel,
} from '../../src/notifications/channels/slack-channel.js';
import { fetchPoster, type Receiver, startReceiver } from './receiver.js';

const project = { id: 'a'.repeat(32), name: 'Acme <tools>', url: 'http://debrief.test/p/a' };
const issue = {
  id: 'b'.repeat(32),
  url: 'http://debrief.test/p/a/issues/b',
  title: 'search_docs fails <!channel> & more',
  outcome: 'failure',
  tool_name: 'search_docs',
  report_count: 3,
  sample_details: 'Timed out <@U123> after 30 s',
};
const report = {
  id: 'c'.repeat(32),
  outcome: 'failure',
  tool_name: 'search_docs',
  source: null,
  details: 'Timed out <!channel> <!here> <https://evil.test|click> & then gave up',
  created_at: '2026-11-28T01:00:00Z',
};

function payload(type: NotificationPayload['type'], data: object = {}): NotificationPayload {
  return { type, timestamp: '2026-11-28T01:00:00Z', data: { project, issue, report, ...data } };
}

/** Every text a Slack client parses: the top-level text and each mrkdwn object. */
function parsedTexts(message: Record<string, unknown>): string[] {
  const texts = [String(message.text)];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') texts.push(o.text);
      Object.values(o).forEach(walk);
    }
  };
  walk(message.blocks);
  return texts;
}

describe('Slack channel', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('posts a Block Kit message with a top-level text, fields and a button to the issue', async () => {
    const channel = slackChannel(fetchPoster);
    const result = await channel(
      { id: 'd'.repeat(32), type: 'slack', name: null, url: receiver.url, to: null },
      { id: 'msg_1', timestamp: new Date(), payload: payload('issue.created') },
    );
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(receiver.requests).toHaveLength(1);
    const body = JSON.parse(receiver.requests[0]!.body);
    expect(typeof body.text).toBe('string');
    expect(body.text).toContain('New issue in Acme &lt;tools&gt;');
    const types = body.blocks.map((b: { type: string }) => b.type);
    expect(types[0]).toBe('header');
    expect(types).toContain('section');
    expect(types.at(-1)).toBe('actions');
    const fields = body.blocks
      .find((b: { fields?: unknown }) => b.fields)
      .fields.map((f: { text: string }) => f.text);
    expect(fields).toEqual(['*Outcome*\nfailure', '*Tool*\nsearch_docs', '*Count*\n3']);
    expect(body.blocks.at(-1).elements[0].url).toBe(issue.url);
  });

  it('escapes &, < and > in every parsed text, so a report can never ping @channel', () => {
    for (const type of ['issue.created', 'issue.regressed', 'report.created'] as const) {
      const message = formatSlackMessage(payload(type));
      for (const text of parsedTexts(message)) {
        expect(text).not.toMatch(/<!|<@|<http/);
        expect(text.replace(/&(amp|lt|gt);/g, '')).not.toMatch(/[<>&]/);
      }
      expect(JSON.stringify(message)).toContain('&lt;!channel&gt;');
    }
  });

  it('always has a text, for every event type, even a digest without an issue', () => {
    const digest: NotificationPayload = {
      type: 'digest.daily',
      timestamp: '2026-11-28T09:00:00Z',
      data: {
        project,
        day: '2026-11-27',
        new_issues: [{ id: issue.id, title: '<!everyone> broke', report_count: 4 }],
        regressed_issues: [],
        busiest_issues: [],
        outcome_rates: { failure: 0.25 },
        outcome_rates_before: { failure: 0.5 },
      },
    };
    const message = formatSlackMessage(digest);
    expect(message.text).toBe('Daily digest for Acme &lt;tools&gt; (2026-11-27)');
    expect(JSON.stringify(message)).toContain('&lt;!everyone&gt; broke (4)');
    expect(JSON.stringify(message)).toContain('failure 25 % (50 %)');
  });

  it('reports a failing receiver as a failed attempt with its status', async () => {
    receiver.status = 503;
    const result = await slackChannel(fetchPoster)(
      { id: 'd'.repeat(32), type: 'slack', name: null, url: receiver.url, to: null },
      { id: 'msg_2', timestamp: new Date(), payload: payload('issue.regressed') },
    );
    receiver.status = 200;
    expect(result).toMatchObject({ ok: false, status: 503 });
  });
});
